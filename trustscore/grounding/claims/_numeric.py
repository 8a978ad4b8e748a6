"""Whether one stated number holds another: the same number, a number inside a range ("1 to 2 hours"),
a day without its year in a list or span of days ("June 4" in "June 3 to June 9"), units that agree, a
record's count of what its key names, the same number that is no rival, and the same number in another
unit of the same measure, which is one."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from trustscore.grounding._clock import clock_within
from trustscore.grounding._function_words import STOPWORDS
from trustscore.grounding.claims._atoms import Atom
from trustscore.grounding.claims._durations import in_parts
from trustscore.grounding.claims._lexicon import SPEEDS, unit, unit_spelling
from trustscore.grounding.claims._rates import rate
from trustscore.grounding.claims._records import key_words, slot_unit
from trustscore.grounding.claims._values import DIGITS, day_named, months_in, parse_number

__all__ = [
    "Lemmas",
    "another_measure",
    "counts_field",
    "in_another_unit",
    "in_dates",
    "in_scale",
    "in_units",
    "is_range",
    "of_days",
    "of_other_things",
    "one_amount",
    "same",
    "same_amount",
    "same_number",
    "same_quantity",
    "scaled",
    "units_agree",
    "with_unit",
    "within",
]

_COUNTED = frozenset({"number", "percent"})
"""Kinds whose same number in another slot is no rival (an amount of money in another currency stays
one)."""

_OVEN_ROUNDING = 15.0
"""How far in °F a converted oven heat may be rounded: oven charts pair 10°C steps with 25°F steps
(180°C, 356°F, is written 350°F; 140°C, 284°F, 275°F)."""
_OVEN = 250.0
"""The heat in °F from which a temperature is an oven's, which recipes round to 25°F."""

_MEASURES = (
    frozenset(
        {
            "millisecond",
            "second",
            "minute",
            "hour",
            "day",
            "week",
            "fortnight",
            "month",
            "year",
            "decade",
            "century",
        }
    ),
    frozenset({"millimeter", "centimeter", "meter", "kilometer", "inch", "foot", "yard", "mile"}),
    frozenset({"acre", "hectare"}),
    frozenset({"milligram", "gram", "kilogram", "ounce", "pound", "ton", "metric_ton"}),
    frozenset({"milliliter", "liter", "teaspoon", "tablespoon", "cup", "pint", "quart", "gallon"}),
    SPEEDS | {"knot"},
)
"""Units of one everyday measure, as pint names them (:func:`._lexicon.unit`): the same number in another
of them is another amount ("15 hours" for "15 minutes"). Only these: pint also lists units whose names
prose uses for other things ("point", "hand", "bag", "stone", "shot", "quarter"), a unit outside them
may be read from part of its words ("32 pounds" from "32 pounds per square inch" against "32 psi"), and
a square or cubic length is read as its length ("3.8 square kilometres")."""

_SCALE_NAMES = {"degree c": "Celsius", "degree f": "Fahrenheit"}
_SCALE_WRITTEN = re.compile(r"°\s*[cf]\b|celsius|fahrenheit", re.IGNORECASE)

