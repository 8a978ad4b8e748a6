"""The words that make a number a percentage: "42%", "6 per cent", "42 percentage chance of rain".

:mod:`._atoms` reads an entity of the recogniser as a percentage by these words, and reads one the
recogniser left out ("nearly five per cent of them", which it tags as no entity at all, while it calls
the same words in an answer an amount of money).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

__all__ = ["PERCENT_WORDS", "missed_percent", "names_percent", "percent_after"]

PERCENT_WORDS = frozenset({"%", "percent", "cent", "pct"})
"""Words that make a number a percentage ("per cent" by its "cent": "per" alone opens a rate, "miles per
hour")."""
_PERCENT_AFTER = frozenset({"percent", "percentage"})
"""A word after a bare number that makes it a percentage ("42 percentage chance of rain")."""
_SIGNS = frozenset({"%", "percent", "pct"})


def names_percent(tokens: list[Token]) -> bool:
    """Whether an amount is a percentage by its words: the recogniser calls "6 per cent" money, by its
    "cent", and "50 cents" or "1 cent" are money indeed."""
    return any(t.lower_ in _SIGNS or _per_cent(t) for t in tokens)


def percent_after(ent: Span) -> bool:
    """Whether "percent" or "percentage" follows the number, not as "percentage points" (another unit)."""
    after = ent.doc[ent.end : ent.end + 2]
    return (
        len(after) > 0
        and after[0].lower_ in _PERCENT_AFTER
        and not (len(after) > 1 and after[1].lower_ in ("point", "points"))
    )


def missed_percent(token: Token) -> Span | None:
    """The percentage a number token opens where the recogniser left it out ("five per cent", "5 %"),
    in digits or words; None where no percentage sign or "per cent" follows it."""
    doc = token.doc
    if not token.like_num or token.i + 1 >= len(doc):
        return None
    after = doc[token.i + 1]
    if after.lower_ in _SIGNS:
        return doc[token.i : token.i + 2]
    if token.i + 2 < len(doc) and after.lower_ == "per" and _per_cent(doc[token.i + 2]):
        return doc[token.i : token.i + 3]
    return None


def _per_cent(token: Token) -> bool:
    return token.lower_ == "cent" and token.i > 0 and token.doc[token.i - 1].lower_ == "per"
