"""Fitting a ReDeEP profile on a labeled TRAINING split: choose heads A, layers F and the weights.

The released ReDeEP code picked A, F and beta on the very test set it reported on (see
../shared/research/redeep_selffam.md, sections 1.6 and 7). Everything here sees only the rows it is
given; callers keep their report split out of it. Two fits are offered:

* :func:`fit_paper_profile`: rank every candidate head (ECS against "not hallucinated") and layer (PKS
  against "hallucinated") by univariate AUROC, then choose how many heads and layers to keep and beta by
  grouped inner cross-validation, re-ranking inside each fold so the CV estimate is honest;
* :func:`fit_logistic_profile`: standardised ECS and PKS of *all* candidates, L2 logistic regression
  with the strength chosen by grouped inner cross-validation (mean held-out log loss).

Rows are units (tokens or chunks), e.g. from :func:`collect_features` over labeled samples
(:mod:`trustscore.fitting._redeep_data`);
``groups`` keep related rows (same source document) on one side of every fold; ``responses`` say
which rows make up one response for response-level scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trustscore.fitting._redeep_data import FeatureSet, collect_features, label_units
from trustscore.stats import _metrics as metrics
from trustscore.stats._cv import grouped_kfold
from trustscore.stats._logistic import fit_logistic, sigmoid
from trustscore.whitebox._profile import (
    LogisticCombination,
    ModelIdentity,
    PaperCombination,
    RedeepProfile,
    TrainingSummary,
    transform_pks,
)

__all__ = [
    "DEFAULT_BETAS",
    "DEFAULT_L2_GRID",
    "DEFAULT_SIZES",
    "FeatureSet",
    "LogisticSelection",
    "PaperSelection",
    "collect_features",
    "feature_aurocs",
    "fit_logistic_profile",
    "fit_paper_profile",
    "grouped_folds",
    "label_units",
    "pearson",
    "response_scores",
    "select_logistic",
    "select_paper",
]

DEFAULT_SIZES: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32)
DEFAULT_BETAS: tuple[float, ...] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.6, 0.8, 1.0, 1.2, 1.5, 1.8, 2.5, 3.5, 5.0)
DEFAULT_L2_GRID: tuple[float, ...] = (0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0)

Aggregation = Literal["mean", "max"]
Level = Literal["unit", "response"]
PksTransform = Literal["none", "log1p"]


def pearson(x: ArrayLike, y: ArrayLike) -> float:
    a = np.asarray(x, dtype=np.float64).ravel()
    b = np.asarray(y, dtype=np.float64).ravel()
    if a.std() == 0 or b.std() == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def response_scores(
    unit_scores: ArrayLike, data: FeatureSet, aggregation: Aggregation
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Aggregate unit scores per response; returns (scores, labels) with label = any unit hallucinated."""
    s = np.asarray(unit_scores, dtype=np.float64)
    keys, inverse = np.unique(data.responses, return_inverse=True)
    if aggregation == "max":
        out = np.full(keys.size, -np.inf)
        np.maximum.at(out, inverse, s)
    else:
        out = np.bincount(inverse, weights=s, minlength=keys.size) / np.bincount(inverse, minlength=keys.size)
    lab = np.zeros(keys.size, dtype=np.int64)
    np.maximum.at(lab, inverse, data.labels)
    return out, lab


def _score_auroc(
    unit_scores: NDArray[np.float64], data: FeatureSet, level: Level, aggregation: Aggregation
) -> float:
    if level == "unit":
        return metrics.auroc_or_nan(data.labels, unit_scores)
    s, y = response_scores(unit_scores, data, aggregation)
    return metrics.auroc_or_nan(y, s)


