"""Is the response in the language of its context? The word-matching grounding signals (lexical,
claims) and the English sentence embedder compare words and sentences across the two texts: a correct
answer in German to an English context matches nothing, which reads as "unsupported" when it is in
fact unchecked. Such a sample is missing for these signals, with the two languages as the reason.

Language identification is py3langid (a Naive Bayes model over byte n-grams, bundled in its wheel:
no download), installed with the ``claims`` extra; without it no sample is turned away here. Short
texts are not judged: below :data:`MIN_WORDS` words an answer ("2011.", "Yes, Clara Voss.") carries
too little text to tell its language, and an English short answer must never be dropped.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

__all__ = ["MIN_CONFIDENCE", "MIN_WORDS", "language_mismatch"]

MIN_WORDS = 4
"""Alphabetic words a response needs before its language is judged."""

MIN_CONFIDENCE = 0.9
"""Probability the identifier must give both texts' languages before they are called different."""

_ALPHA_WORD = re.compile(r"[^\W\d_]{2,}")
_CONTEXT_CHARS = 2000
"""The context's language is read from its first characters (enough for a stable answer, and cheap)."""


@lru_cache(maxsize=1)
def _identifier() -> Any | None:
    try:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier
    except ImportError:
        return None
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def available() -> bool:
    """Whether language identification is installed (the ``claims`` extra)."""
    return _identifier() is not None


@lru_cache(maxsize=4096)
def _language(text: str) -> tuple[str, float]:
    identifier = _identifier()
    assert identifier is not None
    lang, prob = identifier.classify(text)
    return str(lang), float(prob)


def language_mismatch(response: str, context: str) -> str | None:
    """Why ``response`` cannot be checked word by word against ``context`` (they are in different
    languages), or None when they share one, either is too short to tell, or py3langid is absent."""
    if _identifier() is None or len(_ALPHA_WORD.findall(response)) < MIN_WORDS:
        return None
    if len(_ALPHA_WORD.findall(context)) < MIN_WORDS:
        return None
    said, said_p = _language(response)
    given, given_p = _language(context[:_CONTEXT_CHARS])
    if said == given or said_p < MIN_CONFIDENCE or given_p < MIN_CONFIDENCE:
        return None
    return (
        f"other language: the response is in {said!r} and the context in {given!r} (py3langid); words "
        "cannot be matched across languages, so this signal does not check it (a judge can)"
    )
