"""Two general word tables the checks read: WordNet's direct antonyms and pint's unit words.

- :func:`antonyms`: the words WordNet 3.1 marks as direct antonyms of a word ("increase" /
  "decrease", "early" / "late", "guilty" / "innocent"), of any part of speech or of the ones named.
  The table (data/antonyms.tsv, NOTICE-wordnet.md) is built by scripts/build_claims_tables.py.
  :func:`base_forms` reads a comparative or superlative as its adjective ("later" as "late").
- :func:`unit`: the unit a word names, as pint's default registry names it ("km", "kilometre" and
  "kilometers" are "kilometer"; "%" is "percent"), or None. A word that is also a common English word
  of the grounding stop list ("in", "at", "a") is no unit here: in running text it is that word; nor
  is a single letter ("m" for million, "b" for billion, an initial); a plural is taken off a word of
  two letters or more only ("ms" is the millisecond, "pts" the point, never "m" or "p" plus "s").
  The table (data/units.json, NOTICE-pint.md) is built by scripts/build_claims_tables.py.
  :func:`unit_spelling` writes a value's unit word in that one spelling, so "42 km" and "a 42-kilometre
  route" state one length.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib.resources import files
from itertools import product

from trustscore.grounding._function_words import STOPWORDS

__all__ = ["SPEEDS", "antonyms", "base_forms", "unit", "unit_spelling"]

_DATA = files("trustscore.grounding.claims") / "data"
_PLURAL_ENDINGS = (("s", ""), ("es", "s"), ("es", "x"), ("es", "z"), ("es", "ch"), ("es", "sh"))
"""English plural endings, each with how the word it is taken off ends ("inches", "luxes"; not
"mines" from "min" or "tones" from "ton"; "mass" is no plural of "mas")."""
_COMPARISON_ENDINGS = (("er", ""), ("est", ""), ("er", "e"), ("est", "e"))
"""WordNet's detachment rules for an adjective's comparative and superlative (its morphy)."""


@cache
def _antonym_table() -> dict[str, dict[str, tuple[str, ...]]]:
    """Per part of speech ("a", "v", "r", "n"), each word's direct antonyms. Read on a fresh process's
    first claims check: kept in tuples (a few thousand sets would be a third of its read, and objects
    the garbage collector then tracks)."""
    table: dict[str, dict[str, tuple[str, ...]]] = {}
    for line in (_DATA / "antonyms.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line:
            continue
        one, two, pos = line.split("\t")
        words = table.setdefault(pos, {})
        words[one] = (*words.get(one, ()), two)
        words[two] = (*words.get(two, ()), one)
    return table


def antonyms(word: str, pos: str = "avrn") -> frozenset[str]:
    """WordNet's direct antonyms of ``word`` (a lemma, casefolded) in the parts of speech ``pos``
    names ("a" adjective, "v" verb, "r" adverb, "n" noun)."""
    table = _antonym_table()
    return frozenset().union(*(table.get(p, {}).get(word, ()) for p in pos))


def base_forms(word: str) -> frozenset[str]:
    """The adjectives ``word`` may be the comparative or superlative of, by WordNet's detachment rules
    ("later" -> "late", "longest" -> "long"), kept where the antonym table knows the adjective."""
    table = _antonym_table().get("a", {})
    return frozenset(
        word[: -len(ending)] + base
        for ending, base in _COMPARISON_ENDINGS
        if word.endswith(ending) and word[: -len(ending)] + base in table
    )


@cache
def _unit_table() -> tuple[dict[str, str], dict[str, str]]:
    data = json.loads((_DATA / "units.json").read_text(encoding="utf-8"))
    return data["units"], data["prefixes"]


def unit(word: str, *, letter: bool = False) -> str | None:
    """The unit ``word`` names (its pint name, a prefix's name joined to it: "kilometre" ->
    "kilometer"), or None when it names none. ``letter``: a single letter may name one too (where
    something else marks it as a unit: the square of "m²"). A unit per unit is a rate: "km/h" is
    "kilometer_per_hour", as pint names "kph" (and that name reads as itself)."""
    if (rate := _RATE.match(word)) is not None:
        per = unit(rate.group(1), letter=True), unit(rate.group(2), letter=True)
        return f"{per[0]}_per_{per[1]}" if all(per) else None
    if word.casefold() in STOPWORDS or (len(word) == 1 and word.isalpha() and not letter):
        return None
    units, prefixes = _unit_table()
    found = _plain_unit(word, units)
    if found is not None:
        return found
    for prefix, name in prefixes.items():
        if len(prefix) > 1 and word.casefold().startswith(prefix):
            rest = _plain_unit(word[len(prefix) :], units)
            if rest is not None and len(word) - len(prefix) > 2:
                return name + rest
    return None


SPEEDS = frozenset({"kilometer_per_hour", "mile_per_hour", "meter_per_second", "foot_per_second"})
"""The rates a quantity's words may name as a unit per unit ("10 km/h", "10 miles per hour"), as pint
names them. Only speeds: "256 sunny days per year" counts days, as "256 sunny days a year" does."""
_RATE = re.compile(r"^([^\W\d_]+)(?:/|_per_)([^\W\d_]+)\.?$")
"""A unit per unit, written with a slash ("km/h", "m/s") or as pint names it ("mile_per_hour")."""
_POWER = re.compile(r"(?<=[^\W\d_])[23²³]$")
"""The power a square or cubic unit is written with ("km²", and "km2" as Unicode normalisation writes it)."""
_LENGTHS = frozenset({"millimeter", "centimeter", "meter", "kilometer", "inch", "foot", "yard", "mile"})
"""The units a power makes an area or a volume of (pint's names): "B2" is no square byte."""


def unit_spelling(word: str) -> str:
    """The unit word of a value as pint names it, however it is written ("km", "kilometres" and "km²"
    are "kilometer"; a square or cubic measure is read as its length, as "3.8 square kilometres" is
    parsed), or ``word`` itself where it names no unit ("pupil", "m." closing a sentence: a single
    letter may be a million)."""
    bare = word.removesuffix(".")
    plain = _POWER.sub("", bare)
    if plain == bare:
        return unit(bare) or word
    length = unit(plain, letter=True)
    return length if length in _LENGTHS else word


def _plain_unit(word: str, units: dict[str, str]) -> str | None:
    """A unit written without a prefix, singular or plural ("mile", "miles", "inches")."""
    for form in (word, word.casefold()):
        if form in units:
            return units[form]
    for form, (ending, after) in product((word, word.casefold()), _PLURAL_ENDINGS):
        stem = form[: -len(ending)]
        if form.endswith(ending) and stem.endswith(after) and _plural_stem(stem) and stem in units:
            return units[stem]
    return None


def _plural_stem(stem: str) -> bool:
    """Whether a plural ending may be taken off to leave ``stem``: a word of two letters or more that
    is no common word, as pint reads plurals ("ms" is no plural of "m", "%s" none of "%", "ins" none
    of "in")."""
    return len(stem) > 1 and stem.isalpha() and not stem.endswith("s") and stem.casefold() not in STOPWORDS
