"""Normal forms of the values an atom states, so "14 March 2011" = "2011-03-14", "42,000" = "42
thousand", "$5" = "5 dollars" and "12%" = "12 percent" compare equal.

Dates are read by dateparser (its granularity says which parts were given: "March 2011" states a month,
not a day); numbers by their digits or English number words (the grounding word list, with scale words).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any

# one list of number words for both grounding signals
from trustscore.grounding._text import _NUMBER_WORDS as NUMBER_WORDS

__all__ = ["SCALE_WORDS", "DateValue", "parse_date", "parse_number", "years_in"]

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
}
SCALE_WORDS = frozenset(word for word in _SCALES if len(word) > 2)
"""The scale words written out ("thousand", "million"), not their one-letter abbreviations."""
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")


def parse_number(tokens: list[str]) -> float | None:
    """The number written by ``tokens`` ("42,000"; "3.5", "million"; "five"; "twenty", "two"), or
    None when they hold none."""
    value: float | None = None
    pending = 0.0
    for raw in tokens:
        t = raw.casefold().strip()
        if not t:
            continue
        digits = _DIGITS.fullmatch(re.sub(r"(st|nd|rd|th)$", "", t))
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
    return value


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
    """A date with the parts its text gave: ``month`` / ``day`` are None when not stated."""

    year: int
    month: int | None = None
    day: int | None = None

    def agrees(self, other: DateValue) -> bool:
        """Whether ``other`` says nothing against this date: the same year, and the same month and day
        wherever both give one."""
        return (
            self.year == other.year
            and (self.month is None or other.month is None or self.month == other.month)
            and (self.day is None or other.day is None or self.day == other.day)
        )

    def __str__(self) -> str:
        if self.month is None:
            return str(self.year)
        if self.day is None:
            return date(self.year, self.month, 1).strftime("%B %Y")
        return date(self.year, self.month, self.day).isoformat()


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
        return None
    data = _date_parser().get_date_data(text)
    when, period = data.date_obj, data.period
    if when is None or when.year not in years:
        return DateValue(year=years[0])  # "the spring of 2011": the year is what it states
    return DateValue(
        year=when.year,
        month=when.month if period in ("month", "day") else None,
        day=when.day if period == "day" else None,
    )


def years_in(text: str) -> list[int]:
    """The four-digit years (1500-2099) written in ``text``."""
    return [int(y) for y in _YEAR.findall(text)]