_YEAR = re.compile(r"(?<!\d)\d{4}(?!\d)")
"""A year as a date's text writes it."""
_ORDINAL = re.compile(
    r"\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\d+(?:st|nd|rd|th))"
    r"(?=\s+\w)",
    re.IGNORECASE,
)
"""An ordinal before another word of a value ("third week", "the 2nd day"; not the unit of "1 second")."""
_NEXT_WORD = re.compile(r"\s+([^\W\d_]+\.?)")
_OF = re.compile(r"\s+of\s+((?:[^\W\d_]+[ \t]*){1,6})")
"""The words after an amount's "of", up to six and up to punctuation ("two cups of hot water, ...")."""
_LETTER_RUN = re.compile(r"[^\W\d_]+")
Lemmas = Mapping[int, tuple[str, str | None]]
"""A text's words' lemmas (and slots) by offset, as ``Facts.tokens`` holds them."""
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
    or a day inside a span of one month ("June 4" in "June 3 to June 9"); or a year that a span or list
    of dates writes ("2020" in "between 1990 and 2020", which is dated by its first)."""
    when = atom.date
    if stated.kind == "date" and when is not None and when.month is None and when.year is not None:
        return str(when.year) in _YEAR.findall(stated.text)
    if stated.date is not None or when is None or when.year is not None or when.day is None:
        return False
    if when.month is not None and day_named(stated.text, when.month, when.day):
        return True
    if not of_days(stated, atom):
        return False
    days = [int(n) for n in DIGITS.findall(stated.text)]
    return when.day in days or (_SPAN.search(stated.text) is not None and within(stated, atom))


def is_range(atom: Atom) -> bool:
    """The atom writes two numbers as the ends of a span ("6 to 9 minutes", "70-80 percent")."""
    return len(DIGITS.findall(atom.text)) > 1 and _SPAN.search(atom.text) is not None


def within(stated: Atom, atom: Atom) -> bool:
    """``atom``'s number lies in a range ``stated`` gives ("1 to 2 hours", "4-6 minutes"; of clock times,
    on the clock: :func:`~trustscore.grounding._clock.clock_within`)."""
    if (on_clock := clock_within(stated.text, atom.text)) is not None:
        return on_clock
    if in_parts(stated):  # "2 hours and 10 minutes" is no range of 2 to 10
        return False
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
    against "150 dollars"), and so does the same temperature on another scale ("60°C" against "60°F")."""
    return (
        atom.kind in _COUNTED
        and stated.number is not None
        and atom.number is not None
        and same(stated.number, atom.number)
        and not _other_scales(stated.unit, atom.unit)
    )


def in_another_unit(
    atom: Atom,
    stated: list[Atom],
    sentence: int | None,
    texts: tuple[str, str],
    lemmas: tuple[Lemmas, Lemmas],
) -> Atom | None:
    """A value of the context with the atom's number in another unit of the same measure or on another
    temperature scale ("42 kilometres" for "42 miles", "3 days" for "3 weeks", "25 °C" for "25 °F"), the
    aligned ``sentence``'s first: the context's quantity with its unit changed, wherever the parse puts
    either. The same quantity converted is another number (but 0, and -40 degrees), so the two cannot
    both hold; a denied value ("not 42 miles") is read by the caller. Only a value that is one amount is
    read (:func:`one_amount`), and never one of another thing ("two tablespoons of salt" is no rival of
    "two cups of hot water"). ``texts`` and ``lemmas``: the atom's text and the context's, and their
    words' lemmas."""
    number = atom.number
    if number is None or any(same(number, fixed) for fixed in (0.0, -40.0)):
        return None
    found = [
        a
        for a in stated
        if same(number, a.number)
        and (another_measure(atom.unit, a.unit) or _other_scales(atom.unit, a.unit))
        and one_amount(a, texts[1])
    ]
    if not found or not one_amount(atom, texts[0]):
        return None
    found = [a for a in found if not of_other_things(atom, a, texts, lemmas)]
    return min(found, key=lambda a: a.sentence != sentence, default=None)


def _of_what(atom: Atom, text: str, lemmas: Lemmas) -> frozenset[str]:
    """The lemmas of the content words of what an amount is of, up to the first function word after them
    ("two cups of hot water for the tea": hot, water; "of apples": apple); none where no "of" follows
    its unit. ``lemmas``: each word's lemma by offset (``Facts.tokens``)."""
    found = _OF.match(text, with_unit(atom, text).end)
    content: list[str] = []
    for word in _LETTER_RUN.finditer(text, *found.span(1)) if found is not None else []:
        written = word.group().casefold()
        if written not in STOPWORDS:
            content.append(lemmas.get(word.start(), (written,))[0])
        elif content:
            break
    return frozenset(content)


def of_other_things(atom: Atom, other: Atom, texts: tuple[str, str], lemmas: tuple[Lemmas, Lemmas]) -> bool:
    """Two amounts are of other things: both say what they are of, and share no word of it ("two
    tablespoons of salt", "two cups of hot water"; "of apples" and "of apple" share one). ``texts`` and
    ``lemmas``: the texts the two are in, and their words' lemmas."""
    one, two = _of_what(atom, texts[0], lemmas[0]), _of_what(other, texts[1], lemmas[1])
    return bool(one) and bool(two) and not one & two


