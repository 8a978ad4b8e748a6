"""Few-label recalibration: adapt a fitted model to one domain with 25-500 labeled rows, claiming only
what those labels can carry.

    model = adapt_model(load_model("base.json"), read_scored("labeled.jsonl"), domain="support")

A few dozen labels cannot refit a model's weights, but they can measure how the base model's score
maps to this domain's probability: its **level** (the base rate) and its **slope** (how far apart
faithful and hallucinated answers really are here). So the base model is kept whole and an
:class:`~trustscore.fusion._adaptation.Adaptation` is added to it:

    P = sigmoid(level + slope * logit(P_base))

fitted by maximum a posteriori logistic regression with a Gaussian prior centred on no change
(``level`` 0 with precision :data:`LEVEL_PRIOR`, ``slope`` 1 with precision :data:`SLOPE_PRIOR`): the
level follows the labels readily, the slope as far as they support it. A calibrator file holds one
adaptation per domain name; adapting again under the same name replaces it.

The adaptation claims calibrated only when the labeled rows carry it:

1. at least :data:`CLAIM_ROWS` rows;
2. the signals rank these rows: the one-sided 95% lower bound of the base score's AUROC on them
   (Hanley & McNeil 1982) is above 0.5. At chance the honest calibrated score is the base rate with no
   spread, and a spread of scores that carries no information must not be passed off as probabilities;
3. the level and slope are known well enough: over :data:`BOOTSTRAP` refits on resampled labeled rows,
   the 90th percentile of the mean |P_refit - P| over the rows is within :data:`CLAIM_GAP` (half the
   promise's ECE limit of 0.10; the other half is left to what two parameters cannot shape).

Otherwise the adaptation still maps the score (it ranks as the base does) and its reason says how many
more labels would make a claim possible (both criteria scale as 1/sqrt(n)). Every adapted result also
carries a 90% interval from the bootstrap covariance of level and slope.

The adaptation records the ranges its rows spanned, widened by a margin (:data:`FEATURE_MARGIN` of each
feature's span; lengths in words by a factor :data:`LENGTH_FACTOR` either way) and their task kinds: a
sample beyond them is not claimed (``trustscore.fusion._adaptation``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from trustscore._errors import CalibratorError
from trustscore.fusion._adaptation import Adaptation, Range
from trustscore.fusion._domain import LENGTHS, lengths_of
from trustscore.fusion._model import FORMAT_VERSION, FusionModel, LabelPolarity
from trustscore.rows._scored import ScoredRow, label_column, trust_target
from trustscore.stats._logistic import sigmoid

__all__ = [
    "BOOTSTRAP",
    "CLAIM_GAP",
    "CLAIM_ROWS",
    "LEVEL_PRIOR",
    "SLOPE_PRIOR",
    "adapt_model",
    "auroc_bound",
    "map_logistic",
]

LEVEL_PRIOR = 0.5
"""Precision of the prior on the level around 0 (weak: sd ~1.4 in log-odds)."""
SLOPE_PRIOR = 2.0
"""Precision of the prior on the slope around 1 (sd ~0.7)."""
MIN_ROWS = 10
CLAIM_ROWS = 25
"""Fewest labeled rows whose adaptation may claim calibrated."""
CLAIM_GROUPS = 10
"""Fewest distinct groups (documents) the labeled rows may come from for a claim: with fewer, the
bootstrap over them cannot say how the domain's other documents differ."""
CLAIM_GAP = 0.05
"""Largest bootstrap 90th percentile of the mean |P_refit - P| an adaptation may claim with."""
BOOTSTRAP = 400
"""Refits on resampled labeled rows behind the covariance, the gap and the interval."""
FEATURE_MARGIN = 0.25
LENGTH_FACTOR = 2.0
_Z95 = 1.6448536269514722  # one-sided 95%
_COMMAND = "`trustscore calibrate LABELED.jsonl --adapt ...`"


def map_logistic(
    x: NDArray[np.float64],
    t: NDArray[np.float64],
    w0: NDArray[np.float64],
    b0: float,
    *,
    coef_prior: float,
    intercept_prior: float,
    max_iter: int = 100,
) -> tuple[NDArray[np.float64], float]:
    """Newton's method for logistic regression under a Gaussian prior centred on ``(w0, b0)``:

    minimise  sum_i logloss(t_i, x_i . w + b) + coef_prior/2 ||w - w0||^2 + intercept_prior/2 (b - b0)^2
    """
    n, k = x.shape
    a = np.hstack([x, np.ones((n, 1))])
    prec = np.array([coef_prior] * k + [intercept_prior], dtype=np.float64)
    centre = np.append(w0, b0)

    def loss(b: NDArray[np.float64]) -> float:
        z = a @ b
        return float(np.sum(np.logaddexp(0.0, z) - t * z) + 0.5 * np.sum(prec * (b - centre) ** 2))

    beta = centre.copy()
    current = loss(beta)
    for _ in range(max_iter):
        p = sigmoid(a @ beta)
        grad = a.T @ (p - t) + prec * (beta - centre)
        hess = (a * (p * (1 - p))[:, None]).T @ a + np.diag(prec) + 1e-12 * np.eye(k + 1)
        step = np.linalg.solve(hess, grad)
        # Backtrack: a full Newton step can overshoot on nearly separable rows (the loss is convex).
        scale = 1.0
        while scale > 1e-6 and loss(beta - scale * step) > current:
            scale /= 2
        beta -= scale * step
        current = loss(beta)
        if np.max(np.abs(scale * step)) < 1e-10:
            break
    return beta[:-1].copy(), float(beta[-1])


