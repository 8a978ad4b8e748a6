"""Few-label recalibration: move a fitted model toward a new domain with 25-500 labeled rows.

    model = adapt_model(load_model("base.json"), read_scored("labeled.jsonl"), label="hallucinated")

A few dozen labels cannot refit a model, but they can say that the base rate differs and by how much
the evidence should be trusted here. So the base model's features, transforms and standardisation are
kept, and its coefficients are refitted by maximum a posteriori logistic regression with a Gaussian
prior *centred on the base model*:

    minimise  sum_i logloss(t_i, x_i . w + b)
              + coef_prior/2 ||w - w_base||^2 + intercept_prior/2 (b - b_base)^2

With few labels mostly the intercept moves (the prior on it is weak: a base-rate shift is what a
small sample measures best); as labels accumulate the coefficients follow the data. The defaults were
chosen before the benchmark (``benchmarks/multidomain.py --adapt`` reports ECE and AUROC against
25/50/100/200 labels per domain, held out).

Adapted on :data:`CLAIM_ROWS` labeled rows or more, the model claims calibrated on data like them (its
results say ``calibrated=True`` inside its domain); on fewer, it carries a ``not_calibrated_reason``.

The adapted model's domain is the union of the base domain and the new rows (lower quantiles the
smaller of the two, upper the larger): the model has now seen both.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from trustscore._version import __version__
from trustscore.errors import CalibratorError
from trustscore.fitting.calibrator import data_hash, domain_of
from trustscore.fusion.domain import CalibrationDomain, Dimension
from trustscore.fusion.model import FusionModel, LabelPolarity, TrainingSummary, design_matrix
from trustscore.rows.scored import ScoredRow, label_column, trust_target
from trustscore.stats.logistic import sigmoid

__all__ = ["CLAIM_ROWS", "COEF_PRIOR", "INTERCEPT_PRIOR", "adapt_model", "map_logistic"]

COEF_PRIOR = 20.0
"""Precision of the prior on each (standardised) coefficient around the base value."""
INTERCEPT_PRIOR = 0.5
"""Precision of the prior on the intercept around the base value (weak: sd ~1.4 in log-odds)."""
MIN_ROWS = 10
CLAIM_ROWS = 25
"""Fewest labeled rows whose adapted model claims calibrated: the smallest sample the per-domain
benchmark measured (``benchmarks/multidomain.py --adapt``). Adapted on fewer, the model ranks and its
results say how many labels to add."""


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
    """Newton's method for the MAP logistic regression above; returns ``(w, b)``."""
    n, k = x.shape
    a = np.hstack([x, np.ones((n, 1))])
    prec = np.array([coef_prior] * k + [intercept_prior], dtype=np.float64)
    centre = np.append(w0, b0)
    beta = centre.copy()
    for _ in range(max_iter):
        p = sigmoid(a @ beta)
        grad = a.T @ (p - t) + prec * (beta - centre)
        hess = (a * (p * (1 - p))[:, None]).T @ a + np.diag(prec) + 1e-12 * np.eye(k + 1)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return beta[:-1].copy(), float(beta[-1])


def _union(base: CalibrationDomain, new: CalibrationDomain, data_name: str) -> CalibrationDomain:
    by_name = {d.name: d for d in new.dimensions}
    half = base.probs.index(0.5)
    dims: list[Dimension] = []
    for d in base.dimensions:
        other = by_name.get(d.name)
        if other is None:
            dims.append(d)
            continue
        q = [
            min(a, b) if i < half else max(a, b) if i > half else b
            for i, (a, b) in enumerate(zip(d.quantiles, other.quantiles, strict=True))
        ]
        dims.append(Dimension(name=d.name, quantiles=q, present=d.present + other.present))
    return CalibrationDomain(
        data_name=f"{base.data_name} + {data_name}",
        data_sha256=new.data_sha256,
        n=base.n + new.n,
        base_rate=new.base_rate,
        probs=base.probs,
        dimensions=dims,
        tail=base.tail,
        in_sample_alarm_rate=base.in_sample_alarm_rate,
    )


def adapt_model(
    base: FusionModel,
    rows: Sequence[ScoredRow],
    *,
    label: str = "hallucinated",
    label_means: LabelPolarity = "untrustworthy",
    name: str | None = None,
    data_name: str = "adaptation rows",
    coef_prior: float = COEF_PRIOR,
    intercept_prior: float = INTERCEPT_PRIOR,
) -> FusionModel:
    """The base model refitted on ``rows`` under a prior centred on it (see the module docstring)."""
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
    raw_k, y_k = raw[keep], labels[keep]
    t_k = trust_target(y_k, label_means)
    z = np.column_stack([f.column(raw_k[:, j]) for j, f in enumerate(base.features)])
    x = design_matrix(z, [f.spec.signal for f in base.features], base.indicators)
    w, b = map_logistic(
        x,
        t_k,
        np.asarray(base.coef, dtype=np.float64),
        base.intercept,
        coef_prior=coef_prior,
        intercept_prior=intercept_prior,
    )
    kept_rows = [rows[i] for i in keep.tolist()]
    data_sha256 = data_hash(kept_rows, y_k, raw_k)
    domain = None
    if base.domain is not None:
        specs = [f.spec for f in base.features]
        new = domain_of(kept_rows, specs, raw_k, t_k, data_name, data_sha256)
        domain = _union(base.domain, new, data_name)
    return FusionModel.build(
        name=name or f"{base.name}.adapted",
        features=base.features,
        signal_versions=base.signal_versions,
        indicators=base.indicators,
        coef=[float(c) for c in w],
        intercept=b,
        post_hoc=None,
        training=TrainingSummary(
            n=int(keep.size),
            label=label,
            label_means=label_means,
            positive_rate=float(y_k.mean()),
            data_sha256=data_sha256,
            group=None,
            l2=coef_prior,
            trustscore_version=__version__,
        ),
        held_out=None,
        domain=domain,
        not_calibrated_reason=None
        if keep.size >= CLAIM_ROWS
        else (
            f"adapted on {keep.size} labeled rows; a calibrated claim needs {CLAIM_ROWS} or more: "
            "label more rows of your data and adapt again (`trustscore calibrate LABELED.jsonl --adapt`)"
        ),
    )
