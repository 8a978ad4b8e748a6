"""The spaCy English pipeline the claims check parses with: loaded once per process and package
name, and called under a lock (one pipeline object is not meant to parse from several threads at once).

One spaCy call is C work no budget check reaches (20,000 characters took 6.5 s on a loaded 2-core
box), so a long text is parsed in pieces of at most :data:`PIECE_CHARS` characters and
:data:`PIECE_TOKENS` tokens, cut at a line or sentence end, with the budget checked between them; the
pieces' docs are joined into one doc of the whole text. A text within one piece is parsed whole, as
before. The token bound is for text that is nearly all punctuation (``([([``, nested brackets): each
character is a token there, and one 5,000-token sentence took 12 to 21 s to parse on a loaded box,
where 5,000 characters of prose (about 1,100 tokens) take under one second.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

from trustscore.compute._deadline import checkpoint
from trustscore.grounding.claims._config import DEFAULT_PIPELINES

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = ["PIECE_CHARS", "PIECE_TOKENS", "Pipeline", "find_pipeline", "pieces"]

PIECE_CHARS = 5_000
"""The most characters one spaCy call parses (a budget check comes between two calls)."""
PIECE_TOKENS = 1_500
"""The most tokens one spaCy call parses, counted as spaCy's tokenizer at least splits them (a word,
or one punctuation character): above what 5,000 characters of prose make, so prose pieces are cut
by characters as before."""

_TOKEN = re.compile(r"\w+|[^\w\s]")


def find_pipeline(name: str | None) -> str:
    """The package name of the pipeline to load: ``name``, else the first installed default.

    Raises ImportError (the signal is then missing with an install hint) when spaCy or the pipeline
    is not installed.
    """
    import spacy.util  # noqa: F401  (ImportError here: spaCy itself is missing)

    candidates = (name,) if name else DEFAULT_PIPELINES
    for candidate in candidates:
        try:
            version(candidate.replace("_", "-"))
        except PackageNotFoundError:
            continue
        return candidate
    raise ImportError(f"no spaCy English pipeline installed (looked for {', '.join(candidates)})")


class Pipeline:
    """One loaded spaCy pipeline, parsing under a lock."""

    def __init__(self, package: str) -> None:
        self.package = package
        self.release = f"{package}=={version(package.replace('_', '-'))}"
        self._nlp = _load(package)
        self._lock = threading.Lock()

    def parse(self, text: str) -> Doc:
        """The doc of ``text``; a long text is parsed a piece at a time, checking the budget between."""
        parts = pieces(text)
        if len(parts) == 1:
            with self._lock:
                return self._nlp(text)
        docs = []
        for part in parts:
            checkpoint()
            with self._lock:
                docs.append(self._nlp(part))
        from spacy.tokens import Doc

        return Doc.from_docs(docs, ensure_whitespace=False)


def pieces(text: str, limit: int = PIECE_CHARS, max_tokens: int = PIECE_TOKENS) -> list[str]:
    """``text`` cut into consecutive pieces of at most ``limit`` characters and ``max_tokens`` tokens
    (joined, they are ``text``), each ending after a line break, else a sentence end, else a space,
    when one lies in the piece's second half."""
    out: list[str] = []
    start = 0
    while (end := _window_end(text, start, limit, max_tokens)) < len(text):
        window = text[start:end]
        cut = len(window)
        for delimiter in ("\n", ". ", " "):
            at = window.rfind(delimiter)
            if at >= len(window) // 2:
                cut = at + len(delimiter)
                break
        out.append(text[start : start + cut])
        start += cut
    out.append(text[start:])
    return out


def _window_end(text: str, start: int, limit: int, max_tokens: int) -> int:
    """Where a piece from ``start`` must end at the latest: ``limit`` characters on, or before its
    token number ``max_tokens + 1``, whichever comes first."""
    end = min(len(text), start + limit)
    for i, token in enumerate(_TOKEN.finditer(text, start, end)):
        if i == max_tokens:
            return token.start()
    return end


@lru_cache(maxsize=4)
def _load(package: str) -> Language:
    import spacy

    return spacy.load(package)