def one_amount(atom: Atom, text: str) -> bool:
    """The value is one amount of its unit: not a rank ("its third week" is not "three days" changed), a
    span after its number, whose ends may be in two units ("45 minutes to an hour", read with the unit
    "hour"; the "to" of "up to 3 weeks" is before it), nor a rate (:func:`._rates.rate`: "40 per week",
    read with the unit "week", counts hours). ``text``: the text the atom is in."""
    number = DIGITS.search(atom.text)
    after = atom.text[number.end() :] if number is not None else ""
    return _ORDINAL.search(atom.text) is None and _SPAN.search(after) is None and rate(text, atom) is None


def another_measure(one: str | None, other: str | None) -> bool:
    """Two units that measure one thing, and not the same one spelled otherwise ("hour" and "minute";
    not "min" and "minute", nor "psi" and a "pounds" read from "pounds per square inch", nor a counted
    noun: "review", "pupil")."""
    measures = (unit(one) if one else None), (unit(other) if other else None)
    return measures[0] != measures[1] and any(set(measures) <= family for family in _MEASURES)


def _other_scales(a: str | None, b: str | None) -> bool:
    """Two temperature scales, both said ("degree c", "degree f"; a bare "degree" names none)."""
    return a is not None and b is not None and a != b and a.startswith("degree ") and b.startswith("degree ")


def same_quantity(a: str | None, b: str | None) -> bool:
    """Units that measure one thing: the same unit, or two temperature scales (the same temperature
    written on another scale, :func:`in_scale`, or another one)."""
    return a == b or _other_scales(a, b)


def in_scale(stated: Atom, atom: Atom) -> bool:
    """``stated``'s temperature is ``atom``'s on another scale, as conversions round it: to the degree
    Celsius, or at an oven's heat (either side from 250°F) as oven charts round it ("180 degrees
    Celsius", 356°F, states "350°F"; "60°F" does not state "60°C", nor a fever's 39°C "100°F")."""
    if stated.number is None or atom.number is None or not _other_scales(stated.unit, atom.unit):
        return False
    mine, theirs = _fahrenheit(atom.number, atom.unit), _fahrenheit(stated.number, stated.unit)
    return abs(mine - theirs) <= (_OVEN_ROUNDING if max(mine, theirs) >= _OVEN else 1.8)


def in_units(stated: Atom, atom: Atom) -> float | None:
    """``stated``'s number in ``atom``'s units: a temperature on the atom's scale, else as written."""
    if stated.number is None or not _other_scales(stated.unit, atom.unit):
        return stated.number
    fahrenheit = _fahrenheit(stated.number, stated.unit)
    return fahrenheit if atom.unit == "degree f" else (fahrenheit - 32) * 5 / 9


def _fahrenheit(value: float, unit: str | None) -> float:
    return value * 9 / 5 + 32 if unit == "degree c" else value


def scaled(atom: Atom) -> str:
    """The atom's words with the temperature scale its unit names where they leave it out ("60" read
    with the "°F" after it: "60°F"; "180 degrees" with "Celsius": "180 degrees Celsius")."""
    scale = _SCALE_NAMES.get(atom.unit or "")
    if scale is None or _SCALE_WRITTEN.search(atom.text):
        return atom.text
    if atom.text[-1].isalpha():
        return f"{atom.text} {scale}"
    return f"{atom.text.removesuffix('°')}°{scale[0]}"


def with_unit(atom: Atom, text: str) -> Atom:
    """The atom with its unit's word put back in its text and span where the recogniser left it out
    ("two tablespoons", not "two", in "two tablespoons: the context says two cups"); a counted noun
    ("three militants") stays out, as the reason names the number."""
    if atom.unit is None or unit(atom.unit) is None:
        return atom
    after = _NEXT_WORD.match(text, atom.end)
    if after is None or unit_spelling(after.group(1)) != atom.unit:
        return atom
    return replace(atom, text=text[atom.start : after.end()], end=after.end())
