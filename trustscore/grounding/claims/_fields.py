"""A response read against a record context's yes/no fields and opening hours (:mod:`._records`).

- A yes/no field is *stated* when one sentence of the response uses all of its key's words ("outdoor
  seating" for ``OutdoorSeating``; with a word of its parent's, "casual atmosphere" for
  ``Ambience.casual``), as a yes unless negated ("does not take reservations", "no outdoor seating",
  "without valet parking"). The same value as the record: supported; the other: contradicted (kind
  "field").
- Opening hours: a sentence about opening ("open", "close", "hours") that gives clock times is
  supported when every time it gives is a time the record's hours give, else contradicted (kind
  "hours"); "open every day" where the hours name fewer than seven days is contradicted. The times
  and the "every day" a supported statement read are what it vouches for: a number the atoms' check
  found unsupported there is not also reported ("seven days a week from 10 am to 10 pm" against
  ``"10:0-22:0"`` on every day).

A field the response never states is not checked; nothing here reads the record's prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from trustscore.grounding.claims._records import Flag, Record
from trustscore.grounding.claims._verdict import Verdict

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["Mention", "field_verdicts", "mentions"]

_TIME = re.compile(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?\s?m\b\.?", re.IGNORECASE)
_EVERY_DAY = re.compile(r"\b(every day|everyday|daily|seven days|7 days)\b", re.IGNORECASE)
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
    and sentence offsets) states, and the offsets of the times and "every day" phrases that the
    supported hours statements read (what they vouch for)."""
    out = [v for flag in record.flags if (v := _flag(text, said, flag)) is not None]
    read: list[tuple[int, int]] = []
    if record.hours:
        out.extend(_hours(text, said, bounds, record.hours, read))
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


def _hours(
    text: str,
    said: dict[str, list[Mention]],
    bounds: list[tuple[int, int]],
    hours: dict[str, tuple[float, float]],
    read: list[tuple[int, int]],
) -> list[Verdict]:
    given = {t % 24 for span in hours.values() for t in span}
    listed = ", ".join(f"{day.title()} {_clock(a)}-{_clock(b)}" for day, (a, b) in hours.items())
    opening = {m.sentence for w in _OPENING for m in said.get(w, ())}
    out: list[Verdict] = []
    for n, (start, end) in enumerate(bounds):
        if n not in opening:
            continue
        sentence = text[start:end]
        times = [(m, _hour(m)) for m in _TIME.finditer(sentence)]
        wrong = [m for m, hour in times if not any(abs(hour - g) < 1e-6 for g in given)]
        every = _EVERY_DAY.search(sentence)
        if wrong or (every is not None and len(hours) < 7):
            at = wrong[0] if wrong else every
            assert at is not None
            s, e = start + at.start(), start + at.end()
            out.append(Verdict("hours", "contradicted", text[s:e], s, e, f"the hours are {listed}"))
        elif times:
            s, e = start + times[0][0].start(), start + times[-1][0].end()
            out.append(Verdict("hours", "supported", text[s:e], s, e))
            spans = [m.span() for m, _ in times] + ([every.span()] if every is not None else [])
            read.extend((start + a, start + b) for a, b in spans)
    return out


def _hour(match: re.Match[str]) -> float:
    hour = int(match.group(1)) % 12 + (12 if match.group(3).lower() == "p" else 0)
    return (hour + int(match.group(2) or 0) / 60) % 24


def _clock(hour: float) -> str:
    return f"{int(hour)}:{round(hour % 1 * 60):02d}"
