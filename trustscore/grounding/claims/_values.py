"""Normal forms of the values an atom states, so "14 March 2011" = "2011-03-14", "42,000" = "42
thousand", "$5" = "5 dollars" and "12%" = "12 percent" compare equal.

Dates are read by dateparser (its granularity says which parts were given: "March 2011" states a month,
not a day), except a bare year ("1998"), which states its year alone: dateparser says so for every
one (1500-2099), and its first parse of a process compiles its locale and time-zone patterns (a third
of a second); numbers by their digits or English number words (the grounding word list, with scale words).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any

# one list of number words for both grounding signals
from trustscore.grounding._text import _NUMBER_WORDS as NUMBER_WORDS

__all__ = [
    "DIGITS",
    "MONTH_NAMES",
    "SCALE_ABBREVIATIONS",
    "SCALE_WORDS",
    "DateValue",
    "day_named",
    "months_in",
    "parse_date",
    "parse_number",
    "years_in",
]

_SCALES = {
    "hundred": 1e2,
    "thousand": 1e3,
    "k": 1e3,
    "million": 1e6,
    "m": 1e6,
    "mn": 1e6,
    "billion": 1e9,
    "bn": 1e9,
    "b": 1e9,
    "trillion": 1e12,
    "tn": 1e12,
}
SCALE_WORDS = frozenset(word for word in _SCALES if len(word) > 2)
"""The scale words written out ("thousand", "million"), not their one-letter abbreviations."""
SCALE_ABBREVIATIONS = frozenset(word for word in _SCALES if len(word) <= 2)
"""The abbreviations an amount of money is scaled by ("$4m", "£6.4bn", "$40k")."""
DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
"""A number written in digits, with its decimal or thousands separators ("42,000", "3.5")."""
_ABBREVIATED = re.compile(
    f"({DIGITS.pattern})(" + "|".join(sorted(SCALE_ABBREVIATIONS, key=len, reverse=True)) + ")"
)
_CURRENCY_SIGNS = "$£€¥"
_JOINED_SPAN = re.compile(f"([-–—])(?=[{_CURRENCY_SIGNS}]\\d)")
"""The dash of a span of amounts that the tokenizer leaves in one token ("100-$300"): the span's ends
are read apart, the first the amount stated, as "$100 to $300"."""
_DAY_AFTER = re.compile(r"\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b")
_DAY_BEFORE = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?$")
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")
MONTH_NAMES = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH = re.compile(
    r"\b(?:" + "|".join(MONTH_NAMES) + r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b", re.IGNORECASE
)
_MONTH_NUMBER = {name[:3]: n for n, name in enumerate(MONTH_NAMES, 1)}
"""A month's number by the first three letters of any of its spellings."""


def parse_number(tokens: list[str], money: bool = False) -> float | None:
    """The number written by ``tokens`` ("42,000"; "3.5", "million"; "five"; "twenty", "two"), or
    None when they hold none. With ``money``, digits written with a scale's abbreviation in one token
    are scaled ("6.4bn", "40k"): in an amount of money the letter can only be the scale, elsewhere
    "4m" may be four metres; and a span in one token is read as its first end ("100-$300": 100)."""
    if money:
        tokens = [
            part for raw in tokens for piece in _JOINED_SPAN.split(raw) for part in _abbreviation_apart(piece)
        ]
    value: float | None = None
    pending = 0.0
    for raw in tokens:
        t = raw.casefold().strip()
        if not t:
            continue
        digits = DIGITS.fullmatch(re.sub(r"(st|nd|rd|th)$", "", t))
        if digits is not None:
            if value is not None:
                break  # "9 am to 6 pm", "5 to 7": the first number is the one stated
            number = _digits_value(digits.group(0))
            if number is None:
                return None
            pending = value = number
        elif t in _SCALES and value is not None:
            pending *= _SCALES[t]
            value = pending
        elif t in NUMBER_WORDS:
            pending += float(NUMBER_WORDS[t])
            value = pending
        elif value is not None and t not in ("and", "a", "an", "-"):
            break  # "eight to ten minutes": the first number is the one stated, as with digits
    return value


def _abbreviation_apart(token: str) -> tuple[str, ...]:
    """An amount's word without its currency sign and a sentence's full stop ("$4m", "£20m."), cut
    into its digits and its scale's abbreviation where it has one."""
    bare = token.casefold().strip().strip(_CURRENCY_SIGNS).rstrip(".")
    abbreviated = _ABBREVIATED.fullmatch(bare)
    return (bare,) if abbreviated is None else abbreviated.groups()


