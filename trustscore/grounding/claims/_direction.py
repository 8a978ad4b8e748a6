"""A change said to go one way between two values that go the other: "Bleaching fell from 22 percent
in 2015 to 38 percent" (38 is more than 22), "revenue of $31 million, up from $40 million".

A generator that copies a context's two values and gets the direction word wrong (or writes the
direction right and exchanges the values) leaves a sentence its own numbers refute, whatever words the
context uses for the change ("up from", "an increase on"). The check reads a direction word ("rose",
"fell", "increased", "a drop", "up") right before "from" and the two values its "from ... to" (or "B,
up from A") names: numbers, amounts or percentages, both stated in the context, in one unit and scale.
It reads nothing else: no range ("fell by anywhere from 10 to 20 percent"), no sentence of rankings
("rose from 15 to 4 in the rankings" is a rise), no ratio ("1 in 4"), no year or clock time (a span of
time), no value whose scale only one side names ("fell from 3 to 2.5 million"), no negated direction
("did not fall"), and no two values the context itself words so that this reading would refute it.
A contradiction is of kind "predicate": the statement's direction against its values.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from trustscore.compute._deadline import checkpoint
from trustscore.grounding._function_words import STOPWORDS
from trustscore.grounding.claims._values import parse_number
from trustscore.grounding.claims._verdict import Verdict

__all__ = ["direction_verdicts"]

Sentences = list[tuple[int, int]]
"""Each sentence's character offsets in its text."""

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
_SCALE = r"thousand|million|billion|trillion|bn|k"
"""The scale words read after a number (:func:`._values.parse_number` gives their factors)."""
_DIGITS = r"(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d+)?(?!,?\d|\.\d)"
"""A number as written in digits, thousands parted by commas ("1,200", "3.5"); each digit is looked
at a bounded number of times, however long a run of digits and commas (a template: braces doubled)."""
_QUANTITY = (
    r"(?<![\w.,])(?P<cur{n}>[$€£])?\s?(?P<sign{n}>[-−])?(?P<num{n}>"
    + _DIGITS
    + r")(?:\s?(?P<scale{n}>"
    + _SCALE
    + r")\b)?"
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
    + r"(?:\s+[^\W\d_]+ly){0,2}\s+from\s+(?:a\s+|an\s+)?"
    + _HEDGE
    + _QUANTITY.format(n=1)
    + r"(?P<gap>(?:\s+[\w'’-]+){0,4}?),?\s+to\s+"
    + _HEDGE
    + _QUANTITY.format(n=2),
    re.IGNORECASE,
)
"""A direction word (an adverb or two may follow it: "fell sharply"), then "from" and a value, then "to"
and a value within a few words. No other word between the direction and "from": "costs fell by anywhere
from 10 to 20 percent" and "declines ranging from 2 to 5 percent" give a range, not a change."""
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
_RANKS = re.compile(
    r"\b(?:place[sd]?|position|rank\w*|spot|seed\w*|round|chart\w*|standings|no\.)(?!\w)|#\s?\d",
    re.IGNORECASE,
)
"""Words of a ranking: a sentence with one reads its numbers as places ("climbed the charts from 40 to
5", "rose from 15 to 4 in the world rankings"), where a rise is a smaller number."""
_RATIO = re.compile(
    r"\s+(?:in|out\s+of|of)\s+\d|\s+(?:and|or)\s+(?:up|over|more|older|above|under)\b", re.IGNORECASE
)
"""What makes a value part of a ratio or a bound ("1 in 4", "3 out of 4", "aged 5 and up")."""
_RATIO_BEFORE = re.compile(r"\b(?:in|out\s+of)\s+$", re.IGNORECASE)
_UNIT_WORDS = re.compile(r"(?:\s+(?:per\s+)?[^\W\d_]+){1,3}")
_YEAR = re.compile(r"1\d{3}|20\d{2}")
_SCALE_AFTER = re.compile(rf"\s?({_SCALE})\b", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.,])[-−]?" + _DIGITS.format())


@dataclass(frozen=True)
class _Value:
    amount: float
    currency: str | None
    scaled: bool
    """A scale word is written with it ("3 billion")."""
    unit: str | None
    """"%" for a percentage, else the words after it up to a common word ("hours", "dollars per
    kilo"), or None."""
    text: str


def direction_verdicts(
    verdicts: list[Verdict], response: tuple[str, Sentences], context: tuple[str, Sentences]
) -> list[Verdict]:
    """The verdicts with each response sentence whose direction its own values refute read as
    contradicted there (its other polarity verdicts give way); a sentence already contradicted in its
    polarity keeps that verdict. Each text comes with its sentences' offsets. A change the context
    itself states so that this reading would refute it is a misreading of this wording, not an error
    ("cut the journey from 2 hours to 45 min"): the same two values in the response are not read
    either."""
    text, bounds = response
    read = [(start, end) for start, end in bounds if _said_against(text[start:end])]
    if not read:
        return verdicts  # the common case: the context is not read at all
    stated = _numbers(context[0])
    misread = {
        (before.amount, after.amount)
        for sentence in (context[0][start:end] for start, end in context[1])
        for m, before, after in _changes(sentence)
        if _against(m, sentence, before, after)
    }
    out = list(verdicts)
    for start, end in read:
        found = _refuted(text[start:end], stated, misread)
        if found is None:
            continue
        found = replace(found, start=found.start + start, end=found.end + start)
        polar = [v for v in out if v.start < end and start < v.end and v.of_polarity]
        if any(v.outcome == "contradicted" for v in polar):
            continue
        out = [v for v in out if v not in polar] + [found]
    return out


