"""What a value measures or counts, as the parse gives it: the unit word of a quantity ("140 metres",
"500 watt-hours"), the noun a count counts ("42,000 books"), a temperature's scale ("350°F", "150
degrees Celsius"), each in one spelling (:func:`measure`), so that two atoms of one unit compare alike
however each text writes it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trustscore.grounding.claims._lexicon import SPEEDS, unit, unit_spelling
from trustscore.grounding.claims._subjects import noun_lemma
from trustscore.grounding.claims._syntax import bound_after
from trustscore.grounding.claims._values import NUMBER_WORDS, parse_number

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

__all__ = ["counted", "half_in_a_name", "measure", "quantity_unit", "rate_after", "temperature_scale"]

_TEMPERATURE = frozenset({"°", "°f", "°c", "f", "c", "degree", "fahrenheit", "celsius"})
"""The spellings of a temperature's unit ("350 F", "350°F", "325 degrees F", "150 degrees
Fahrenheit"), all read as "degree" with the scale the value's words or the words after it name:
"degree f", "degree c", or "degree" where they name none (:func:`measure`)."""
_SCALES = {"f": "f", "fahrenheit": "f", "c": "c", "celsius": "c"}
_DEGREE_WORDS = frozenset({"°", "degree", "degrees"})
_NAME_POS = frozenset({"NOUN", "PROPN", "ADJ"})
"""The words of a compound name between a "half" and the noun it names ("half sheet pans")."""


def half_in_a_name(token: Token) -> bool:
    """Whether ``token`` is a "half" that names a kind of the thing after it, not a number of it: "half
    sheet pans" are pans of a size, "a half marathon" is a race ("2 half sheet pans" counts 2 pans). Half
    of a unit ("a half hour") or of a number ("a half dozen") stays a number, as does half of a thing
    ("half the target", "half of them")."""
    head = token.head
    return (
        token.lower_ == "half"
        and token.dep_ in ("amod", "compound", "nummod")
        and head.i > token.i
        and head.pos_ in ("NOUN", "PROPN")
        and all(t.pos_ in _NAME_POS or t.text == "-" for t in token.doc[token.i + 1 : head.i])
        and head.lower_ not in NUMBER_WORDS
        and unit(head.text) is None
        and unit(head.lemma_) is None
    )


def rate_after(token: Token) -> str | None:
    """The speed ``token`` opens with the unit after it, written with a slash ("km" of "10 km/h", which
    the parse splits into three words) or "per" ("miles per hour"), as "km/h" and "miles/hour"; None
    where the two name no speed (:data:`._lexicon.SPEEDS`: "days per year" stays a count of days)."""
    doc = token.doc
    if token.i + 2 >= len(doc):
        return None
    link = doc[token.i + 1]
    slash = link.text == "/" and not token.whitespace_ and not link.whitespace_
    if not slash and link.lower_ != "per":
        return None
    written = f"{token.text}/{doc[token.i + 2].text}".casefold()
    return written if unit(written) in SPEEDS else None


def quantity_unit(tokens: list[Token]) -> str | None:
    """A quantity's last word's lemma, before a bound after it ("140 metres": "metre"; "18 or older"), with
    the unit a hyphen joins it to ("500 watt-hours": "watt-hour", no count of hours); a speed with its
    second unit ("10 km/h": "km/h"; "10 miles per hour": "miles/hour")."""
    rates = [r for t in tokens if (r := rate_after(t)) is not None]
    if rates:
        return rates[0].removesuffix(".")
    bound = next((i for i, t in enumerate(tokens) if t.like_num and bound_after(t) is not None), len(tokens))
    words = [t for t in tokens[: bound + 1] if t.is_alpha and parse_number([t.text]) is None]
    if not words:
        return None
    last, doc = words[-1], words[-1].doc
    first = doc[last.i - 2] if last.i > 1 else None
    joined = (
        first is not None
        and doc[last.i - 1].text == "-"
        and first in words  # a word, not the value ("second-quarter")
        and not first.whitespace_
        and unit(last.lemma_) is not None  # a unit ("watt-hours"), not "2-year-old"
    )
    return f"{first.lemma_}-{last.lemma_}".casefold() if joined and first else last.lemma_.casefold()


def temperature_scale(ent: Span) -> bool:
    """A "name" that is a temperature's scale after its value ("350 F", "150 degrees Fahrenheit"): part
    of the value's unit (:func:`measure`), not a name of its own."""
    before = ent.doc[ent.start - 1] if ent.start > 0 else None
    return (
        before is not None
        and (before.like_num or before.lower_ in _DEGREE_WORDS)
        and all(_bare(t.lower_) in _SCALES for t in ent)
    )


def _bare(word: str) -> str:
    """A unit word without a degree sign before it or a sentence's full stop after it ("°F", "C.")."""
    return word.removesuffix(".").lstrip("°")


def measure(unit: str | None, value: list[Token]) -> str | None:
    """A unit in one spelling: a temperature's as "degree" and its scale (:data:`_TEMPERATURE`), read
    on the value's words ("212°F", "100 degrees Celsius" as one entity) and the words after it; any
    other as pint names it (:func:`._lexicon.unit_spelling`: "km" and "kilometres" alike)."""
    if unit is not None and _bare(unit) in _SCALES:
        return f"degree {_SCALES[_bare(unit)]}"
    last = value[-1]
    words = [t for t in value if not t.like_num] + list(last.doc[last.i + 1 : last.i + 4])
    if unit is None and not any(t.text.startswith("°") for t in words[:2]):
        return None
    if unit is not None and unit not in _TEMPERATURE and _bare(unit) not in _TEMPERATURE:
        return unit_spelling(unit)
    for word in words:
        if (scale := _SCALES.get(_bare(word.lower_))) is not None:
            return f"degree {scale}"
        if word.lower_ not in _DEGREE_WORDS:
            break
    return "degree"


def counted(token: Token) -> str | None:
    """The noun a number counts ("42,000 books" -> "book"; "three of the attackers" -> "attacker"; the
    4 of "23 shops in the UK and 4 in Ireland" -> "shop"), when the parse attaches it so."""
    if token.dep_ == "nummod" and token.head.pos_ in ("NOUN", "PROPN"):
        return noun_lemma(token.head)
    counts = any(c.dep_ == "nummod" and c.i < token.head.i for c in token.head.children)  # not "steps 7"
    if token.dep_ == "conj" and token.head.pos_ == "NOUN" and counts:
        return noun_lemma(token.head)  # "23 shops in the UK and 4 in Ireland": 4 shops
    after = token.doc[token.i + 1 : token.i + 5]
    if len(after) == 4 and after[0].lower_ == "out" and after[1].lower_ == "of" and after[3].pos_ == "NOUN":
        return after[3].lemma_.casefold()  # "4.5 out of 5 stars": a value on a scale of stars
    for prep in token.children:
        if prep.dep_ == "prep" and prep.lower_ == "of":
            noun = next((c for c in prep.children if c.dep_ == "pobj" and c.pos_ == "NOUN"), None)
            if noun is not None and noun.tag_ in ("NNS", "NNPS"):
                return noun_lemma(noun)
    return None
