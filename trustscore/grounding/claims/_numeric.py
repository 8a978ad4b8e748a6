"""Whether one stated number holds another: the same number, a number inside a range ("1 to 2 hours"),
a day without its year in a list or span of days ("June 4" in "June 3 to June 9"), units that agree, a
record's count of what its key names, and the same number that is no rival."""

from __future__ import annotations

import re

from trustscore.grounding._clock import clock_within
from trustscore.grounding.claims._atoms import Atom
from trustscore.grounding.claims._records import key_words, slot_unit
from trustscore.grounding.claims._values import DIGITS, day_named, months_in, parse_number

__all__ = [
    "counts_field",
    "in_dates",
    "of_days",
    "same",
    "same_amount",
    "same_number",
    "units_agree",
    "within",
]

_COUNTED = frozenset({"number", "percent"})
"""Kinds whose same number in another slot is no rival (an amount of money in another currency stays
one)."""

_SPAN = re.compile(r"\b(?:to|until|till|through|thru)\b|\d\s*[-–—]\s*\d", re.IGNORECASE)
"""What makes two numbers the ends of a span ("3 to 9", "3-9"), not two items of a list."""


def of_days(stated: Atom, atom: Atom) -> bool:
    """``stated`` is a list or span of days of one month ("March 3, 4 and 5", "June 3 to June 9", "3-9
    June": the parse reads it as a number; every number in it a day) and ``atom`` a day of that month
    without its year."""
    when = atom.date
    if stated.date is not None or stated.number is None or when is None or when.year is not None:
        return False
    days = DIGITS.findall(stated.text)
    return (
        when.day is not None
        and months_in(stated.text) == {when.month}
        and all(d.isdigit() and 1 <= int(d) <= 31 for d in days)
    )


def in_dates(stated: Atom, atom: Atom) -> bool:
    """A day without its year that a list or span of days states: written with its month ("January 1"
    in "December 25 and January 1"), one of a month's listed days ("March 4" in "March 3, 4 and 5"),
    or a day inside a span of one month ("June 4" in "June 3 to June 9")."""
    when = atom.date
    if stated.date is not None or when is None or when.year is not None or when.day is None:
        return False
    if when.month is not None and day_named(stated.text, when.month, when.day):
        return True
    if not of_days(stated, atom):
        return False
    days = [int(n) for n in DIGITS.findall(stated.text)]
    return when.day in days or (_SPAN.search(stated.text) is not None and within(stated, atom))


def within(stated: Atom, atom: Atom) -> bool:
    """``atom``'s number lies in a range ``stated`` gives ("1 to 2 hours", "4-6 minutes"; of clock times,
    on the clock: :func:`~trustscore.grounding._clock.clock_within`)."""
    if (on_clock := clock_within(stated.text, atom.text)) is not None:
        return on_clock
    found = (parse_number([n]) for n in DIGITS.findall(stated.text))
    bounds = [n for n in found if n is not None]
    return atom.number is not None and len(bounds) > 1 and min(bounds) <= atom.number <= max(bounds)


def same(a: float, b: float | None) -> bool:
    """The same number up to the rounding of its parse ("0.1" read twice, "1e9" as "1 billion")."""
    return b is not None and abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def same_amount(said: list[str], stated: list[str]) -> bool:
    """Both word lists write one number, a scale's abbreviation read as the scale ("$4m" and "$4
    million", "5k" and "5,000")."""
    mine, theirs = parse_number(said, money=True), parse_number(stated, money=True)
    return mine is not None and theirs is not None and same(mine, theirs)


def units_agree(a: Atom, b: Atom) -> bool:
    """No unit stated on one side, or the same on both ("18 teachers" is not "18 pupils"); a
    temperature whose scale one side leaves unsaid agrees with either scale."""
    if a.unit is None or b.unit is None or a.unit == b.unit:
        return True
    return "degree" in (a.unit, b.unit) and a.unit.startswith("degree") and b.unit.startswith("degree")


def counts_field(stated: Atom, atom: Atom) -> bool:
    """A record's count counts what its key names, whatever noun the parse hung it on: ``"stars": 4.5,
    "review_count": 212`` states "212 reviews" (the parse can give 212 the unit "star"); not a price
    "per" something (``"price_per_room": 200`` is no count of rooms)."""
    return (
        stated.slot is not None
        and stated.kind == atom.kind == "number"
        and "per" not in key_words(stated.slot)
        and atom.unit == slot_unit(stated.slot)
    )


def same_number(stated: Atom, atom: Atom) -> bool:
    """The context states the atom's own number there: no rival, whatever noun the parse hung either on
    (a record's ``"stars": 4.5, "review_count": 212`` can give 212 the unit "star"; "212: the context
    says 212" is no reason). The same amount of money in another currency stays a rival ("150 euros"
    against "150 dollars")."""
    return (
        atom.kind in _COUNTED
        and stated.number is not None
        and atom.number is not None
        and same(stated.number, atom.number)
    )
