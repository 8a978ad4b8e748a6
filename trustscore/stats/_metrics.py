"""Classification and calibration metrics in numpy: ranking, calibration, thresholds, intervals.

Conventions shared by every function here:

- ``y`` holds 0/1 labels and ``p`` the predicted probability (or any score) that the label is 1.
  Whoever calls decides which class is "1" (``trustscore eval`` detects *hallucinations*, so it
  passes ``1 - P(trustworthy)``); nothing here flips anything.
- A prediction is positive when ``p >= threshold``.
- Functions that need both classes (AUROC, PR-AUC) raise ``ValueError`` when one is absent;
  :func:`evaluate` turns that into ``None`` so one degenerate group does not sink a report.

AUROC is the Mann-Whitney statistic with average ranks (ties count one half), which is what
``sklearn.metrics.roc_auc_score`` computes; PR-AUC is average precision with every distinct score
as a threshold, as ``sklearn.metrics.average_precision_score`` defines it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pydantic import BaseModel, ConfigDict

__all__ = [
    "BinStrategy",
    "ConfidenceInterval",
    "EceResult",
    "GroupedReport",
    "MetricReport",
    "ReliabilityCurve",
    "ThresholdMetrics",
    "auroc",
    "auroc_or_nan",
    "average_precision",
    "best_f1",
    "bootstrap_ci",
    "brier",
    "ece",
    "evaluate",
    "evaluate_grouped",
    "log_loss",
    "reliability_curve",
    "roc_curve",
    "threshold_metrics",
]

BinStrategy = Literal["width", "mass"]
"""ECE / reliability bins: ``width`` = equal-width on [0, 1]; ``mass`` = equal counts per bin."""

_LOG_EPS = 1e-15


def _check(y: ArrayLike, p: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    yy = np.asarray(y, dtype=np.float64).ravel()
    pp = np.asarray(p, dtype=np.float64).ravel()
    if yy.shape != pp.shape:
        raise ValueError(f"labels ({yy.size}) and scores ({pp.size}) differ in length")
    if yy.size == 0:
        raise ValueError("no rows to evaluate: labels and scores are empty")
    if not np.all((yy == 0) | (yy == 1)):
        raise ValueError("labels must be 0/1 (or booleans)")
    if not np.all(np.isfinite(pp)):
        raise ValueError("scores must be finite numbers: drop rows with a missing score first")
    return yy, pp


def _check_prob(p: NDArray[np.float64]) -> None:
    if np.any((p < 0) | (p > 1)):
        raise ValueError("probabilities must lie in [0, 1]")


def _average_ranks(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """1-based ranks with ties given the mean of the ranks they span."""
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    mean_rank = ends - (counts - 1) / 2.0
    return mean_rank[inverse]


def auroc(y: ArrayLike, p: ArrayLike) -> float:
    """Area under the ROC curve = P(score of a random positive > a random negative) + 1/2 P(tie)."""
    yy, pp = _check(y, p)
    n_pos = int(yy.sum())
    n_neg = yy.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise ValueError("AUROC needs both classes; these labels have only one")
    ranks = _average_ranks(pp)
    u = ranks[yy == 1].sum() - n_pos * (n_pos + 1) / 2.0
    return float(u / (n_pos * n_neg))


def auroc_or_nan(y: ArrayLike, p: ArrayLike) -> float:
    """:func:`auroc`, but NaN when the labels hold only one class (or none), e.g. for a search that
    skips such folds instead of failing on them."""
    yy = np.asarray(y).ravel()
    if yy.size == 0 or yy.min() == yy.max():
        return float("nan")
    return auroc(yy, p)


def _descending_thresholds(
    yy: NDArray[np.float64], pp: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """(thresholds, true positives, false positives) at every distinct score, highest first."""
    order = np.argsort(-pp, kind="mergesort")
    ps, ys = pp[order], yy[order]
    last_of_tie = np.r_[np.flatnonzero(np.diff(ps)), ps.size - 1]
    tp = np.cumsum(ys)[last_of_tie]
    fp = (last_of_tie + 1) - tp
    return ps[last_of_tie], tp, fp


def average_precision(y: ArrayLike, p: ArrayLike) -> float:
    """PR-AUC as average precision: sum over thresholds of (recall gain) x precision."""
    yy, pp = _check(y, p)
    n_pos = yy.sum()
    if n_pos == 0:
        raise ValueError("average precision needs at least one positive label")
    _, tp, fp = _descending_thresholds(yy, pp)
    precision = tp / (tp + fp)
    recall = tp / n_pos
    gains = np.diff(np.r_[0.0, recall])
    return float(np.sum(gains * precision))


def roc_curve(y: ArrayLike, p: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(false positive rate, true positive rate), starting at (0, 0), one point per distinct score."""
    yy, pp = _check(y, p)
    n_pos, n_neg = yy.sum(), yy.size - yy.sum()
    if n_pos == 0 or n_neg == 0:
        raise ValueError("a ROC curve needs both classes; these labels have only one")
    _, tp, fp = _descending_thresholds(yy, pp)
    return np.r_[0.0, fp / n_neg], np.r_[0.0, tp / n_pos]