def _digits_value(text: str) -> float | None:
    if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", text):
        text = text.replace(",", "")
    elif re.fullmatch(r"\d+,\d{1,2}", text):
        text = text.replace(",", ".")
    try:
        return float(text)
    except ValueError:
        return None


@dataclass(frozen=True)
class DateValue:
    """A date with the parts its text gave: ``year`` is None for a month's day written without one
    ("Feb 14"), ``month`` / ``day`` are None when not stated."""

    year: int | None
    month: int | None = None
    day: int | None = None

    def agrees(self, other: DateValue) -> bool:
        """Whether ``other`` says nothing against this date and speaks of it: the same year, month and
        day wherever both give one, and at least one part both give ("Feb 14" neither agrees with nor
        contradicts "2011")."""
        pairs = [
            (a, b) for a, b in zip(self._parts, other._parts, strict=True) if a is not None and b is not None
        ]
        return bool(pairs) and all(a == b for a, b in pairs)

    def states(self, said: DateValue) -> bool:
        """Whether this date, as a text states it, vouches for ``said``: they agree, and this one gives
        a year wherever ``said`` does ("It is run in October" states no "16 October 1993")."""
        return self.agrees(said) and (said.year is None or self.year is not None)

    def speaks_of(self, other: DateValue) -> bool:
        """Whether both give one part at least (a year, a month or a day): only then can they differ."""
        return any(a is not None and b is not None for a, b in zip(self._parts, other._parts, strict=True))

    @property
    def _parts(self) -> tuple[int | None, int | None, int | None]:
        return (self.year, self.month, self.day)

    def __str__(self) -> str:
        if self.month is None:
            return str(self.year)
        when = date(2000 if self.year is None else self.year, self.month, self.day or 1)
        if self.year is None:
            return f"{when.strftime('%B')} {self.day}"
        if self.day is None:
            return when.strftime("%B %Y")
        return when.isoformat()


@lru_cache(maxsize=1)
def _date_parser() -> Any:
    from dateparser.date import DateDataParser

    return DateDataParser(languages=["en"], settings={"PREFER_DATES_FROM": "past", "STRICT_PARSING": False})


@lru_cache(maxsize=8192)
def parse_date(text: str) -> DateValue | None:
    """The date ``text`` states with at least a year in digits ("14 March 2011", "2011-03-14", "May
    1998", "2011"), or None (relative dates such as "last year" and weekdays are not checkable)."""
    years = years_in(text)
    if not years:
        return _day_of_year(text)
    if text == str(years[0]):
        return DateValue(year=years[0])
    data = _date_parser().get_date_data(text)
    when, period = data.date_obj, data.period
    if when is None or when.year not in years:
        return DateValue(year=years[0])  # "the spring of 2011": the year is what it states
    return DateValue(
        year=when.year,
        month=when.month if period in ("month", "day") else None,
        day=when.day if period == "day" else None,
    )


def _day_of_year(text: str) -> DateValue | None:
    """A month's day written without a year ("Feb 14", "14th of March"); None when the text names no
    month or more than one number (a list or span of days, "March 3, 4 and 5", "3-9 June", which
    dateparser would read as its first day), or dateparser reads no day in it. A month alone ("in May",
    "late June", "every March") is no date: the context often writes it in words dateparser cannot
    read, and the response's month would then count as unsupported."""
    if _MONTH.search(text) is None or len(DIGITS.findall(text)) != 1:
        return None
    data = _date_parser().get_date_data(text)
    if data.date_obj is None or data.period != "day":
        return None
    return DateValue(year=None, month=data.date_obj.month, day=data.date_obj.day)


def day_named(text: str, month: int, day: int) -> bool:
    """Whether ``text`` writes the day with its month beside it ("January 1", "1 January", "1st of
    January", "Jan. 1")."""
    for m in _MONTH.finditer(text):
        if _MONTH_NUMBER[m.group().casefold()[:3]] != month:
            continue
        after = _DAY_AFTER.match(text, m.end())
        before = _DAY_BEFORE.search(text[: m.start()])
        if (after is not None and int(after.group(1)) == day) or (
            before is not None and int(before.group(1)) == day
        ):
            return True
    return False


def months_in(text: str) -> frozenset[int]:
    """The months ``text`` names (1-12), by name or abbreviation."""
    return frozenset(_MONTH_NUMBER[m.group().casefold()[:3]] for m in _MONTH.finditer(text))


def years_in(text: str) -> list[int]:
    """The four-digit years (1500-2099) written in ``text``."""
    return [int(y) for y in _YEAR.findall(text)]
