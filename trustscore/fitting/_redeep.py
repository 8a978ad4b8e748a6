"""Fitting a ReDeEP profile on a labeled TRAINING split: choose heads A, layers F and the weights.

The released ReDeEP code picked A, F and beta on the very test set it reported on (see
../shared/research/redeep_selffam.md, sections 1.6 and 7). Everything here sees only the rows it is
given; callers keep their report split out of it. Two fits are offered:

* :func:`fit_paper_profile`: rank every candidate head (ECS against "not hallucinated") and layer (PKS
  against "hallucinated") by univariate AUROC, then choose how many heads and layers to keep and beta by
  grouped inner cross-validation, re-ranking inside each fold so the CV estimate is honest;
* :func:`fit_logistic_profile`: standardised ECS and PKS of *all* candidates, L2 logistic regression
  with the strength chosen by grouped inner cross-validation (mean held-out log loss).

Rows are units (tokens or chunks), e.g. from :func:`collect_features` over labeled samples;
``groups`` keep related rows (same source document) on one side of every fold; ``responses`` say
which rows make up one response for response-level scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trustscore._types import Sample
from trustscore.core._hashing import sha256_hex
from trustscore.stats import _metrics as metrics
from trustscore.stats._cv import grouped_kfold
from trustscore.stats._logistic import fit_logistic, sigmoid
from trustscore.whitebox._model import LoadedModel
from trustscore.whitebox._profile import (
    Head,
    LogisticCombination,
    ModelIdentity,
    PaperCombination,
    RedeepProfile,
    TrainingSummary,
    transform_pks,
)
from trustscore.whitebox._redeep_extract import extract_features
from trustscore.whitebox._redeep_features import FeatureRecipe

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


@dataclass(frozen=True)
class FeatureSet:
    """Per-unit ReDeEP features with labels.

    ``ecs`` [N, |heads|] and ``pks`` [N, |layers|] are the candidate features in ``heads`` / ``layers``
    order; ``labels`` [N] are 0/1 (1 = hallucinated unit); ``groups`` [N] keep related rows together in
    cross-validation; ``responses`` [N] say which response each unit belongs to.
    """

    ecs: NDArray[np.float64]
    pks: NDArray[np.float64]
    labels: NDArray[np.int64]
    groups: NDArray[np.str_]
    responses: NDArray[np.str_]
    heads: tuple[Head, ...]
    layers: tuple[int, ...]

    @classmethod
    def build(
        cls,
        ecs: ArrayLike,
        pks: ArrayLike,
        labels: ArrayLike,
        *,
        heads: Sequence[Head],
        layers: Sequence[int],
        groups: Sequence[str] | None = None,
        responses: Sequence[str] | None = None,
    ) -> FeatureSet:
        """Validate shapes and labels.

        Without ``responses`` every row is its own response; without ``groups`` groups = responses.
        """
        e = np.asarray(ecs, dtype=np.float64)
        p = np.asarray(pks, dtype=np.float64)
        y = np.asarray(labels)
        n = y.shape[0]
        if e.ndim != 2 or e.shape != (n, len(heads)):
            raise ValueError(f"ecs must have shape [{n}, {len(heads)}] (rows x heads), got {e.shape}")
        if p.ndim != 2 or p.shape != (n, len(layers)):
            raise ValueError(f"pks must have shape [{n}, {len(layers)}] (rows x layers), got {p.shape}")
        if n == 0:
            raise ValueError("labels is empty: there is nothing to fit")
        if not np.all((y == 0) | (y == 1)):
            raise ValueError("labels must be 0/1 (1 = hallucinated)")
        if not (np.all(np.isfinite(e)) and np.all(np.isfinite(p))):
            raise ValueError("ecs and pks must be finite; drop rows whose extraction failed")
        resp = np.asarray([str(i) for i in range(n)] if responses is None else [str(r) for r in responses])
        grp = resp.copy() if groups is None else np.asarray([str(g) for g in groups])
        if resp.shape[0] != n or grp.shape[0] != n:
            raise ValueError(f"groups and responses need one entry per row ({n})")
        return cls(
            e,
            p,
            y.astype(np.int64),
            grp,
            resp,
            tuple((int(a), int(b)) for a, b in heads),
            tuple(int(x) for x in layers),
        )

    @property
    def n(self) -> int:
        return int(self.labels.shape[0])

    def subset(self, mask: NDArray[np.bool_]) -> FeatureSet:
        return FeatureSet(
            self.ecs[mask],
            self.pks[mask],
            self.labels[mask],
            self.groups[mask],
            self.responses[mask],
            self.heads,
            self.layers,
        )

    def columns_for(self, profile: RedeepProfile) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The ECS and PKS columns a profile reads, in its heads/layers order."""
        head_index = {h: i for i, h in enumerate(self.heads)}
        layer_index = {layer: i for i, layer in enumerate(self.layers)}
        missing = [h for h in profile.heads if h not in head_index] + [
            x for x in profile.layers if x not in layer_index
        ]
        if missing:
            raise ValueError(f"the profile reads features this set does not have: {missing}")
        return (
            self.ecs[:, np.array([head_index[h] for h in profile.heads], dtype=np.intp)],
            self.pks[:, np.array([layer_index[x] for x in profile.layers], dtype=np.intp)],
        )

    def data_sha256(self) -> str:
        """A hash of exactly what was fitted on (features, labels, groups), for the training summary."""
        parts = [
            self.ecs.tobytes(),
            self.pks.tobytes(),
            self.labels.tobytes(),
            "\x1f".join(self.groups.tolist()).encode(),
            "\x1f".join(self.responses.tolist()).encode(),
            repr((self.heads, self.layers)).encode(),
        ]
        return sha256_hex(b"\x1e".join(parts))