def _level_slope(eta: NDArray[np.float64], t: NDArray[np.float64]) -> tuple[float, float]:
    w, b = map_logistic(eta[:, None], t, np.ones(1), 0.0, coef_prior=SLOPE_PRIOR, intercept_prior=LEVEL_PRIOR)
    return b, float(w[0])


def auroc_bound(t: NDArray[np.float64], score: NDArray[np.float64]) -> tuple[float, float, float] | None:
    """(AUROC, its standard error, one-sided 95% lower bound) of ``score`` for the 0/1 target ``t``
    (Hanley & McNeil 1982); None when ``t`` holds one class only. The bound is an AUROC too: never
    below 0, where a near-chance AUROC on few rows would put it."""
    pos, neg = score[t == 1], score[t == 0]
    if pos.size == 0 or neg.size == 0:
        return None
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    a = float(wins / (pos.size * neg.size))
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    n1, n0 = pos.size, neg.size
    var = (a * (1 - a) + (n1 - 1) * (q1 - a * a) + (n0 - 1) * (q2 - a * a)) / (n1 * n0)
    se = math.sqrt(max(var, 1e-12))
    return a, se, max(0.0, a - _Z95 * se)


def _round_up(n: float) -> int:
    return int(5 * math.ceil(n / 5))


def _claim_reason(
    n: int,
    groups: tuple[str, int] | None,
    trust_share: float,
    auc: tuple[float, float, float] | None,
    gap: float,
) -> str | None:
    """None when the labels carry a calibrated claim; else why not and how many labels would."""
    again = f"label more rows of this data and adapt again ({_COMMAND})"
    if auc is None:
        kind = "trustworthy" if trust_share == 1 else "hallucinated"
        return (
            f"all {n} labeled rows are {kind}: they say nothing about how the score separates the two; "
            f"label rows of both kinds and adapt again ({_COMMAND})"
        )
    a, se, low = auc
    needs = [float(CLAIM_ROWS), n * (gap / CLAIM_GAP) ** 2]
    if a > 0.5:
        needs.append(n * (_Z95 * se / (a - 0.5)) ** 2)
    more = _round_up(max(needs) - n) if a > 0.5 else None
    how = (
        f"about {more} more labeled rows of this data would make a claim possible; " + again
        if more
        else again
    )
    if low <= 0.5:
        if a <= 0.5:
            how = "more labels will not help while the signals do not rank this data"
        return (
            f"on these {n} labeled rows the signals do not show that they rank (AUROC {a:.2f}, 95% lower "
            f"bound {low:.2f}): the honest probability here is the share of trustworthy rows, "
            f"{trust_share:.2f}, with no spread, so no score is claimed calibrated; {how}"
        )
    if n < CLAIM_ROWS:
        return f"adapted on {n} labeled rows; a calibrated claim needs {CLAIM_ROWS} or more: {how}"
    if groups is not None and groups[1] < CLAIM_GROUPS:
        return (
            f"the {n} labeled rows come from {groups[1]} values of `{groups[0]}`; rows of one document are "
            f"alike, so a calibrated claim needs rows from {CLAIM_GROUPS} or more: {again}"
        )
    if gap > CLAIM_GAP:
        return (
            f"the level and slope {n} labeled rows fit are uncertain by up to {gap:.3f} in probability "
            f"(bootstrap 90th percentile), above the {CLAIM_GAP:g} a calibrated claim allows: {how}"
        )
    return None


def _ranges(rows: Sequence[ScoredRow], keys: Sequence[str], raw: NDArray[np.float64]) -> list[Range]:
    out: list[Range] = []
    for j, key in enumerate(keys):
        col = raw[:, j][~np.isnan(raw[:, j])]
        if col.size:
            lo, hi = float(col.min()), float(col.max())
            pad = FEATURE_MARGIN * (hi - lo)
            out.append(Range(name=key, low=lo - pad, high=hi + pad))
    lengths = [lengths_of(r.fields, [s.raw for s in r.signals.values()]) for r in rows]
    for k in LENGTHS:
        seen = [v for v in (row[k] for row in lengths) if v is not None]
        if seen:
            out.append(Range(name=k, low=min(seen) / LENGTH_FACTOR, high=max(seen) * LENGTH_FACTOR))
    return out


