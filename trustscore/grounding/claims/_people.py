"""Which of a text's names may be one person's: the words a name is matched by, and the rule that two
mentions name the same person when the words of one, a title included, are all words of the other
("Richard" and "Martin Richard"; "Mr Smith" is not "Mary Smith", nor "John Smith Jr." "John Smith Sr.").
:mod:`._ages` and :mod:`._titles` read a person's age and role by it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

__all__ = ["one_of", "one_person", "person_words"]

_TITLES = frozenset({"mr", "mrs", "ms", "miss", "dr", "sir", "dame"})


def one_of(one: frozenset[str], other: frozenset[str]) -> bool:
    """Two names that may be one person's: the words of one are all words of the other."""
    return one <= other or other <= one


def one_person(names: list[frozenset[str]]) -> bool:
    """The names are all one person's: each is part of the longest."""
    if not names:
        return False
    longest = max(names, key=len)
    return all(n <= longest for n in names)


def person_words(doc: Doc, ent: Span, *, skip: frozenset[int] = frozenset()) -> frozenset[str]:
    """The words of a person's name: its words ("Jr." and "Sr." included, not the tokens ``skip``
    names) and a title before it."""
    words = {_bare(t) for t in ent if t.i not in skip and _bare(t).isalpha()}
    if ent.start > 0 and _bare(doc[ent.start - 1]) in _TITLES:
        words.add(_bare(doc[ent.start - 1]))
    return frozenset(words)


def _bare(token: Token) -> str:
    return token.lower_.rstrip(".")
