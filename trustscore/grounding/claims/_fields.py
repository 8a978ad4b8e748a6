"""A response read against a record context's yes/no fields and opening hours (:mod:`._records`).

- A yes/no field is *stated* when one sentence of the response uses all of its key's words ("outdoor
  seating" for ``OutdoorSeating``; with a word of its parent's, "casual atmosphere" for
  ``Ambience.casual``), as a yes unless negated ("does not take reservations", "no outdoor seating",
  "without valet parking"). The same value as the record: supported; the other: contradicted (kind
  "field").
- Opening hours: a sentence about opening ("open", "close", "hours") is read day by day against the
  record's hours (:mod:`._hours`, kind "hours"). It answers for the times and days it reads: a number
  the atoms' check found unsupported there is not also reported ("seven days a week from 10 am to 10
  pm" against ``"10:0-22:0"`` on every day).

A field the response never states is not checked; nothing here reads the record's prose.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from trustscore.grounding.claims._hours import hours_verdicts
from trustscore.grounding.claims._records import Flag, Record
from trustscore.grounding.claims._verdict import Verdict

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["Mention", "field_verdicts", "mentions"]

_OPENING = frozenset({"open", "close", "closed", "hour", "operate", "serve"})
_NEGATING = frozenset({"without", "lack", "lacking", "no", "never"})
_NEGATORS = frozenset({"not", "n't", "never", "neither", "nor", "no"})


@dataclass(frozen=True)
class Mention:
    """One word of the response: its sentence, offsets, and whether its clause negates it."""

    sentence: int
    start: int
    end: int
    negated: bool


def mentions(doc: Doc) -> dict[str, list[Mention]]:
    """Each content lemma of ``doc`` (casefolded) with where it stands and whether it is negated."""
    sentence_of = {t.i: n for n, s in enumerate(doc.sents) for t in s}
    out: dict[str, list[Mention]] = {}
    for t in doc:
        if t.is_alpha and t.pos_ in ("NOUN", "PROPN", "ADJ", "VERB", "ADV"):
            mention = Mention(sentence_of[t.i], t.idx, t.idx + len(t.text), _negated(t))
            out.setdefault(t.lemma_.casefold(), []).append(mention)
    return out


def _negated(token: Token) -> bool:
    """Whether the clause around ``token`` negates it: a "not" or "no" on it or on the words it hangs
    from up to its verb, or a "without" among them or above that verb."""
    for node in (token, *token.ancestors):
        if node.i != token.i and (node.lower_ in _NEGATING or _rather_than(node)):
            return True
        if any(_negator(c) for c in node.children):
            return True
        if node.pos_ in ("VERB", "AUX"):  # "without being too trendy", "does not have X or accept Y"
            shared = (  # "does not have X or accept Y": a negation spreads over "or", not over "and"
                node.dep_ == "conj"
                and not any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in node.children)
                and any(
                    c.dep_ == "cc" and c.lower_ in ("or", "nor")
                    for c in (*node.head.children, *node.children)
                )
                and any(_negator(c) for c in node.head.children)
            )
            return node.head.lower_ in _NEGATING or shared
    return False


def _negator(child: Token) -> bool:
    """A dependent that negates its head: "not", "never", "no" parking, "neither" street nor lot."""
    return child.dep_ in ("neg", "preconj", "det", "cc") and child.lower_ in _NEGATORS


def _rather_than(token: Token) -> bool:
    return token.lower_ == "than" and token.i > 0 and token.doc[token.i - 1].lower_ == "rather"


def field_verdicts(
    text: str, said: dict[str, list[Mention]], bounds: list[tuple[int, int]], record: Record
) -> tuple[list[Verdict], list[tuple[int, int]]]:
    """The verdicts on the fields and hours of ``record`` that the response (``text``, its mentions
    and sentence offsets) states, and the offsets of the times and days its hours statements read
    (which the hours check answers for)."""
    out = [v for flag in record.flags if (v := _flag(text, said, flag)) is not None]
    read: list[tuple[int, int]] = []
    if record.hours:
        opening = {m.sentence for w in _OPENING for m in said.get(w, ())}
        about = [span for n, span in enumerate(bounds) if n in opening]
        out.extend(hours_verdicts(text, about, record.hours, read))
    return out, read


def _flag(text: str, said: dict[str, list[Mention]], flag: Flag) -> Verdict | None:
    for n in sorted({m.sentence for w in flag.words for m in said.get(w, ())}):
        hits = [next((m for m in said.get(w, ()) if m.sentence == n), None) for w in flag.words]
        found = [m for m in hits if m is not None]
        if len(found) < len(hits):
            continue
        if flag.parent and not any(m.sentence == n for p in flag.parent for m in said.get(p, ())):
            continue
        start, end = min(m.start for m in found), max(m.end for m in found)
        stated = not any(m.negated for m in found)
        if stated == flag.value:
            return Verdict("field", "supported", text[start:end], start, end)
        return Verdict(
            "field", "contradicted", text[start:end], start, end, f"{flag.key}: {str(flag.value).lower()}"
        )
    return None