def brier(y: ArrayLike, p: ArrayLike) -> float:
    """Mean squared error of the probability."""
    yy, pp = _check(y, p)
    _check_prob(pp)
    return float(np.mean((pp - yy) ** 2))


def log_loss(y: ArrayLike, p: ArrayLike) -> float:
    """Mean negative log-likelihood; probabilities are clipped to [1e-15, 1 - 1e-15]."""
    yy, pp = _check(y, p)
    _check_prob(pp)
    q = np.clip(pp, _LOG_EPS, 1 - _LOG_EPS)
    return float(-np.mean(yy * np.log(q) + (1 - yy) * np.log1p(-q)))


def _bin_index(pp: NDArray[np.float64], n_bins: int, strategy: BinStrategy) -> NDArray[np.int64]:
    if n_bins < 1:
        raise ValueError(f"n_bins must be >= 1, got {n_bins}")
    if strategy == "width":
        # Bins [0, 1/n), [1/n, 2/n), ..., [(n-1)/n, 1]: the last bin is closed.
        return np.minimum((pp * n_bins).astype(np.int64), n_bins - 1)
    if strategy == "mass":
        # Equal counts: rank the scores (stable, so ties keep row order) and cut the ranks into
        # n_bins nearly equal runs. Tied scores may straddle a boundary; equal counts take priority.
        order = np.argsort(pp, kind="mergesort")
        idx = np.empty(pp.size, dtype=np.int64)
        idx[order] = (np.arange(pp.size) * n_bins) // pp.size
        return idx
    raise ValueError(f"bin strategy must be 'width' or 'mass', got {strategy!r}")


class ReliabilityCurve(BaseModel):
    """Per non-empty bin: mean predicted probability, observed frequency of label 1, row count."""

    model_config = ConfigDict(frozen=True)

    strategy: BinStrategy
    n_bins: int
    mean_predicted: list[float]
    fraction_positive: list[float]
    count: list[int]


def reliability_curve(
    y: ArrayLike, p: ArrayLike, *, n_bins: int = 10, strategy: BinStrategy = "width"
) -> ReliabilityCurve:
    yy, pp = _check(y, p)
    _check_prob(pp)
    idx = _bin_index(pp, n_bins, strategy)
    count = np.bincount(idx, minlength=n_bins)
    sum_p = np.bincount(idx, weights=pp, minlength=n_bins)
    sum_y = np.bincount(idx, weights=yy, minlength=n_bins)
    keep = count > 0
    return ReliabilityCurve(
        strategy=strategy,
        n_bins=n_bins,
        mean_predicted=(sum_p[keep] / count[keep]).tolist(),
        fraction_positive=(sum_y[keep] / count[keep]).tolist(),
        count=count[keep].tolist(),
    )


class EceResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    value: float
    n_bins: int
    strategy: BinStrategy


def ece(y: ArrayLike, p: ArrayLike, *, n_bins: int = 10, strategy: BinStrategy = "width") -> EceResult:
    """Expected calibration error: sum over bins of (bin share) x |observed rate - mean probability|."""
    curve = reliability_curve(y, p, n_bins=n_bins, strategy=strategy)
    counts = np.asarray(curve.count, dtype=np.float64)
    gap = np.abs(np.asarray(curve.fraction_positive) - np.asarray(curve.mean_predicted))
    return EceResult(value=float(np.sum(counts * gap) / counts.sum()), n_bins=n_bins, strategy=strategy)


class ThresholdMetrics(BaseModel):
    model_config = ConfigDict(frozen=True)

    threshold: float
    precision: float
    recall: float
    f1: float


