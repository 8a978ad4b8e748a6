"""Flat numeric features from the grounding signals, for fitting and applying a fused model.

    from trustscore.grounding import features, features_many
    rows = features_many(samples)      # [{"lexical": 0.93, "embedding.min": 0.41, ...}, ...]

A feature a signal could not compute is ``nan`` (never 0): the fuser decides what missing means.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from trustscore.grounding.config import GroundingConfig
from trustscore.grounding.embedding import EmbeddingGrounding
from trustscore.grounding.lexical import LexicalSupport
from trustscore.types import Sample, Signal

__all__ = ["FEATURE_NAMES", "GroundingFeatures", "features", "features_many"]

_LEXICAL_PARTS = (
    "weighted_unsupported_share",
    "unsupported_share",
    "numbers_unsupported_share",
    "names_unsupported_share",
    "words_unsupported_share",
    "sentence_max_unsupported_share",
    "log_unsupported_weight",
    "pairs_unsupported_share",
    "ordered_pairs_unsupported_share",
)
_EMBEDDING_PARTS = ("min", "mean", "q25", "softmin", "frac_low")

FEATURE_NAMES: tuple[str, ...] = (
    "lexical",
    *(f"lexical.{p}" for p in _LEXICAL_PARTS),
    "embedding",
    *(f"embedding.{p}" for p in _EMBEDDING_PARTS),
)
"""Every key :func:`features` returns, in a stable order (higher = better grounded for the two
signal values; the ``*_share`` and ``frac_low`` parts grow with *un*grounded content)."""


class GroundingFeatures:
    """Computes :data:`FEATURE_NAMES` for samples with one pair of signals (one loaded model)."""

    def __init__(self, config: GroundingConfig | None = None) -> None:
        config = config or GroundingConfig()
        self.lexical = LexicalSupport(config)
        self.embedding = EmbeddingGrounding(config)

    def __call__(self, sample: Sample) -> dict[str, float]:
        lexical = self.lexical.score(sample)
        embedding = self.embedding.score(sample)
        return {
            "lexical": _value(lexical),
            **{f"lexical.{p}": _part(lexical, p) for p in _LEXICAL_PARTS},
            "embedding": _value(embedding),
            **{f"embedding.{p}": _part(embedding, p) for p in _EMBEDDING_PARTS},
        }


def _value(signal: Signal) -> float:
    return math.nan if signal.value is None else signal.value


def _part(signal: Signal, key: str) -> float:
    if signal.value is None or not isinstance(signal.raw, dict):
        return math.nan
    v = signal.raw.get(key)
    return float(v) if isinstance(v, (int, float)) else math.nan


_DEFAULT: GroundingFeatures | None = None


def features(sample: Sample) -> dict[str, float]:
    """The grounding features of one sample with the default configuration (blocking; CPU)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = GroundingFeatures()
    return _DEFAULT(sample)


def features_many(
    samples: Iterable[Sample],
    config: GroundingConfig | None = None,
    *,
    on_progress: Callable[[int], None] | None = None,
) -> list[dict[str, float]]:
    """Features for many samples, in order. Samples sharing a context reuse its embeddings.

    ``on_progress(done)`` is called after each sample (e.g. to advance a progress bar).
    """
    compute = GroundingFeatures(config) if config is not None else None
    out: list[dict[str, float]] = []
    for i, sample in enumerate(samples, 1):
        out.append(compute(sample) if compute is not None else features(sample))
        if on_progress is not None:
            on_progress(i)
    return out
