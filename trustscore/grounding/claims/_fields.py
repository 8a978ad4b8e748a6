"""A response read against a record context's yes/no fields and opening hours (:mod:`._records`).

- A yes/no field is *stated* when one sentence of the response uses all of its key's words, or the key
  written as one word ("outdoor seating" for ``OutdoorSeating``, "takeout" and "take-out" for
  ``RestaurantsTakeOut``; with a word of its parent's, "casual atmosphere" for ``Ambience.casual``), as
  a yes unless negated ("does not take reservations", "no outdoor seating", "without valet parking",
  "none of them are validated"). The same value as the record: supported; the other: contradicted (kind
  "field"). A string value that says yes or no is one too (``"WiFi": "no"``, ``"free"``, ``"paid"``;
  "free WiFi" against ``"paid"`` is contradicted).
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
_NO_ONE = frozenset({"none", "neither", "nothing", "nobody"})


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
            for word in {t.lemma_.casefold(), t.lower_}:  # a key's word as written too: "validated"
                out.setdefault(word, []).append(mention)
        if _hyphenated(t):  # "Wi-Fi" and "take-out" also as the one word "wifi", "takeout"
            after = doc[t.i + 2]
            negated = _negated(t) or _negated(after)
            mention = Mention(sentence_of[t.i], t.idx, after.idx + len(after.text), negated)
            out.setdefault(f"{t.lower_}{after.lower_}", []).append(mention)
    return out


def _in_sentence(said: dict[str, list[Mention]], words: list[str], n: int) -> list[Mention] | None:
    """A mention of each of ``words`` in sentence ``n``, or None when one of them is not there."""
    found = [next((m for m in said.get(w, ()) if m.sentence == n), None) for w in words]
    return [m for m in found if m is not None] if all(m is not None for m in found) else None


def _next_to(text: str, word: Mention, key: list[Mention]) -> bool:
    """Whether ``word`` is said of the key's words: at most two words between them, none of them a
    list's ("free WiFi", "WiFi is free"; not "free parking and paid WiFi")."""
    for m in key:
        gap = text[min(word.end, m.end) : max(word.start, m.start)]
        if len(gap.split()) > 2 or any(c in gap for c in ",;") or {"and", "or"} & set(gap.casefold().split()):
            return False
    return True


def _hyphenated(token: Token) -> bool:
    """Whether ``token`` begins a word written with a hyphen and no spaces ("Wi" of "Wi-Fi")."""
    if token.i + 2 >= len(token.doc) or not token.is_alpha or token.whitespace_:
        return False
    hyphen, after = token.doc[token.i + 1], token.doc[token.i + 2]
    return hyphen.text == "-" and not hyphen.whitespace_ and after.is_alpha


def _negated(token: Token) -> bool:
    """Whether the clause around ``token`` negates it: a "not" or "no" on it or on the words it hangs
    from up to its verb, or a "without" among them or above that verb."""
    for node in (token, *token.ancestors):
        if node.i != token.i and (node.lower_ in _NEGATING or _rather_than(node)):
            return True
        if any(_negator(c) for c in node.children):
            return True
        # the clause's verb: "without being too trendy", "does not have X or accept Y" (not a verb's
        # form that modifies a noun: "validated" parking, "garage, street, validated, or valet parking")
        if node.pos_ in ("VERB", "AUX") and node.dep_ not in ("amod", "compound", "acl"):
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
    """A dependent that negates its head: "not", "never", "no" parking, "neither" street nor lot, a
    subject "none" ("none of them are validated")."""
    if child.dep_ in ("nsubj", "nsubjpass"):
        return child.lower_ in _NO_ONE
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
    written = [*flag.words, flag.joined] if flag.joined else list(flag.words)
    for n in sorted({m.sentence for w in written for m in said.get(w, ())}):
        key = (_in_sentence(said, [flag.joined], n) if flag.joined else None) or _in_sentence(
            said, sorted(flag.words), n
        )
        also = _in_sentence(said, sorted(flag.also), n)
        if key is None or also is None or not all(_next_to(text, m, key) for m in also):
            continue
        found = [*key, *also]
        if flag.parent and not any(m.sentence == n for p in flag.parent for m in said.get(p, ())):
            continue
        start, end = min(m.start for m in found), max(m.end for m in found)
        stated = not any(m.negated for m in found)
        if stated == flag.value:
            return Verdict("field", "supported", text[start:end], start, end)
        return Verdict("field", "contradicted", text[start:end], start, end, f"{flag.key}: {flag.written}")
    return None