def _changes(text: str) -> Iterator[tuple[re.Match[str], _Value, _Value]]:
    """Each change ``text`` states: its direction's match and its two values, before and after; none
    in a text of rankings."""
    if _RANKS.search(text):
        return
    for pattern in (_FROM_TO, _SINCE):
        for n, m in enumerate(pattern.finditer(text)):
            if n % 4096 == 0:
                checkpoint()
            before, after = _value(m, 1, text), _value(m, 2, text)
            if before is not None and after is not None and _same_measure(before, after):
                yield m, before, after


def _said_against(sentence: str) -> bool:
    """The sentence states a change whose direction word goes against its values."""
    return any(_against(m, sentence, before, after) for m, before, after in _changes(sentence))


def _refuted(sentence: str, stated: set[float], misread: set[tuple[float, float]]) -> Verdict | None:
    """The first change of ``sentence`` its values refute (offsets in the sentence), or None."""
    for m, before, after in _changes(sentence):
        if not _against(m, sentence, before, after) or (before.amount, after.amount) in misread:
            continue
        if before.amount not in stated or after.amount not in stated:
            continue
        more, less = (after, before) if after.amount > before.amount else (before, after)
        return Verdict(
            kind="predicate",
            outcome="contradicted",
            text=m.group(0),
            start=m.start(),
            end=m.end(),
            context=f"{more.text} is more than {less.text}",
        )
    return None


def _against(m: re.Match[str], text: str, before: _Value, after: _Value) -> bool:
    """The direction word of a change goes against its values (and is not negated)."""
    word = (m.group("dir") or m.group("noun") or "").casefold()
    goes_up = _GOES_UP.get(re.sub(r"^(?:went|goes|go)\s+", "", word))
    if goes_up is None or before.amount == after.amount or (after.amount > before.amount) == goes_up:
        return False
    return _NEGATED.search(text, max(0, m.start() - _NEGATION_REACH), m.start()) is None


def _value(m: re.Match[str], n: int, sentence: str) -> _Value | None:
    """The ``n``th value of a match, or None where it is no amount (a year, a clock time, a ratio's
    term)."""
    written = m.group(f"num{n}")
    if (
        m.group(f"other{n}")
        or _RATIO.match(sentence, m.end(f"num{n}"))
        or _RATIO_BEFORE.search(sentence, max(0, m.start(f"num{n}") - 12), m.start(f"num{n}"))
    ):
        return None
    currency, scale, percent = m.group(f"cur{n}"), m.group(f"scale{n}"), m.group(f"pct{n}")
    if _YEAR.fullmatch(written) and not (currency or scale or percent):
        return None
    amount = _amount(written, scale, negative=bool(m.group(f"sign{n}")))
    if amount is None:
        return None
    first = (
        m.start(f"cur{n}") if currency else m.start(f"sign{n}") if m.group(f"sign{n}") else m.start(f"num{n}")
    )
    last = max(m.end(g) for g in (f"num{n}", f"scale{n}", f"pct{n}") if m.group(g))
    return _Value(
        amount,
        currency,
        scale is not None,
        "%" if percent else _unit(sentence, last),
        sentence[first:last].strip(),
    )


def _unit(sentence: str, at: int) -> str | None:
    """The words after a value up to the first common word: what it counts ("hours", "dollars per
    kilo")."""
    words: list[str] = []
    found = _UNIT_WORDS.match(sentence, at)
    for word in found.group(0).casefold().split() if found else []:
        if word in STOPWORDS and word != "per":
            break
        words.append(word)
    return " ".join(words) or None


def _same_measure(a: _Value, b: _Value) -> bool:
    """Two values one change can go between: one scale, currency and unit where both name one."""
    if a.scaled != b.scaled or (a.currency and b.currency and a.currency != b.currency):
        return False
    return not (a.unit and b.unit and a.unit != b.unit)  # "from 2 hours to 45 minutes"


def _numbers(context: str) -> set[float]:
    """Every number the context writes, as written and with the scale word after it."""
    out: set[float] = set()
    for n, m in enumerate(_NUMBER.finditer(context)):
        if n % 4096 == 0:
            checkpoint()
        written = m.group(0).lstrip("-−")
        negative = written != m.group(0)
        scale = _SCALE_AFTER.match(context, m.end())
        for amount in (
            _amount(written, None, negative),
            _amount(written, scale[1], negative) if scale else None,
        ):
            if amount is not None:
                out.add(amount)
    return out


def _amount(written: str, scale: str | None, negative: bool) -> float | None:
    """A number in digits with its scale word, as the claims check reads numbers (a negative one where
    a sign stands before it)."""
    amount = parse_number([written, scale] if scale else [written])
    return None if amount is None else -amount if negative else amount