def feature_aurocs(data: FeatureSet) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Univariate AUROC per head (ECS vs "not hallucinated") and per layer (PKS vs "hallucinated")."""
    not_y = 1 - data.labels
    head_auc = np.array([metrics.auroc_or_nan(not_y, column) for column in data.ecs.T])
    layer_auc = np.array([metrics.auroc_or_nan(data.labels, column) for column in data.pks.T])
    return np.nan_to_num(head_auc, nan=0.5), np.nan_to_num(layer_auc, nan=0.5)


def grouped_folds(groups: NDArray[np.str_], n_folds: int, seed: int) -> list[NDArray[np.bool_]]:
    """Validation masks of ``n_folds`` folds; every group lies wholly inside one fold.

    The folds are fusion's grouped K-fold (balanced by row count), as boolean masks.
    """
    n_groups = np.unique(groups).size
    if n_groups < n_folds:
        raise ValueError(f"{n_groups} groups cannot make {n_folds} grouped folds; lower n_folds or add data")
    masks = []
    for _, held_out in grouped_kfold(groups.tolist(), n_folds, seed=seed):
        mask = np.zeros(groups.size, dtype=bool)
        mask[held_out] = True
        masks.append(mask)
    return masks


# ---- paper combination ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PaperSelection:
    n_heads: int
    n_layers: int
    beta: float
    cv_auroc: float
    """Mean grouped-CV AUROC of the chosen setting on the training split."""


def _paper_fit_on(
    data: FeatureSet, n_heads: int, n_layers: int, beta: float
) -> tuple[list[int], list[int], PaperCombination]:
    head_auc, layer_auc = feature_aurocs(data)
    hi = list(np.argsort(-head_auc, kind="stable")[:n_heads])
    li = list(np.argsort(-layer_auc, kind="stable")[:n_layers])
    e_sum = data.ecs[:, hi].sum(axis=1)
    p_sum = data.pks[:, li].sum(axis=1)
    e_rng = _max_min(e_sum)
    p_rng = _max_min(p_sum)
    raw = (p_sum - p_rng[1]) / (p_rng[0] - p_rng[1]) - beta * (e_sum - e_rng[1]) / (e_rng[0] - e_rng[1])
    final = _max_min(raw)
    platt: tuple[float, float] | None = None
    if 0 < data.labels.sum() < data.n:
        coef, intercept = fit_logistic(raw, data.labels, l2=1e-3)
        platt = (float(coef[0]), intercept)
    combo = PaperCombination(
        beta=beta, pks_max_min=p_rng, ecs_max_min=e_rng, final_max_min=final, platt=platt
    )
    return [int(i) for i in hi], [int(i) for i in li], combo


def _max_min(v: NDArray[np.float64]) -> tuple[float, float]:
    hi, lo = float(v.max()), float(v.min())
    if hi <= lo:  # a constant sum carries no information; keep the normaliser well defined
        hi = lo + 1.0
    return hi, lo


def select_paper(
    data: FeatureSet,
    *,
    head_sizes: Sequence[int] = DEFAULT_SIZES,
    layer_sizes: Sequence[int] = DEFAULT_SIZES,
    betas: Sequence[float] = DEFAULT_BETAS,
    n_folds: int = 5,
    seed: int = 0,
    level: Level = "response",
    aggregation: Aggregation = "mean",
) -> PaperSelection:
    """Choose (|A|, |F|, beta) by grouped inner CV on ``data``; features are re-ranked inside every fold.

    Min-max normalisation is monotone, so inside CV the score is computed on the fold-train ranges;
    the grid search reuses prefix sums of the ranked columns, so the full grid stays cheap.
    """
    h_sizes = sorted({min(s, len(data.heads)) for s in head_sizes if s >= 1})
    l_sizes = sorted({min(s, len(data.layers)) for s in layer_sizes if s >= 1})
    if not h_sizes or not l_sizes or not betas:
        raise ValueError(
            "head_sizes, layer_sizes and betas must each offer at least one value >= 1 / one beta"
        )
    beta_arr = np.asarray(betas, dtype=np.float64)
    totals = np.zeros((len(h_sizes), len(l_sizes), beta_arr.size))
    counts = np.zeros_like(totals)
    for val in grouped_folds(data.groups, n_folds, seed):
        tr, va = data.subset(~val), data.subset(val)
        if tr.labels.min() == tr.labels.max():
            continue
        head_auc, layer_auc = feature_aurocs(tr)
        h_order = np.argsort(-head_auc, kind="stable")
        l_order = np.argsort(-layer_auc, kind="stable")
        e_tr, e_va = np.cumsum(tr.ecs[:, h_order], axis=1), np.cumsum(va.ecs[:, h_order], axis=1)
        p_tr, p_va = np.cumsum(tr.pks[:, l_order], axis=1), np.cumsum(va.pks[:, l_order], axis=1)
        for i, nh in enumerate(h_sizes):
            e_hi, e_lo = _max_min(e_tr[:, nh - 1])
            e_norm = (e_va[:, nh - 1] - e_lo) / (e_hi - e_lo)
            for j, nl in enumerate(l_sizes):
                p_hi, p_lo = _max_min(p_tr[:, nl - 1])
                p_norm = (p_va[:, nl - 1] - p_lo) / (p_hi - p_lo)
                for k, beta in enumerate(beta_arr):
                    a = _score_auroc(p_norm - beta * e_norm, va, level, aggregation)
                    if np.isfinite(a):
                        totals[i, j, k] += a
                        counts[i, j, k] += 1
    if not counts.any():
        raise ValueError("no cross-validation fold had both classes; the training split needs both labels")
    mean = np.where(counts > 0, totals / np.maximum(counts, 1), -np.inf)
    i, j, k = (int(v) for v in np.unravel_index(int(np.argmax(mean)), mean.shape))
    return PaperSelection(h_sizes[i], l_sizes[j], float(beta_arr[k]), float(mean[i, j, k]))


def fit_paper_profile(
    data: FeatureSet,
    *,
    model: ModelIdentity,
    level: Literal["token", "chunk"],
    pks_mode: Literal["jsd", "legacy"],
    split: str,
    top_k_fraction: float = 0.1,
    selection: PaperSelection | None = None,
    aggregation: Aggregation = "mean",
    n_folds: int = 5,
    seed: int = 0,
    head_sizes: Sequence[int] = DEFAULT_SIZES,
    layer_sizes: Sequence[int] = DEFAULT_SIZES,
    betas: Sequence[float] = DEFAULT_BETAS,
    cv_level: Level = "response",
) -> RedeepProfile:
    """Select (unless ``selection`` is given) and fit the paper combination on the training ``data``."""
    sel = selection or select_paper(
        data,
        head_sizes=head_sizes,
        layer_sizes=layer_sizes,
        betas=betas,
        n_folds=n_folds,
        seed=seed,
        level=cv_level,
        aggregation=aggregation,
    )
    hi, li, combo = _paper_fit_on(data, sel.n_heads, sel.n_layers, sel.beta)
    return RedeepProfile(
        model=model,
        level=level,
        pks_mode=pks_mode,
        top_k_fraction=top_k_fraction,
        heads=[data.heads[i] for i in hi],
        layers=[data.layers[i] for i in li],
        combination=combo,
        response_aggregation=aggregation,
        training=_summary(
            data,
            split,
            f"paper: top {sel.n_heads} heads / {sel.n_layers} layers by train AUROC, beta={sel.beta}; "
            f"sizes and beta by {n_folds}-fold grouped CV (CV AUROC {sel.cv_auroc:.4f})",
        ),
    )


# ---- logistic over all features ------------------------------------------------------------------


def _standardise(x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    return mean, np.where(scale > 0, scale, 1.0)


@dataclass(frozen=True)
class LogisticSelection:
    l2: float
    pks_transform: PksTransform
    cv_logloss: float
    """Mean grouped-CV log loss of the chosen setting on the training split."""


def _design(data: FeatureSet, pks_transform: PksTransform) -> NDArray[np.float64]:
    return np.hstack([data.ecs, transform_pks(data.pks, pks_transform)])


def select_logistic(
    data: FeatureSet,
    *,
    l2_grid: Sequence[float] = DEFAULT_L2_GRID,
    pks_transforms: Sequence[PksTransform] = ("none", "log1p"),
    n_folds: int = 5,
    seed: int = 0,
) -> LogisticSelection:
    """The (PKS transform, L2 strength) with the lowest mean held-out log loss over grouped folds."""
    if not l2_grid or not pks_transforms:
        raise ValueError("l2_grid and pks_transforms must each offer at least one value")
    folds = grouped_folds(data.groups, n_folds, seed)
    best: LogisticSelection | None = None
    for how in pks_transforms:
        x = _design(data, how)
        losses = np.zeros(len(l2_grid))
        used = 0
        for val in folds:
            y_tr, y_va = data.labels[~val], data.labels[val]
            if y_tr.min() == y_tr.max():
                continue
            used += 1
            mean, scale = _standardise(x[~val])
            z_tr, z_va = (x[~val] - mean) / scale, (x[val] - mean) / scale
            for i, l2 in enumerate(l2_grid):
                coef, b = fit_logistic(z_tr, y_tr, l2=l2)
                p = np.clip(sigmoid(z_va @ coef + b), 1e-12, 1 - 1e-12)
                losses[i] += float(-np.mean(y_va * np.log(p) + (1 - y_va) * np.log(1 - p)))
        if used == 0:
            raise ValueError(
                "no cross-validation fold had both classes; the training split needs both labels"
            )
        i = int(np.argmin(losses))
        candidate = LogisticSelection(float(l2_grid[i]), how, float(losses[i] / used))
        if best is None or candidate.cv_logloss < best.cv_logloss:
            best = candidate
    assert best is not None
    return best


def fit_logistic_profile(
    data: FeatureSet,
    *,
    model: ModelIdentity,
    level: Literal["token", "chunk"],
    pks_mode: Literal["jsd", "legacy"],
    split: str,
    top_k_fraction: float = 0.1,
    selection: LogisticSelection | None = None,
    l2_grid: Sequence[float] = DEFAULT_L2_GRID,
    pks_transforms: Sequence[PksTransform] = ("none", "log1p"),
    aggregation: Aggregation = "max",
    n_folds: int = 5,
    seed: int = 0,
) -> RedeepProfile:
    """Standardised ECS of every candidate head and PKS of every layer, L2 logistic regression.

    The L2 strength (scikit-learn's 1/C, on standardised features) and the PKS transform are chosen by
    grouped inner CV on ``data`` unless ``selection`` is given.
    """
    if data.labels.min() == data.labels.max():
        raise ValueError("the training split has only one class; a logistic model needs both")
    if selection is None:
        selection = select_logistic(
            data, l2_grid=l2_grid, pks_transforms=pks_transforms, n_folds=n_folds, seed=seed
        )
        how = (
            f"l2={selection.l2}, pks_transform={selection.pks_transform} by {n_folds}-fold grouped CV "
            f"log loss ({selection.cv_logloss:.4f})"
        )
    else:
        how = f"given l2={selection.l2}, pks_transform={selection.pks_transform}"
    x = _design(data, selection.pks_transform)
    mean, scale = _standardise(x)
    coef, intercept = fit_logistic((x - mean) / scale, data.labels, l2=selection.l2)
    combo = LogisticCombination(
        pks_transform=selection.pks_transform,
        mean=mean.tolist(),
        scale=scale.tolist(),
        coef=coef.tolist(),
        intercept=intercept,
        l2=selection.l2,
    )
    return RedeepProfile(
        model=model,
        level=level,
        pks_mode=pks_mode,
        top_k_fraction=top_k_fraction,
        heads=list(data.heads),
        layers=list(data.layers),
        combination=combo,
        response_aggregation=aggregation,
        training=_summary(data, split, f"logistic over all {x.shape[1]} features; {how}"),
    )


def _summary(data: FeatureSet, split: str, selection: str) -> TrainingSummary:
    return TrainingSummary(
        n=data.n,
        n_responses=int(np.unique(data.responses).size),
        positive_rate=float(data.labels.mean()),
        data_sha256=data.data_sha256(),
        split=split,
        selection=selection,
    )
