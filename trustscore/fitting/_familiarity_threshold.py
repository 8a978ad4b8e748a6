"""The Self-Familiarity threshold, fitted offline: :func:`calibrate_threshold` scores concepts any
general-purpose model knows (:data:`COMMON_CONCEPTS`) with the signal's own pipeline, and
:func:`fit_threshold` turns their scores into the paper's familiarity threshold: the midpoint of a
bootstrap 95% confidence interval of their 5th percentile. It goes into ``[signals.familiarity]
threshold``, which the signal reads (:mod:`trustscore.whitebox._familiarity`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from trustscore.whitebox._familiarity import ConceptScore, FamiliaritySignal

__all__ = ["COMMON_CONCEPTS", "ThresholdFit", "calibrate_threshold", "fit_threshold"]


COMMON_CONCEPTS: tuple[str, ...] = (
    "gravity",
    "photosynthesis",
    "democracy",
    "electricity",
    "the Moon",
    "volcano",
    "vaccine",
    "inflation",
    "the Internet",
    "oxygen",
    "evolution",
    "DNA",
    "the heart",
    "rainbow",
    "earthquake",
    "money",
    "music",
    "the Sun",
    "water cycle",
    "computer",
    "bicycle",
    "language",
    "bread",
    "chess",
    "the Pacific Ocean",
    "football",
    "elephant",
    "airplane",
    "telephone",
    "climate change",
    "the Roman Empire",
    "mathematics",
    "a triangle",
    "coffee",
    "the brain",
    "a library",
    "tax",
    "a hospital",
    "the alphabet",
    "a river",
)
"""Concepts any general-purpose model knows: the reference set for :func:`fit_threshold` (our own list;
the paper's 192-concept list carries no licence)."""


@dataclass(frozen=True)
class ThresholdFit:
    threshold: float
    """Scores at or above it count as familiar."""
    ci_low: float
    ci_high: float
    quantile: float
    n: int


def fit_threshold(
    common_scores: Sequence[float],
    *,
    quantile: float = 0.05,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
) -> ThresholdFit:
    """The paper's threshold: midpoint of a bootstrap CI of the ``quantile`` of scores on common concepts.

    Procedure: score concepts the model surely knows (e.g. :data:`COMMON_CONCEPTS`) with the same
    pipeline and settings as in production; resample them with replacement ``n_boot`` times; take the
    ``quantile`` of each resample; the percentile interval of those at ``confidence`` gives (low, high);
    the threshold is their midpoint. Refit whenever the model, prompts or scoring change.
    """
    s = np.asarray(common_scores, dtype=np.float64)
    if s.size < 2:
        raise ValueError(f"fit_threshold needs at least 2 common-concept scores, got {s.size}")
    if not np.all(np.isfinite(s)):
        raise ValueError("common-concept scores must be finite")
    if not 0 < quantile < 1 or not 0 < confidence < 1:
        raise ValueError("quantile and confidence must be in (0, 1)")
    rng = np.random.default_rng(seed)
    boot = np.quantile(rng.choice(s, size=(n_boot, s.size), replace=True), quantile, axis=1)
    alpha = (1 - confidence) / 2
    low, high = (float(v) for v in np.quantile(boot, [alpha, 1 - alpha]))
    return ThresholdFit(
        threshold=(low + high) / 2, ci_low=low, ci_high=high, quantile=quantile, n=int(s.size)
    )


async def calibrate_threshold(
    signal: FamiliaritySignal, concepts: Sequence[str] = COMMON_CONCEPTS, **fit: Any
) -> tuple[ThresholdFit, list[ConceptScore]]:
    """Score common concepts with ``signal``'s very pipeline and fit the threshold (see
    :func:`fit_threshold`). Put the returned ``threshold`` into ``[signals.familiarity] threshold``."""
    scored = [await signal.score_concept(c) for c in concepts]
    return fit_threshold([s.score for s in scored], **fit), scored
