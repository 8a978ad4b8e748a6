"""Grouped cross-validation helpers: groups stay whole, every row is held out once, honest thresholds."""

from __future__ import annotations

import numpy as np
import pytest

from trustscore.stats._cv import grouped_kfold, grouped_split, held_out_f1, out_of_fold
from trustscore.stats._metrics import best_f1


def _groups(seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, size=40)
    return [f"g{i}" for i, s in enumerate(sizes) for _ in range(s)]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [2, 5])
def test_grouped_kfold_never_splits_a_group_and_covers_every_row_once(seed: int, k: int) -> None:
    groups = _groups(seed)
    folds = grouped_kfold(groups, k, seed=seed)
    assert len(folds) == k
    held = np.concatenate([test for _, test in folds])
    assert sorted(held.tolist()) == list(range(len(groups)))
    arr = np.asarray(groups)
    for train, test in folds:
        assert set(arr[train]).isdisjoint(arr[test])
        assert sorted(np.r_[train, test].tolist()) == list(range(len(groups)))
    sizes = [test.size for _, test in folds]
    assert max(sizes) - min(sizes) <= 8  # at most one (largest) group apart


def test_grouped_kfold_is_seeded() -> None:
    groups = _groups(3)
    a = grouped_kfold(groups, 5, seed=1)
    b = grouped_kfold(groups, 5, seed=1)
    c = grouped_kfold(groups, 5, seed=2)
    assert all(np.array_equal(x[1], y[1]) for x, y in zip(a, b, strict=True))
    assert any(not np.array_equal(x[1], y[1]) for x, y in zip(a, c, strict=True))


def test_too_few_groups_is_refused_with_the_fix() -> None:
    with pytest.raises(ValueError, match="3 groups cannot fill 5 folds"):
        grouped_kfold(["a", "b", "c", "a"], 5)
    with pytest.raises(ValueError, match="at least 2"):
        grouped_kfold(["a", "b"], 1)


def test_grouped_split_keeps_groups_whole_near_the_fraction() -> None:
    groups = _groups(4)
    train, held = grouped_split(groups, 0.25, seed=0)
    arr = np.asarray(groups)
    assert set(arr[train]).isdisjoint(arr[held])
    assert train.size + held.size == len(groups)
    assert 0.2 <= held.size / len(groups) <= 0.4


def test_out_of_fold_uses_only_training_rows_for_each_prediction() -> None:
    groups = _groups(5)
    y = np.arange(len(groups), dtype=float)
    folds = grouped_kfold(groups, 4)
    # "Model" = the mean of its training rows: each held-out row gets its fold's training mean.
    oof = out_of_fold(lambda tr, te: np.full(te.size, y[tr].mean()), folds, len(groups))
    for train, test in folds:
        assert np.all(oof[test] == y[train].mean())
    with pytest.raises(ValueError, match="exactly once"):
        out_of_fold(lambda tr, te: np.zeros(te.size), folds[:2], len(groups))


def test_held_out_f1_takes_each_threshold_from_the_training_rows() -> None:
    rng = np.random.default_rng(6)
    groups = _groups(6)
    n = len(groups)
    y = (rng.random(n) < 0.4).astype(float)
    p = np.clip(0.4 * y + 0.6 * rng.random(n), 0, 1)
    folds = grouped_kfold(groups, 3)
    in_sample = [p[train] for train, _ in folds]
    metrics, thresholds = held_out_f1(y, in_sample, p, folds)
    assert thresholds == [best_f1(y[train], p[train]).threshold for train, _ in folds]
    assert metrics.threshold == pytest.approx(np.mean(thresholds))
    assert 0 < metrics.f1 <= best_f1(y, p).f1 + 1e-12
