"""The spaCy English pipeline the claims check parses with: loaded once per process and package
name, and called under a lock (one pipeline object is not meant to parse from several threads at once).
"""

from __future__ import annotations

import threading
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

from trustscore.grounding.claims.config import DEFAULT_PIPELINES

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = ["Pipeline", "find_pipeline"]


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
        with self._lock:
            return self._nlp(text)


@lru_cache(maxsize=4)
def _load(package: str) -> Language:
    import spacy

    return spacy.load(package)