def threshold_metrics(y: ArrayLike, p: ArrayLike, threshold: float = 0.5) -> ThresholdMetrics:
    """Precision, recall and F1 of "positive when p >= threshold" (0 where undefined, as sklearn)."""
    yy, pp = _check(y, p)
    pred = pp >= threshold
    tp = float(np.sum(pred & (yy == 1)))
    fp = float(np.sum(pred & (yy == 0)))
    fn = float(np.sum(~pred & (yy == 1)))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0
    return ThresholdMetrics(threshold=float(threshold), precision=precision, recall=recall, f1=f1)


def best_f1(y: ArrayLike, p: ArrayLike) -> ThresholdMetrics:
    """The threshold (one of the distinct scores) that maximises F1 on these rows, and its metrics.

    Chosen on the rows it is measured on, so it is optimistic: for an honest figure choose the
    threshold on training folds (:func:`trustscore.stats._cv.held_out_f1`).
    """
    yy, pp = _check(y, p)
    n_pos = yy.sum()
    if n_pos == 0:
        raise ValueError("F1-optimal threshold needs at least one positive label")
    thresholds, tp, fp = _descending_thresholds(yy, pp)
    fn = n_pos - tp
    f1 = 2 * tp / (2 * tp + fp + fn)
    i = int(np.argmax(f1))
    precision = tp[i] / (tp[i] + fp[i])
    return ThresholdMetrics(
        threshold=float(thresholds[i]),
        precision=float(precision),
        recall=float(tp[i] / n_pos),
        f1=float(f1[i]),
    )


class ConfidenceInterval(BaseModel):
    model_config = ConfigDict(frozen=True)

    low: float
    high: float
    level: float
    n_boot: int
    seed: int
    resampled: Literal["rows", "groups"]


def bootstrap_ci(
    metric: Callable[[NDArray[np.float64], NDArray[np.float64]], float],
    y: ArrayLike,
    p: ArrayLike,
    *,
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int = 0,
    groups: Sequence[object] | None = None,
) -> ConfidenceInterval:
    """Percentile bootstrap interval of ``metric(y, p)``.

    With ``groups`` whole groups are resampled (a cluster bootstrap: rows sharing a source are not
    independent). Resamples where the metric is undefined (e.g. one class only) are skipped; if
    fewer than half succeed the interval is refused.
    """
    yy, pp = _check(y, p)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    rng = np.random.default_rng(seed)
    if groups is None:
        members = [np.array([i]) for i in range(yy.size)]
    else:
        if len(groups) != yy.size:
            raise ValueError(f"groups has {len(groups)} entries but there are {yy.size} rows")
        _, inverse = np.unique(np.asarray([str(g) for g in groups]), return_inverse=True)
        order = np.argsort(inverse, kind="mergesort")
        members = np.split(order, np.flatnonzero(np.diff(inverse[order])) + 1)
    stats: list[float] = []
    for _ in range(n_boot):
        pick = rng.integers(0, len(members), size=len(members))
        rows = np.concatenate([members[i] for i in pick])
        try:
            stats.append(float(metric(yy[rows], pp[rows])))
        except ValueError:
            continue
    if len(stats) < n_boot / 2:
        raise ValueError(f"the metric was undefined on {n_boot - len(stats)} of {n_boot} resamples")
    alpha = (1 - level) / 2
    low, high = np.quantile(np.asarray(stats), [alpha, 1 - alpha])
    return ConfidenceInterval(
        low=float(low),
        high=float(high),
        level=level,
        n_boot=n_boot,
        seed=seed,
        resampled="rows" if groups is None else "groups",
    )


class MetricReport(BaseModel):
    """Every headline metric for one set of (label, probability) rows. ``None`` = undefined here."""

    model_config = ConfigDict(frozen=True)

    n: int
    positives: int
    auroc: float | None
    pr_auc: float | None
    ece_width: float
    ece_mass: float
    ece_bins: int
    brier: float
    log_loss: float
    f1_at_threshold: ThresholdMetrics
    f1_best: ThresholdMetrics | None
    """Threshold chosen on these same rows: optimistic."""
    auroc_ci: ConfidenceInterval | None = None


def _or_none(fn: Callable[[], float]) -> float | None:
    try:
        return fn()
    except ValueError:
        return None


