"""Whether a name is stated by its initials in capitals, or states them: "NY / SF / LA" in a context
states "New York, San Francisco and Los Angeles", and "United Nations" states "UN"
(:mod:`trustscore.grounding._initials`). A name's initials are those of its capitalised words
("University of California" is "UC", never "UCLA"). A person goes by three initials or more ("JFK"):
two are most often something else's ("US" states no "Ulrich Schmidt")."""

from __future__ import annotations

import re
from collections.abc import Iterable

from trustscore.grounding._initials import capital_words, initials
from trustscore.grounding.claims._atoms import Atom

__all__ = ["stated_by_initials"]

_LETTERS = re.compile(r"[^\W\d_]+")
_PERSON_INITIALS = 3
"""The fewest initials a person's name is read from."""


def stated_by_initials(name: Atom, capitals: frozenset[str], names: Iterable[Atom]) -> bool:
    """A name of two or more words whose initials are one of ``capitals`` (a text's
    :func:`~trustscore.grounding._initials.capital_words`), or a name written as capitals that are the
    initials of one of ``names``."""
    own = _initials_of(name)
    if len(own) >= 2:
        return own in capitals and _initialled(name, own)
    written = name.words[0].upper() if len(name.words) == 1 else ""
    if written not in capital_words(name.text):
        return False
    return any(a.kind == "name" and _initials_of(a) == written and _initialled(a, written) for a in names)


def _initials_of(name: Atom) -> str:
    """The initials of a name of two words or more: of its capitalised words where it has any, a letter
    written alone among them ("John F. Kennedy": "JFK"); "" for a name of one word."""
    words = [w for w in _LETTERS.findall(name.text) if w.casefold() != "the"]
    capitalised = [w for w in words if not w.islower()] or words
    return initials(capitalised) if len(capitalised) >= 2 else ""


def _initialled(name: Atom, letters: str) -> bool:
    """Whether these initials may stand for the name."""
    return name.group != "person" or len(letters) >= _PERSON_INITIALS
