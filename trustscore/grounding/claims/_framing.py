"""Prepositional phrases that frame a clause rather than complete it: a phrase linking the sentence to
the one before, the clause's named source, or its cause. Their nouns are no arguments of the predicate
(:func:`._syntax.clauses` leaves them out)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Token

__all__ = ["frames"]

_LINKING_PHRASES = frozenset(
    {
        "as a result",
        "at the same time",
        "by contrast",
        "for example",
        "for instance",
        "in addition",
        "in comparison",
        "in conclusion",
        "in contrast",
        "in fact",
        "in general",
        "in other words",
        "in particular",
        "in short",
        "in summary",
        "in the end",
        "on the contrary",
        "on the other hand",
        "on the whole",
    }
)
"""Prepositional phrases that link a sentence to the one before ("On the other hand, ATVs are more
demanding"): they say nothing of the predicate, so their nouns are no arguments of it."""
_SOURCE_PREPOSITIONS = frozenset({"according", "based"})
"""Heads of a phrase naming where a clause comes from ("according to the passages", "based on the
information provided"): the source, not what the clause says of its subject."""
_REASON_PREPOSITIONS = frozenset({"because", "due", "owing"})
"""Heads of a phrase giving a clause's cause ("closed due to flooding"): why, not where or when it holds."""


def frames(argument: Token) -> bool:
    """Whether a prepositional phrase frames the clause rather than completes it: a linking phrase,
    the clause's named source or its cause."""
    if argument.dep_ != "prep":
        return False
    if argument.lower_ in _SOURCE_PREPOSITIONS | _REASON_PREPOSITIONS:
        return True
    return " ".join(t.lower_ for t in argument.subtree) in _LINKING_PHRASES
