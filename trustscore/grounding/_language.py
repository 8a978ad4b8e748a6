"""Is the response in the language of its context? The word-matching grounding signals (lexical,
claims) and the English sentence embedder compare words and sentences across the two texts: a correct
answer in German to an English context matches nothing, which reads as "unsupported" when it is in
fact unchecked. Such a sample is missing for these signals, with the two languages as the reason.

Language identification is py3langid (a Naive Bayes model over byte n-grams, bundled in its wheel:
no download), installed with the ``claims`` extra; without it no sample is turned away here. Short
texts are not judged: below :data:`MIN_WORDS` words that do not start with a capital (names say
nothing of the language), an answer ("2011.", "Yes, Clara Voss.", "Baltasar Corrada del Río died in
2007.") carries too little text to tell its language, and an English short answer must never be dropped.

The identifier takes a second to load (its model is decompressed), so it is loaded only when a sample
needs it: when the response and the context are both plainly English (:func:`clearly_english`: enough
of English's own function words) they share a language without asking it; any other pair goes to the
identifier as before (docs/signals.md says how many corpus rows each way, with the same answers).
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

from trustscore.compute._deadline import clock_stopped

__all__ = ["ENGLISH_MARKERS", "MIN_CONFIDENCE", "MIN_WORDS", "clearly_english", "language_mismatch"]

MIN_WORDS = 4
"""Words not starting with a capital a response needs before its language is judged."""

MIN_CONFIDENCE = 0.9
"""Probability the identifier must give the context's language before it is trusted."""

MAX_SHARED = 0.01
"""A response is in another language when the identifier gives the context's language at most this
probability: names and numbers spread the mass over similar languages ("Según el texto ... Laura
Fischer": Spanish at 0.89, English at 0.00), so the test is how unlikely the context's language is,
not how sure the response's own language is."""

_MARKER_TEXT = (
    "the and that with which from have had been would could should their they there these those what "
    "when where who not but its were this it are than into about after does did such"
)
ENGLISH_MARKERS = frozenset(_MARKER_TEXT.split())
"""English function words that are not common words of another language written in Latin script
("is", "was", "of", "in", "to", "die", "also", "will", "has", "be", "by", "on", "as" are: Dutch,
German, Polish, Spanish, Hungarian, the Scandinavian languages, French or Portuguese have them)."""

MIN_MARKERS = 2
"""Markers a text needs to be plainly English."""

MARKER_SHARE = 0.15
"""Share of a text's plain words that must be markers for it to be plainly English (running English
prose has about a quarter)."""

_ALPHA_WORD = re.compile(r"[^\W\d_]{2,}")
_CONTEXT_CHARS = 2000
"""The context's language is read from its first characters (enough for a stable answer, and cheap)."""


_LOAD = threading.Lock()


def _identifier() -> Any | None:
    """The identifier, loaded once per process (seconds: its model is decompressed on load); a caller
    that comes while another loads it waits for that load, its budget's clock stopped."""
    if _load_identifier.cache_info().currsize:
        return _load_identifier()
    with clock_stopped(), _LOAD:
        return _load_identifier()


@lru_cache(maxsize=1)
def _load_identifier() -> Any | None:
    try:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier
    except ImportError:
        return None
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def clearly_english(words: list[str]) -> bool:
    """Whether ``words`` (a text's plain words) are plainly English: at least :data:`MIN_MARKERS` of
    them, and :data:`MARKER_SHARE` of all, are :data:`ENGLISH_MARKERS`."""
    markers = sum(word.lower() in ENGLISH_MARKERS for word in words)
    return markers >= MIN_MARKERS and markers >= MARKER_SHARE * len(words)


def _plain_words(text: str) -> list[str]:
    """The words that do not start with a capital: names ("Baltasar Corrada del Río died in 2007")
    say nothing of the language a sentence is written in."""
    return [w for w in _ALPHA_WORD.findall(text) if not w[0].isupper()]


@lru_cache(maxsize=4096)
def _languages(text: str) -> dict[str, float]:
    identifier = _identifier()
    assert identifier is not None
    return {str(lang): float(p) for lang, p in identifier.rank(text)}


def _top(ranked: dict[str, float]) -> tuple[str, float]:
    return max(ranked.items(), key=lambda item: item[1])


def language_mismatch(response: str, context: str) -> str | None:
    """Why ``response`` cannot be checked word by word against ``context`` (they are in different
    languages), or None when they share one, either is too short to tell, or py3langid is absent."""
    said_words, given_words = _plain_words(response), _plain_words(context[:_CONTEXT_CHARS])
    if len(said_words) < MIN_WORDS or len(given_words) < MIN_WORDS:
        return None
    if clearly_english(said_words) and clearly_english(given_words):
        return None
    if _identifier() is None:
        return None
    given, given_p = _top(_languages(" ".join(given_words)))
    ranked = _languages(" ".join(said_words))
    said, _ = _top(ranked)
    if given_p < MIN_CONFIDENCE or said == given or ranked.get(given, 0.0) > MAX_SHARED:
        return None
    return (
        f"other language: the response is in {said!r} and the context in {given!r} (py3langid); words "
        "cannot be matched across languages, so this signal does not check it (a judge can)"
    )
