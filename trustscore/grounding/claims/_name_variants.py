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


def one_thing(said: list[Token], stated: list[Token], names: frozenset[str]) -> bool:
    """``said`` and ``stated`` name one thing (``names``: the context's names, as :func:`key_text`)."""
    return _spelling(said, stated) or _shared(said, stated) or _abbreviated(said, stated, names)


def _spelling(said: list[Token], stated: list[Token]) -> bool:
    """The same name written otherwise: initials ("US" for "United States", "JFK" for "John F. Kennedy":
    of its words, not its dots) or close letters."""
    one, two = joined(said).casefold(), joined(stated).casefold()
    squeezed = [one.replace(" ", "").replace(".", ""), two.replace(" ", "").replace(".", "")]
    initials = [_initials(said), _initials(stated)]
    return (
        squeezed[0] == squeezed[1]
        or initials[0] == squeezed[1]
        or initials[1] == squeezed[0]
        or SequenceMatcher(None, one, two).ratio() >= 0.8
    )


def _initials(side: list[Token]) -> str | None:
    """A name's initials, of its words and not its dots; None for a name of one word."""
    words = [t.key for t in side if t.key[:1].isalpha()]
    return "".join(w[0] for w in words) if len(words) > 1 else None


def _abbreviated(said: list[Token], stated: list[Token], names: frozenset[str]) -> bool:
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
