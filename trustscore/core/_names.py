"""Did-you-mean for a mistyped name: a sample field in a JSONL row, an argument of ``score()``, a
config setting. One rule for all of them: a name other tools give the thing, else the closest known
name (difflib, ratio at least 0.8)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

__all__ = ["SAMPLE_FIELD_ALIASES", "closest_name"]

SAMPLE_FIELD_ALIASES: Mapping[str, str] = {
    "answer": "response",
    "output": "response",
    "actual_output": "response",
    "generation": "response",
    "query": "question",
    "prompt": "question",
    "input": "question",
    "user_input": "question",
    "passages": "context",
    "documents": "context",
    "retrieved": "context",
    "retrieved_contexts": "context",
    "retrieval_context": "context",
}
"""Names other tools (Ragas, DeepEval, ...) give trustscore's sample fields."""


def closest_name(name: str, known: Iterable[str], aliases: Mapping[str, str] | None = None) -> str | None:
    """The known name ``name`` was probably meant to be: its alias when it has one among ``known``,
    else the closest spelling; None when none is close (or ``name`` is known)."""
    known = list(known)
    if name in known:
        return None
    lowered = name.lower()
    guess = (aliases or {}).get(lowered)
    if guess in known:
        return guess
    close = difflib.get_close_matches(lowered, known, n=1, cutoff=0.8)
    return close[0] if close else None
