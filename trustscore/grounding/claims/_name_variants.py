"""Whether a name in a copied sentence and the context's name in its place are one thing named two
ways: spelled otherwise ("Calfornia"), one the initials of the other ("US", "United States"), the two
ending in the same word ("Kim Clark", "Mrs Clark"), or one the initials of a longer name the context
gives and the other part of it ("ISU", "Illinois State" beside "Illinois State University").
:mod:`._copies` reads no change between such names."""

from __future__ import annotations

from difflib import SequenceMatcher

from trustscore.grounding._places import place_level
from trustscore.grounding.claims._tokens import Token, joined, key_text, words_only

__all__ = ["one_thing"]


def one_thing(said: list[Token], stated: list[Token], names: set[str]) -> bool:
    """``said`` and ``stated`` name one thing (``names``: the context's names, as :func:`key_text`)."""
    return _spelling(said, stated) or _shared(said, stated) or _abbreviated(said, stated, names)


def _spelling(said: list[Token], stated: list[Token]) -> bool:
    """The same name written otherwise: initials ("US" for "United States") or close letters."""
    one, two = joined(said).casefold(), joined(stated).casefold()
    initials = {"".join(t.key[0] for t in side) for side in (said, stated) if len(side) > 1}
    squeezed = {one.replace(" ", "").replace(".", ""), two.replace(" ", "").replace(".", "")}
    return len(squeezed) == 1 or bool(initials & squeezed) or SequenceMatcher(None, one, two).ratio() >= 0.8


def _abbreviated(said: list[Token], stated: list[Token], names: set[str]) -> bool:
    """One name is the initials of a name the context gives, and the other is two or more words of
    that name: "ISU" and "Illinois State" where the context names "Illinois State University". One
    word says less ("Welsh coaches" are not "WRU coaches"), and a country or a state is another thing
    ("United Kingdom" is not "UKIP", the United Kingdom Independence Party)."""
    for short, long in ((said, stated), (stated, said)):
        letters = "".join(c for c in joined(short).casefold() if c.isalpha())
        words = words_only(long)
        if len(letters) < 2 or len(words) < 2 or place_level(joined(words)) is not None:
            continue
        part = key_text(words)
        if any(part in name and "".join(w[0] for w in name.split()) == letters for name in names):
            return True
    return False


def _shared(said: list[Token], stated: list[Token]) -> bool:
    """Two names that end in the same word are one entity's variants ("Kim Clark", "Mrs Clark")."""
    return said[-1].key == stated[-1].key