def evaluate(
    y: ArrayLike,
    p: ArrayLike,
    *,
    threshold: float = 0.5,
    n_bins: int = 10,
    ci: bool = False,
    n_boot: int = 1000,
    seed: int = 0,
    groups: Sequence[object] | None = None,
) -> MetricReport:
    """The headline metrics; ``groups`` (e.g. source ids) makes the AUROC interval a cluster bootstrap."""
    yy, pp = _check(y, p)
    _check_prob(pp)
    auroc_ci = None
    if ci:
        try:
            auroc_ci = bootstrap_ci(auroc, yy, pp, n_boot=n_boot, seed=seed, groups=groups)
        except ValueError:
            auroc_ci = None
    try:
        f1_best: ThresholdMetrics | None = best_f1(yy, pp)
    except ValueError:
        f1_best = None
    return MetricReport(
        n=int(yy.size),
        positives=int(yy.sum()),
        auroc=_or_none(lambda: auroc(yy, pp)),
        pr_auc=_or_none(lambda: average_precision(yy, pp)),
        ece_width=ece(yy, pp, n_bins=n_bins, strategy="width").value,
        ece_mass=ece(yy, pp, n_bins=n_bins, strategy="mass").value,
        ece_bins=n_bins,
        brier=brier(yy, pp),
        log_loss=log_loss(yy, pp),
        f1_at_threshold=threshold_metrics(yy, pp, threshold),
        f1_best=f1_best,
        auroc_ci=auroc_ci,
    )


class GroupedReport(BaseModel):
    """Metrics pooled, per group, and the unweighted (macro) mean over groups of each metric."""

    model_config = ConfigDict(frozen=True)

    by: str | None
    pooled: MetricReport
    groups: dict[str, MetricReport]
    macro: dict[str, float | None]
    """Macro mean of auroc, pr_auc, ece_width, ece_mass, brier, log_loss, f1 (at threshold) and
    best_f1 over the groups where each is defined; ``None`` where no group defines it."""


_MACRO_FIELDS: Mapping[str, Callable[[MetricReport], float | None]] = {
    "auroc": lambda r: r.auroc,
    "pr_auc": lambda r: r.pr_auc,
    "ece_width": lambda r: r.ece_width,
    "ece_mass": lambda r: r.ece_mass,
    "brier": lambda r: r.brier,
    "log_loss": lambda r: r.log_loss,
    "f1": lambda r: r.f1_at_threshold.f1,
    "best_f1": lambda r: r.f1_best.f1 if r.f1_best else None,
}


def evaluate_grouped(
    y: ArrayLike,
    p: ArrayLike,
    groups: Sequence[object] | None = None,
    *,
    by: str | None = None,
    threshold: float = 0.5,
    n_bins: int = 10,
    ci: bool = False,
    clusters: Sequence[object] | None = None,
    n_boot: int = 1000,
    seed: int = 0,
) -> GroupedReport:
    """:func:`evaluate` on all rows, on each group's rows, and the macro mean over groups.

    With ``ci`` every report gets a bootstrap AUROC interval, resampling ``clusters`` (e.g. source
    ids) when given, else rows.
    """
    yy, pp = _check(y, p)
    if clusters is not None and len(clusters) != yy.size:
        raise ValueError(f"clusters has {len(clusters)} entries but there are {yy.size} rows")
    cl = None if clusters is None else np.asarray([str(c) for c in clusters])

    def one(mask: NDArray[np.bool_]) -> MetricReport:
        sub = None if cl is None else cl[mask].tolist()
        return evaluate(
            yy[mask],
            pp[mask],
            threshold=threshold,
            n_bins=n_bins,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
            groups=sub,
        )

    pooled = one(np.ones(yy.size, dtype=bool))
    per: dict[str, MetricReport] = {}
    if groups is not None:
        if len(groups) != yy.size:
            raise ValueError(f"group column has {len(groups)} entries but there are {yy.size} rows")
        keys = np.asarray([str(g) for g in groups])
        for g in sorted(set(keys.tolist())):
            per[g] = one(keys == g)
    macro: dict[str, float | None] = {}
    for name, get in _MACRO_FIELDS.items():
        vals = [v for v in (get(r) for r in per.values()) if v is not None]
        macro[name] = float(np.mean(vals)) if vals else None
    return GroupedReport(by=by, pooled=pooled, groups=per, macro=macro)
