"""One spelling per character before text is compared, with a map back to the original offsets.

Lexical comparison (and any claim matching built on it) sees text only through :func:`normalize`:

* **NFKC**: compatibility forms fold to their plain form (fullwidth ``１９９８`` -> ``1998``, the
  ligature ``ﬁ`` -> ``fi``, a superscript ``²`` -> ``2``) and a letter with a combining accent composes
  to the precomposed letter (``e`` + U+0301 -> ``é``);
* **invisible format characters are removed**: zero-width space / joiners, word joiner, byte-order
  mark, soft hyphen and the bidirectional controls (Unicode category ``Cf``), so ``19\\u200b98``
  reads ``1998`` and an RLO override cannot hide a word;
* **confusables inside a Latin word**: a letter of another script that Unicode lists as
  confusable with a Latin letter (Cyrillic ``о``, Greek ``ο``) is read as that letter when it sits in
  a word that also holds Latin letters. A word written wholly in another script is left alone, so
  Russian or Greek text is compared as itself. The table is Unicode's confusables data as shipped
  by the ``confusable-homoglyphs`` package.

:class:`Normalized` keeps, for each character of the normalised text, the span of the original
text it came from, so a span found in the normalised text is reported in the original
(:meth:`Normalized.original_span`). Only the non-ASCII stretches that need it are folded one
character at a time; the rest is copied and mapped by whole runs, so a long, mostly clean context
costs a few passes at C speed and a map of a few entries.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right
from dataclasses import dataclass
from functools import cache

import regex

from trustscore.compute._deadline import checkpoint

__all__ = ["Normalized", "normalize"]

_NON_ASCII_RUN = regex.compile(r"[^\x00-\x7f]+")
_FORMAT = regex.compile(r"\p{Cf}")


@dataclass(frozen=True)
class Normalized:
    """Normalised text and the map back to the original: piece ``i`` covers ``text`` from
    ``_starts[i]`` up to the next piece, and came from ``original[_from[i]:_to[i]]``; a piece copied
    as it was (``_copied[i]``) maps character by character, a folded one maps every character to its
    whole source (a ligature's ``f`` and ``i`` both point at ``ﬁ``)."""

    text: str
    original_length: int
    _starts: tuple[int, ...]
    _from: tuple[int, ...]
    _to: tuple[int, ...]
    _copied: tuple[bool, ...]

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original text that ``text[start:end]`` came from (an empty span maps to a
        point)."""
        if start >= len(self.text):
            return self.original_length, self.original_length
        first = self._source(start)
        if end <= start:
            return first[0], first[0]
        return first[0], self._source(end - 1)[1]

    def _source(self, i: int) -> tuple[int, int]:
        k = bisect_right(self._starts, i) - 1
        if self._copied[k]:
            at = self._from[k] + (i - self._starts[k])
            return at, at + 1
        return self._from[k], self._to[k]


class _Builder:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.starts: list[int] = []
        self.sources: list[tuple[int, int]] = []
        self.copied: list[bool] = []

    def copy(self, text: str, start: int, end: int) -> None:
        if end <= start:
            return
        if self.copied and self.copied[-1] and self.sources[-1][1] == start:
            self.sources[-1] = (self.sources[-1][0], end)  # extends the run before it
        else:
            self.starts.append(self.length)
            self.sources.append((start, end))
            self.copied.append(True)
        self.parts.append(text[start:end])
        self.length += end - start

    def fold(self, folded: str, start: int, end: int) -> None:
        if not folded:
            return
        self.starts.append(self.length)
        self.sources.append((start, end))
        self.copied.append(False)
        self.parts.append(folded)
        self.length += len(folded)


def normalize(text: str) -> Normalized:
    """``text`` in the one spelling the comparisons use (see the module), with its offset map."""
    out = _Builder()
    for start, end in _blocks(text):
        checkpoint()  # the score budget can stop a huge text between blocks
        if _clean(text[start:end]):
            out.copy(text, start, end)
        else:
            _fold_block(text, start, end, out)
    normal = _latin_lookalikes("".join(out.parts))
    if not out.starts:
        out.starts, out.sources, out.copied = [0], [(0, 0)], [True]
    return Normalized(
        normal,
        len(text),
        tuple(out.starts),
        tuple(a for a, _ in out.sources),
        tuple(b for _, b in out.sources),
        tuple(out.copied),
    )


_BLOCK = 2**16


def _blocks(text: str) -> list[tuple[int, int]]:
    """Spans of about :data:`_BLOCK` characters, each ending before an ASCII character (where no
    NFKC composition reaches across)."""
    spans: list[tuple[int, int]] = []
    start = 0
    while start < len(text):
        end = min(len(text), start + _BLOCK)
        while end < len(text) and not (text[end].isascii() and text[end - 1].isascii()):
            end += 1
        spans.append((start, end))
        start = end
    return spans


def _clean(stretch: str) -> bool:
    """Whether NFKC and the removal of format characters leave ``stretch`` as it is."""
    return stretch.isascii() or (
        unicodedata.is_normalized("NFKC", stretch) and _FORMAT.search(stretch) is None
    )


def _fold_block(text: str, start: int, end: int, out: _Builder) -> None:
    """Fold ``text[start:end]`` run by run of non-ASCII characters (each with the character before
    it: the base a combining mark composes with)."""
    done = start
    for run in _NON_ASCII_RUN.finditer(text, start, end):
        a, b = max(done, run.start() - 1), run.end()
        out.copy(text, done, a)
        if _clean(text[a:b]):
            out.copy(text, a, b)
        else:
            for x, y in _segments(text, a, b):
                folded = _FORMAT.sub("", unicodedata.normalize("NFKC", text[x:y]))
                if folded == text[x:y]:
                    out.copy(text, x, y)
                else:
                    out.fold(folded, x, y)
        done = b
    out.copy(text, done, end)


def _segments(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Spans of ``text[start:end]`` that NFKC may fold independently: a starter and the combining
    marks after it (Hangul conjoining jamo stay with the syllable they build)."""
    spans: list[tuple[int, int]] = []
    begin = start
    for i in range(start + 1, end):
        ch = text[i]
        if unicodedata.combining(ch) == 0 and not _is_conjoining_jamo(ch):
            spans.append((begin, i))
            begin = i
    if end > start:
        spans.append((begin, end))
    return spans


def _is_conjoining_jamo(ch: str) -> bool:
    return "\u1160" <= ch <= "\u11ff" or "\ud7b0" <= ch <= "\ud7ff"


def _latin_lookalikes(text: str) -> str:
    """``text`` with each letter of another script that looks like a Latin letter read as that
    letter, in the words that also hold Latin letters (one character for one: offsets stay)."""
    if text.isascii():
        return text
    table = _latin_table()
    return _MIXED_WORD.sub(lambda word: word.group().translate(table), text)


_MIXED_WORD = regex.compile(
    r"(?<![\p{L}\p{M}])(?=[\p{L}\p{M}]*[A-Za-z])[\p{L}\p{M}]*[^\x00-\x7f][\p{L}\p{M}]*"
)
"""A word holding an ASCII letter and a non-ASCII one (whether a lookalike: :func:`_latin_table`)."""


def _has_latin(word: str) -> bool:
    return any(ch.isascii() or unicodedata.name(ch, "").startswith("LATIN ") for ch in word)


@cache
def _latin_table() -> dict[int, str]:
    """Non-Latin letter -> the Latin letter Unicode lists it as confusable with (one letter each)."""
    from confusable_homoglyphs.confusables import confusables_data  # type: ignore[import-untyped]

    table: dict[int, str] = {}
    for ch, glyphs in confusables_data.items():
        if len(ch) != 1 or not ch.isalpha() or _has_latin(ch):
            continue
        latin = [g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii() and g["c"].isalpha()]
        if latin:
            table[ord(ch)] = latin[0]
    return table
