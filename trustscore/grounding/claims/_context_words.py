"""The context's words as the copy check reads them (:mod:`._aligned`), cut once per context.

Answers to one context come together (RAGTruth has six a context), and each answer's copy check
would read the whole context again: its words, its names' words, the words it writes capitalised, its
sentences' words and their keys. The cuts are kept in a :class:`._parse_cache.ParseCache` (the last
contexts, bounded by their characters), keyed by the context's text and the parse's sentences and
names, so another pipeline's parse of the same text is cut anew.
"""

from __future__ import annotations

from dataclasses import dataclass

from trustscore.grounding.claims._copies import Side, name_words
from trustscore.grounding.claims._parse_cache import ParseCache
from trustscore.grounding.claims._tokens import (
    FUNCTION_WORDS,
    Token,
    key_text,
    place_spellings,
    tokenize,
    unnumbered,
)

__all__ = ["ContextWords", "context_words"]

_KEPT_CHARS = 1_000_000
"""Characters of context whose cuts are kept (a cut holds a few objects a word): the answers of one
context arrive together, and a few contexts are in flight at once."""


@dataclass(frozen=True)
class ContextWords:
    """What the copy check reads of one context, whatever the answer."""

    whole: str
    """Every word of it, case-folded and joined (a stretch of the answer found in it is stated)."""
    known: frozenset[str]
    """The words of each name the recogniser found, joined, a name each."""
    proper: frozenset[str]
    """The words it writes capitalised inside a sentence and never in lower case."""
    sentences: list[list[Token]]
    """Each sentence's words, list numbers left out."""
    keys: list[list[str]]
    """Each sentence's words as compared (:attr:`Token.key`)."""
    spellings: dict[str, list[Token]]
    """The place codes it spells out (:func:`._tokens.place_spellings`)."""


_kept: ParseCache[ContextWords] = ParseCache(_KEPT_CHARS)


def context_words(context: Side) -> ContextWords:
    """The context's words, cut once for every answer to it; a context longer than
    :data:`_KEPT_CHARS` is cut for each."""
    parse = f"{context.bounds} {context.names}"  # another parse of the text cuts it otherwise
    return _kept.get(parse, context.text, lambda _: _cut(context))


def _cut(context: Side) -> ContextWords:
    every = tokenize(context.text, 0, len(context.text))
    written = [tokenize(context.text, *bounds) for bounds in context.bounds]
    sentences = [unnumbered(sentence, context.text) for sentence in written]
    return ContextWords(
        whole=key_text(every),
        known=frozenset(key_text(name_words(tokenize(context.text, *span))) for span in context.names),
        proper=_proper_words(written, every),
        sentences=sentences,
        keys=[[t.key for t in sentence] for sentence in sentences],
        spellings=place_spellings(context.text),
    )


def _proper_words(sentences: list[list[Token]], every: list[Token]) -> frozenset[str]:
    """The words the context writes capitalised inside a sentence and never in lower case: its names'
    words, whether or not the recogniser found the name ("Put" after "350 F." or "Place" after "2." is
    written "put" and "place" elsewhere: no name). A changed stretch is a name by them only where both
    its words and the context's are such words."""
    capitalised: set[str] = set()
    for sentence in sentences:
        words = [t for t in sentence if t.text[0].isalpha()]
        capitalised.update(t.key for t in words[1:] if t.text[0].isupper() and t.key not in FUNCTION_WORDS)
    return frozenset(capitalised - {t.key for t in every if t.text[0].islower()})
