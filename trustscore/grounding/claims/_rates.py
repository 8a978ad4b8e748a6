"""What a value is a rate of: "$57 per hour", "$30 a night", "$5 per car", "$9,884 monthly". Two values
of different rates fill different slots ("$118,610 per year" is no rival of "$9,884 per month", nor
"$8 per child" of "$15 per adult"); a value that names no rate may fill either."""

from __future__ import annotations

import re

from trustscore.grounding.claims._atoms import Atom

__all__ = ["other_rates", "rate"]

_UNIT = r"^\s*(?:[a-z%]+\s+)?"
"""A unit word that may stand between the number and its rate ("7 km per hour")."""
_PER = re.compile(_UNIT + r"(?:per\s+|/\s*)([a-z]+)", re.IGNORECASE)
_A_TIME = re.compile(_UNIT + r"an?\s+(second|minute|hour|day|night|week|month|year)\b", re.IGNORECASE)
_ADVERBS = {
    "hourly": "hour",
    "daily": "day",
    "nightly": "night",
    "weekly": "week",
    "monthly": "month",
    "yearly": "year",
    "annually": "year",
}
_ADVERB = re.compile(_UNIT + r"(" + "|".join(_ADVERBS) + r")\b", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
_SAME = {"annum": "year", "hr": "hour", "yr": "year", "mo": "month", "wk": "week"}
_REACH = 30
"""How many characters after a value its rate is read in."""


def rate(text: str, atom: Atom) -> str | None:
    """What the atom is per, as written in or right after it ("$57 per hour": "hour"), singular."""
    digits = [m.end() for m in _DIGIT.finditer(atom.text)]
    tail = text[atom.start + (digits[-1] if digits else len(atom.text)) : atom.end + _REACH]
    for pattern in (_PER, _A_TIME):
        if found := pattern.search(tail):
            return _singular(found.group(1))
    if found := _ADVERB.search(tail):
        return _ADVERBS[found.group(1).casefold()]
    return None


def other_rates(atom: Atom, text: str, stated: Atom, context: str) -> bool:
    """Both values name what they are per, and not the same thing."""
    mine, theirs = rate(text, atom), rate(context, stated)
    return mine is not None and theirs is not None and mine != theirs


def _singular(word: str) -> str:
    word = word.casefold()
    word = _SAME.get(word, word)
    return word[:-1] if word.endswith("s") and len(word) > 3 and not word.endswith("ss") else word