def label_units(
    unit_spans: Sequence[tuple[int, int]], hallucinated: Sequence[tuple[int, int]]
) -> NDArray[np.int64]:
    """1 for each unit (``[start, end)`` characters in the response) overlapping an annotated
    hallucinated span, else 0: RAGTruth-style character labels turned into token/chunk labels."""
    return np.array(
        [int(any(s < b and a < e for a, b in hallucinated)) for s, e in unit_spans], dtype=np.int64
    )


def collect_features(
    loaded: LoadedModel,
    samples: Sequence[Sample],
    hallucinated: Sequence[Sequence[tuple[int, int]]],
    recipe: FeatureRecipe,
    *,
    groups: Sequence[str] | None = None,
    **extract: Any,
) -> FeatureSet:
    """The training rows for a fit: ``recipe``'s features of every sample, each unit labeled (blocking).

    ``hallucinated[i]`` are the annotated spans of ``samples[i].response``; responses are keyed by
    ``Sample.id`` (else their index); ``groups`` (e.g. source ids, one per sample) default to the
    responses. ``extract`` is passed to :func:`~trustscore.whitebox._redeep.extract_features`
    (``embed`` for chunk level, ``system_prompt``, ...). Use ``candidate_recipe`` to extract every
    candidate head and layer, then let the fit choose among them.
    """
    if len(hallucinated) != len(samples) or (groups is not None and len(groups) != len(samples)):
        raise ValueError("hallucinated (and groups, when given) need one entry per sample")
    ecs, pks, labels, unit_groups, responses = [], [], [], [], []
    for i, sample in enumerate(samples):
        features = extract_features(loaded, sample, recipe, **extract)
        key = sample.id if sample.id is not None else str(i)
        ecs.append(features.ecs)
        pks.append(features.pks)
        labels.append(label_units(features.spans, hallucinated[i]))
        responses += [key] * features.n_units
        unit_groups += [groups[i] if groups is not None else key] * features.n_units
    return FeatureSet.build(
        np.vstack(ecs),
        np.vstack(pks),
        np.concatenate(labels),
        heads=recipe.heads,
        layers=recipe.layers,
        groups=unit_groups,
        responses=responses,
    )


# ---- metrics -------------------------------------------------------------------------------------


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