def _resamples(
    rows: Sequence[ScoredRow], group: str | None, seed: int
) -> tuple[list[NDArray[np.int64]], int | None]:
    """:data:`BOOTSTRAP` index sets drawn with replacement (whole groups, or rows one by one), and the
    number of groups (None: rows one by one)."""
    rng = np.random.default_rng(seed)
    keys = [r.fields.get(group) for r in rows] if group is not None else []
    if not keys or any(k is None for k in keys):
        return [rng.integers(0, len(rows), len(rows)) for _ in range(BOOTSTRAP)], None
    members: dict[str, list[int]] = {}
    for i, k in enumerate(keys):
        members.setdefault(str(k), []).append(i)
    blocks = [np.asarray(v, dtype=np.int64) for v in members.values()]
    draws = rng.integers(0, len(blocks), (BOOTSTRAP, len(blocks)))
    return [np.concatenate([blocks[j] for j in draw]) for draw in draws], len(blocks)


def adapt_model(
    base: FusionModel,
    rows: Sequence[ScoredRow],
    *,
    label: str = "hallucinated",
    label_means: LabelPolarity = "untrustworthy",
    domain: str | None = None,
    task_kinds: Sequence[str] | None = None,
    group: str | None = "source_id",
    name: str | None = None,
    data_name: str = "adaptation rows",
    seed: int = 0,
) -> FusionModel:
    """``base`` with an adaptation to ``rows`` (see the module docstring) under the name ``domain``.

    ``task_kinds`` are the kinds of the labeled rows (``trustscore.fusion._task_kind``), None when
    unknown. The bootstrap resamples whole values of the ``group`` column (rows of one document are
    alike, so resampling them one by one would understate the uncertainty); rows one by one when
    ``group`` is None or some row lacks it. An adaptation of ``base`` under the same ``domain`` is
    replaced; others are kept.
    """
    if base.post_hoc is not None:
        raise CalibratorError(
            f"calibrator {base.name!r} has a post-hoc calibrator; adapt a model fitted without --post-hoc"
        )
    labels = label_column(rows, label)
    raw = base.raw_matrix([r.signals for r in rows])
    keep = np.flatnonzero(~np.isnan(raw).all(axis=1))
    if keep.size < MIN_ROWS:
        raise ValueError(
            f"only {keep.size} labeled rows carry the features of {base.name!r} "
            f"({', '.join(f.spec.key for f in base.features)}); adapting needs at least {MIN_ROWS}"
        )
    raw_k = raw[keep]
    t = trust_target(labels[keep], label_means)
    p_base = np.clip(base.predict_raw(raw_k), 1e-9, 1 - 1e-9)
    eta = np.log(p_base) - np.log1p(-p_base)
    level, slope = _level_slope(eta, t)
    kept_rows = [rows[i] for i in keep.tolist()]
    resamples, n_groups = _resamples(kept_rows, group, seed)
    boot = np.array([_level_slope(eta[i], t[i]) for i in resamples])
    cov = np.cov(boot.T)
    fitted = sigmoid(level + slope * eta)
    gaps = np.abs(sigmoid(boot[:, :1] + boot[:, 1:] * eta[None, :]) - fitted[None, :]).mean(axis=1)
    gap = float(np.percentile(gaps, 90))
    auc = auroc_bound(t, p_base)
    n = int(keep.size)
    share = float(t.mean())
    adaptation = Adaptation(
        domain=domain,
        data_name=data_name,
        n=n,
        trust_share=share,
        task_kinds=sorted(set(task_kinds)) if task_kinds is not None else None,
        ranges=_ranges(kept_rows, [f.spec.key for f in base.features], raw_k),
        level=level,
        slope=slope,
        covariance=((float(cov[0, 0]), float(cov[0, 1])), (float(cov[1, 0]), float(cov[1, 1]))),
        auroc=None if auc is None else auc[0],
        auroc_low=None if auc is None else auc[2],
        calibration_gap=gap,
        groups=n_groups,
        not_calibrated_reason=_claim_reason(
            n, None if n_groups is None or group is None else (group, n_groups), share, auc, gap
        ),
    )
    fields = {k: getattr(base, k) for k in FusionModel.model_fields if k != "content_sha256"}
    kept = [a for a in base.adaptations if a.domain != domain]
    fields.update(
        format_version=FORMAT_VERSION,
        name=name or base.name,
        adaptations=[*kept, adaptation],
    )
    return FusionModel.build(**fields)
