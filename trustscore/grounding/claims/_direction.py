"""A change said to go one way between two values that go the other: "Bleaching fell from 22 percent
in 2015 to 38 percent" (38 is more than 22), "revenue of $31 million, up from $40 million".

A generator that copies a context's two values and gets the direction word wrong (or writes the
direction right and exchanges the values) leaves a sentence its own numbers refute, whatever words the
context uses for the change ("up from", "an increase on"). The check reads a direction word ("rose",
"fell", "increased", "a drop", "up") and the two values its "from ... to" (or "B, up from A") names:
numbers, amounts or percentages, both stated in the context, in the same unit and scale. It reads
nothing else: no rank ("fell from 2nd to 5th place" is a rise of the number), no year or clock time
(a span of time), no value whose scale only one side names ("fell from 3 to 2.5 million"), and no
negated direction ("did not fall"). A contradiction is of kind "predicate": the statement's direction
against its values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trustscore.compute._deadline import checkpoint
from trustscore.grounding.claims._verdict import POLARITY_KINDS, Verdict

__all__ = ["direction_verdicts"]

_UP = (
    "rose risen rise rises rising increased increase increases increasing grew grown grow grows growing "
    "climbed climb climbs climbing jumped jump jumps jumping soared soar soars soaring surged surge surges "
    "gained gain gains raised raise raises expanded expand expands boosted up"
)
_DOWN = (
    "fell fallen fall falls falling dropped drop drops dropping decreased decrease decreases decreasing "
    "declined decline declines declining dipped dip dips slipped slip slips slid plunged plunge plummeted "
    "shrank shrunk shrink shrinks sank sunk tumbled cut cuts reduced reduce reduces lowered "
    "down"
)
_GOES_UP = {word: True for word in _UP.split()} | {word: False for word in _DOWN.split()}
_DIRECTION = (
    r"\b(?P<dir>(?:went|goes|go)\s+(?:up|down)|" + "|".join(sorted(_GOES_UP, key=len, reverse=True)) + r")\b"
)
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9, "k": 1e3}
_QUANTITY = (
    r"(?<![\w.,])(?P<cur{n}>[$€£])?\s?(?P<sign{n}>[-−])?(?P<num{n}>\d[\d,]*(?:\.\d+)?)(?![\d.,]*\d)"
    r"(?:\s?(?P<scale{n}>thousand|million|billion|trillion|bn|k)\b)?"
    r"(?P<pct{n}>\s?(?:%|percent\b|per\s?cent\b))?"
    r"(?P<other{n}>(?:st|nd|rd|th)\b|:\d|\s?[ap]\.?m\b)?"
)
"""A value with its currency, scale and percent sign; ``other`` catches what makes it no amount (an
ordinal's ending, a clock time's minutes or half of the day)."""
_HEDGE = (
    r"(?:(?:about|around|nearly|almost|roughly|just|some|approximately|over|under|more\s+than|less\s+than)"
    r"\s+)?"
)
_FROM_TO = re.compile(
    _DIRECTION
    + r"(?:\s+[^\W\d_]+){0,3}?\s+from\s+(?:a\s+|an\s+)?"
    + _HEDGE
    + _QUANTITY.format(n=1)
    + r"(?P<gap>(?:\s+[\w'’-]+){0,4}?),?\s+to\s+"
    + _HEDGE
    + _QUANTITY.format(n=2),
    re.IGNORECASE,
)
"""A direction word, then "from" and a value, then "to" and a value within a few words."""
_SINCE = re.compile(
    _QUANTITY.format(n=2)
    + r"(?:\s+[^\W\d_]+){0,2}?\s*,?\s+"
    + r"(?:(?P<dir>up|down)|an?\s+(?P<noun>rise|increase|drop|fall|decline|decrease))\s+from\s+"
    + _HEDGE
    + _QUANTITY.format(n=1),
    re.IGNORECASE,
)
"""A value, then "up from" (or "a drop from") the value it changed from: "38 percent, up from 22"."""
_NEGATED = re.compile(r"(?:\bnot|n't|\bnever|\bno)\s+(?:\w+\s+)?$", re.IGNORECASE)
_NEGATION_REACH = 40
"""Characters before a direction word read for its negation ("did not", "has never")."""
_RANKS = re.compile(r"\s*(?:place|position|rank|spot|seed|round)\b", re.IGNORECASE)
_YEAR = re.compile(r"1\d{3}|20\d{2}")
_SCALE_AFTER = re.compile(r"\s?(thousand|million|billion|trillion|bn|k)\b", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.,])[-−]?\d[\d,]*(?:\.\d+)?(?![\d.,]*\d)")


@dataclass(frozen=True)
class _Value:
    amount: float
    currency: str | None
    scaled: bool
    """A scale word is written with it ("3 billion")."""
    text: str


def direction_verdicts(
    verdicts: list[Verdict], text: str, bounds: list[tuple[int, int]], context: str
) -> list[Verdict]:
    """The verdicts with each sentence whose direction its own values refute read as contradicted
    there (its other polarity verdicts give way); a sentence already contradicted in its polarity
    keeps that verdict."""
    stated = _numbers(context)
    out = list(verdicts)
    for start, end in bounds:
        found = _refuted(text, start, end, stated)
        if found is None:
            continue
        polar = [v for v in out if v.start < end and start < v.end and _polar(v)]
        if any(v.outcome == "contradicted" for v in polar):
            continue
        out = [v for v in out if v not in polar] + [found]
    return out


def _polar(verdict: Verdict) -> bool:
    return verdict.kind in POLARITY_KINDS or verdict.kind == "polarity"


def _refuted(text: str, start: int, end: int, stated: set[float]) -> Verdict | None:
    sentence = text[start:end]
    for pattern in (_FROM_TO, _SINCE):
        for n, m in enumerate(pattern.finditer(sentence)):
            if n % 4096 == 0:
                checkpoint()
            word = (m.group("dir") or m.group("noun") or "").casefold()
            goes_up = _GOES_UP.get(re.sub(r"^(?:went|goes|go)\s+", "", word), _GOES_UP.get(word))
            if goes_up is None or _NEGATED.search(sentence, max(0, m.start() - _NEGATION_REACH), m.start()):
                continue
            before, after = _value(m, 1, sentence), _value(m, 2, sentence)
            if before is None or after is None or not _comparable(before, after, stated):
                continue
            if after.amount != before.amount and (after.amount > before.amount) != goes_up:
                more, less = (after, before) if after.amount > before.amount else (before, after)
                return Verdict(
                    kind="predicate",
                    outcome="contradicted",
                    text=m.group(0),
                    start=start + m.start(),
                    end=start + m.end(),
                    context=f"{more.text} is more than {less.text}",
                )
    return None


def _value(m: re.Match[str], n: int, sentence: str) -> _Value | None:
    """The ``n``th value of a match, or None where it is no amount (a rank, a year, a clock time)."""
    if m.group(f"other{n}") or _RANKS.match(sentence, m.end(f"num{n}")):
        return None
    digits = m.group(f"num{n}").replace(",", "")
    currency, scale, percent = m.group(f"cur{n}"), m.group(f"scale{n}"), m.group(f"pct{n}")
    if _YEAR.fullmatch(digits) and not (currency or scale or percent):
        return None
    amount = float(digits) * (-1 if m.group(f"sign{n}") else 1) * _SCALES.get((scale or "").casefold(), 1)
    first = (
        m.start(f"cur{n}") if currency else m.start(f"sign{n}") if m.group(f"sign{n}") else m.start(f"num{n}")
    )
    last = max(m.end(g) for g in (f"num{n}", f"scale{n}", f"pct{n}") if m.group(g))
    return _Value(amount, currency, scale is not None, sentence[first:last].strip())


def _comparable(a: _Value, b: _Value, stated: set[float]) -> bool:
    """Two values one change can go between, both stated in the context."""
    if a.scaled != b.scaled or (a.currency and b.currency and a.currency != b.currency):
        return False
    return _held(a, stated) and _held(b, stated)


def _held(value: _Value, stated: set[float]) -> bool:
    return value.amount in stated  # both read the same way from the same digits and scale


def _numbers(context: str) -> set[float]:
    """Every number the context writes, as written and with the scale word after it."""
    out: set[float] = set()
    for n, m in enumerate(_NUMBER.finditer(context)):
        if n % 4096 == 0:
            checkpoint()
        try:
            amount = float(m.group(0).replace(",", "").replace("−", "-"))
        except ValueError:
            continue
        out.add(amount)
        scale = _SCALE_AFTER.match(context, m.end())
        if scale:
            out.add(amount * _SCALES[scale.group(1).casefold()])
    return out
