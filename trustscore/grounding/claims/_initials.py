"""Whether a name is stated by its initials in capitals, or states them: "NY / SF / LA" in a context
states "New York, San Francisco and Los Angeles", and "United Nations" states "UN"
(:mod:`trustscore.grounding._initials`). A name's initials are those of its capitalised words
("University of California" is "UC", never "UCLA")."""

from __future__ import annotations

from collections.abc import Iterable

from trustscore.grounding._initials import capital_words, initials
from trustscore.grounding.claims._atoms import Atom

__all__ = ["stated_by_initials"]


def stated_by_initials(name: Atom, capitals: frozenset[str], names: Iterable[Atom]) -> bool:
    """A name of two or more words whose initials are one of ``capitals`` (a text's
    :func:`~trustscore.grounding._initials.capital_words`), or a name written as capitals that are the
    initials of one of ``names``."""
    if len(name.words) >= 2:
        return initials(name.words) in capitals
    written = name.words[0].upper() if name.words else ""
    if written not in capital_words(name.text):
        return False
    return any(a.kind == "name" and len(a.words) >= 2 and initials(a.words) == written for a in names)
