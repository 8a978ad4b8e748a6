"""Grouped cross-validation: folds that never split a group, out-of-fold predictions, honest F1.

RAGTruth has six responses per source document; letting one source's responses sit on both sides
of a split leaks the source's difficulty, so every split here keeps a group (``source_id``) whole.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from trustscore.stats._metrics import ThresholdMetrics, best_f1, threshold_metrics

__all__ = ["Fold", "grouped_kfold", "grouped_split", "held_out_f1", "out_of_fold"]

Fold = tuple[NDArray[np.int64], NDArray[np.int64]]
"""(training row indices, held-out row indices)."""


def _group_ids(groups: Sequence[object]) -> tuple[NDArray[np.int64], int]:
    _, inverse = np.unique(np.asarray([str(g) for g in groups]), return_inverse=True)
    return inverse.astype(np.int64), int(inverse.max()) + 1 if len(groups) else 0


def grouped_kfold(groups: Sequence[object], k: int = 5, *, seed: int = 0) -> list[Fold]:
    """``k`` folds over whole groups, balanced by row count.

    Groups are shuffled (seeded), then each goes to the fold with the fewest rows so far
    (largest groups placed first), so folds differ in size by at most one group.
    """
    ids, n_groups = _group_ids(groups)
    if k < 2:
        raise ValueError(f"k must be at least 2, got {k}")
    if n_groups < k:
        raise ValueError(
            f"{n_groups} groups cannot fill {k} folds; lower k (e.g. --folds {max(n_groups, 2)})"
        )
    sizes = np.bincount(ids, minlength=n_groups)
    rng = np.random.default_rng(seed)
    shuffled = rng.permutation(n_groups)
    order = shuffled[np.argsort(-sizes[shuffled], kind="mergesort")]
    fold_of_group = np.empty(n_groups, dtype=np.int64)
    load = np.zeros(k, dtype=np.int64)
    for g in order:
        f = int(np.argmin(load))
        fold_of_group[g] = f
        load[f] += sizes[g]
    fold_of_row = fold_of_group[ids]
    rows = np.arange(ids.size)
    return [(rows[fold_of_row != f], rows[fold_of_row == f]) for f in range(k)]


def grouped_split(groups: Sequence[object], held_out: float, *, seed: int = 0) -> Fold:
    """One split keeping groups whole, with about ``held_out`` of the rows on the held-out side."""
    if not 0 < held_out < 1:
        raise ValueError(f"held-out fraction must be in (0, 1), got {held_out}")
    ids, n_groups = _group_ids(groups)
    if n_groups < 2:
        raise ValueError("a grouped split needs at least two groups")
    rng = np.random.default_rng(seed)
    sizes = np.bincount(ids, minlength=n_groups)
    target = held_out * ids.size
    chosen = np.zeros(n_groups, dtype=bool)
    taken = 0
    for g in rng.permutation(n_groups):
        if taken >= target or chosen.sum() == n_groups - 1:
            break
        chosen[g] = True
        taken += sizes[g]
    rows = np.arange(ids.size)
    held = chosen[ids]
    return rows[~held], rows[held]


def out_of_fold(
    fit_predict: Callable[[NDArray[np.int64], NDArray[np.int64]], NDArray[np.float64]],
    folds: Sequence[Fold],
    n: int,
) -> NDArray[np.float64]:
    """Every row's prediction from the model fitted without its fold.

    ``fit_predict(train_idx, test_idx)`` fits on the training rows and returns predictions for the
    held-out rows; the folds must cover each row exactly once.
    """
    out = np.full(n, np.nan)
    seen = np.zeros(n, dtype=np.int64)
    for train, test in folds:
        out[test] = fit_predict(train, test)
        seen[test] += 1
    if np.any(seen != 1):
        raise ValueError("the folds must hold out every row exactly once")
    return out


def held_out_f1(
    y: NDArray[np.float64],
    p_in_sample: Sequence[NDArray[np.float64]],
    p_oof: NDArray[np.float64],
    folds: Sequence[Fold],
) -> tuple[ThresholdMetrics, list[float]]:
    """F1 of out-of-fold predictions where each fold's threshold was chosen on its training rows.

    ``p_in_sample[i]`` holds fold ``i``'s model's predictions on its own training rows. Returns the
    pooled metrics (``threshold`` = the mean of the per-fold thresholds) and the per-fold thresholds.
    """
    predicted = np.zeros(y.size, dtype=bool)
    thresholds: list[float] = []
    for (train, test), p_train in zip(folds, p_in_sample, strict=True):
        t = best_f1(y[train], p_train).threshold
        thresholds.append(t)
        predicted[test] = p_oof[test] >= t
    m = threshold_metrics(y, predicted.astype(np.float64), 0.5)
    return m.model_copy(update={"threshold": float(np.mean(thresholds))}), thresholds
