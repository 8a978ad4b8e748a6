"""Fitting a fusion model from scored rows: the library behind ``trustscore calibrate``.

    rows = read_scored("scored.jsonl")
    model, report = fit_calibrator(rows, label="hallucinated", group="source_id")
    save_model(model, "calibration/ragtruth.json")

Procedure (every split keeps a ``group`` whole):

1. Optional per-signal stacking: each value feature gets its own calibrator; the logistic regression
   is trained on that calibrator's *out-of-fold* outputs (inner grouped folds) so it never sees a
   calibrator's in-sample optimism; the calibrator kept in the model is refitted on all rows.
2. The L2 logistic regression over standardised features and missing indicators
   (see :mod:`trustscore.fusion._model` for the missing-signal rule).
   With ``monotone`` the value features' coefficients are kept non-negative.
3. Optional post-hoc calibration of the fused probability on a separate grouped split
   (``post_hoc_fraction`` of the rows, which the regression does not see).
4. Held-out metrics: the whole procedure (1-3) is rerun in ``folds`` outer grouped folds; the
   out-of-fold predictions give AUROC, ECE, ..., and F1 at thresholds chosen on training folds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field

from trustscore._version import __version__
from trustscore.core._hashing import canonical_json, sha256_hex
from trustscore.fitting._evidence_fit import fit_evidence_lowering, intercept_matching_mean_evidence
from trustscore.fitting._strata import strata_columns, values_apart
from trustscore.fusion._domain import LENGTHS, CalibrationDomain, describe_domain, lengths_of
from trustscore.fusion._evidence import EvidenceTerm, evidence_factor, fired
from trustscore.fusion._features import FeatureSpec, apply_transform, parse_feature
from trustscore.fusion._maps import CalibratorKind, fit_calibrator_kind
from trustscore.fusion._model import (
    FittedFeature,
    FusionModel,
    HeldOutMetrics,
    LabelPolarity,
    TrainingSummary,
    design_matrix,
    linear_predict,
)
from trustscore.rows._scored import ScoredRow, group_column, label_column, trust_target
from trustscore.stats._cv import Fold, grouped_kfold, grouped_split, held_out_f1, out_of_fold
from trustscore.stats._logistic import fit_logistic, intercept_matching_mean
from trustscore.stats._metrics import evaluate_grouped

__all__ = [
    "FitOptions",
    "FitReport",
    "data_hash",
    "default_features",
    "domain_of",
    "fit_calibrator",
    "raw_features",
]


class FitOptions(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    l2: Annotated[float, Field(ge=0.0, allow_inf_nan=False)] = 1.0
    """Ridge strength on standardised features (scikit-learn's 1/C); the intercept is free."""
    stack: CalibratorKind | None = None
    """Per-signal calibrator for value features, fitted out of fold (None = use values directly)."""
    post_hoc: CalibratorKind | None = None
    post_hoc_fraction: Annotated[float, Field(gt=0.0, lt=1.0)] = 0.25
    folds: Annotated[int, Field(ge=2)] = 5
    """Outer folds for the held-out metrics (and inner folds for stacking)."""
    seed: int = 0
    intercept_by: str | None = None
    """A column (e.g. ``dataset``) whose every value gets its own intercept while the weights are fitted,
    ridge-shrunk towards a shared one like the weights. Pooling data sets with different base rates,
    a plain fit also learns which *data set* hallucinates more (a feature that differs between data sets
    gets weight for that alone, even a sign its effect has inside none of them); with an intercept per
    data set the weights learn only what separates faithful from hallucinated inside each. The model
    keeps one intercept, refitted with the weights fixed so the pooled rows stay calibrated."""
    monotone: bool = False
    """Keep every signal-value coefficient >= 0, so a better verdict from any judge can never lower
    the fused score (collinear judges otherwise can get negative weights). Raw features and missing
    indicators stay unconstrained: their direction is not known in advance."""
    intercept_without: tuple[str, ...] = ()
    """Values of ``intercept_by`` whose rows help fit the weights but not the pooled intercept (a set of
    made-up errors, such as corruptions of real sentences, whose share of errors is no one's base rate)."""
    values_without: tuple[str, ...] = ()
    """Values of ``intercept_by`` whose rows fit every weight but those of the signals' values: there
    each value feature gets a weight of its own, ridge-shrunk like the others and left out of the model.
    In a one-word corruption of a copied sentence the lexical and embedding values barely move, so rows
    like these teach the shared weights that overlap barely matters, which real data of that shape
    (one-sentence summaries) contradicts; the raw counts and shares, and the evidence terms, they fit."""
    evidence: tuple[str, ...] = ()
    """Keys of features (counts) that each also decide as an evidence term: where the count is above
    zero the score is multiplied by ``1 - precision``, the precision fitted with the weights
    (:mod:`trustscore.fusion._evidence`, :mod:`trustscore.fitting._evidence_fit`)."""


class FitReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    held_out: HeldOutMetrics
    coefficients: dict[str, float]
    """Coefficient per standardised feature ("missing:<signal>" for indicators)."""
    oof_trust: list[float | None]
    """Out-of-fold P(trustworthy) per input row (None where the row had no signal)."""
    rows_without_signals: int


def default_features(rows: Sequence[ScoredRow]) -> list[FeatureSpec]:
    """Every signal that has a value in some row, by name, logit-transformed."""
    names = sorted({n for r in rows for n, s in r.signals.items() if s.value is not None})
    if not names:
        raise ValueError("no row has any signal value: nothing to fit")
    return [FeatureSpec(signal=n) for n in names]


def raw_features(rows: Sequence[ScoredRow], specs: Sequence[FeatureSpec]) -> NDArray[np.float64]:
    """Rows x features of raw numbers, NaN where the signal is missing."""
    out = np.full((len(rows), len(specs)), np.nan)
    for i, r in enumerate(rows):
        for j, spec in enumerate(specs):
            v = spec.read(r.signals)
            if v is not None:
                out[i, j] = v
    return out


def _signal_versions(rows: Sequence[ScoredRow], specs: Sequence[FeatureSpec]) -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in dict.fromkeys(s.signal for s in specs):
        seen = {
            r.signals[name].version for r in rows if name in r.signals and r.signals[name].value is not None
        }
        if len(seen) > 1:
            raise ValueError(
                f"signal {name!r} comes in several versions in these rows ({sorted(map(str, seen))}); "
                "a calibrator is tied to one version: rescore with one, or filter the rows"
            )
        versions[name] = next(iter(seen)) if seen else None
    return versions


def _stacked_column(
    x: NDArray[np.float64], t: NDArray[np.float64], kind: CalibratorKind, folds: Sequence[Fold]
) -> NDArray[np.float64]:
    """Out-of-fold calibrated values of one column (NaN stays NaN)."""
    out = np.full(x.size, np.nan)
    for train, test in folds:
        tr = train[~np.isnan(x[train])]
        te = test[~np.isnan(x[test])]
        if te.size:
            out[te] = fit_calibrator_kind(kind, x[tr], t[tr]).predict(x[te])
    return out


def _fit_nonnegative(
    design: NDArray[np.float64], t: NDArray[np.float64], l2: float, constrained: Sequence[int]
) -> tuple[NDArray[np.float64], float]:
    """Logistic regression with the ``constrained`` coefficients kept >= 0.

    Active-set by elimination: refit without the most negative constrained column until none is
    negative; a dropped column keeps coefficient 0 (its feature stays in the model, unused).
    """
    active = np.ones(design.shape[1], dtype=bool)
    while True:
        coef = np.zeros(design.shape[1])
        if active.any():
            sub, intercept = fit_logistic(design[:, active], t, l2=l2)
            coef[active] = sub
        else:
            _, intercept = fit_logistic(np.zeros((t.size, 1)), t, l2=l2)
        negative = [j for j in constrained if coef[j] < 0]
        if not negative:
            return coef, intercept
        active[min(negative, key=lambda j: coef[j])] = False


def _fit_linear(fit: _FitRows, specs: Sequence[FeatureSpec], opts: FitOptions) -> dict[str, Any]:
    """Features, indicators, coefficients and intercept fitted on all of these rows."""
    raw, t, groups = fit.raw, fit.trust, fit.groups
    inner = grouped_kfold(groups, min(opts.folds, len(set(groups))), seed=opts.seed + 1) if opts.stack else []
    fitted: list[FittedFeature] = []
    columns: list[NDArray[np.float64]] = []
    for j, spec in enumerate(specs):
        x = raw[:, j]
        present = ~np.isnan(x)
        if not present.any():
            raise ValueError(
                f"feature {spec.key!r} has no value in any training row; drop it from --features"
            )
        stack = None
        if opts.stack and spec.field == "value":
            try:
                stack = fit_calibrator_kind(opts.stack, x[present], t[present])
                x = _stacked_column(x, t, opts.stack, inner)
            except ValueError as e:
                raise ValueError(
                    f"feature {spec.key!r}: its {opts.stack} stacking calibrator cannot be fitted ({e}); "
                    "the rows where this signal has a value need both labels in every fold: "
                    "drop --stack or this feature"
                ) from None
        bounds = (float(np.nanmin(x)), float(np.nanmax(x))) if spec.transform == "clip" else None
        tx = apply_transform(spec.transform, x, bounds)
        center = float(np.nanmean(tx))
        std = float(np.nanstd(tx))
        scale = std if std > 1e-12 else 1.0
        fitted.append(FittedFeature(spec=spec, center=center, scale=scale, bounds=bounds, stack=stack))
        columns.append((tx - center) / scale)
    z = np.column_stack(columns)
    missing = np.isnan(z)
    signal_of = [s.signal for s in specs]
    indicators = [name for name in dict.fromkeys(signal_of) if missing[:, signal_of.index(name)].any()]
    design = design_matrix(z, signal_of, indicators)
    per_stratum = strata_columns(fit.strata, design.shape[0])
    widened = np.hstack([design, per_stratum, values_apart(design, specs, fit.strata, opts.values_without)])
    evidence: list[EvidenceTerm] = []
    if opts.evidence:
        keys = [spec.key for spec in specs]
        counts = [keys.index(k) for k in opts.evidence]
        coef, intercept, precisions = fit_evidence_lowering(
            widened, t, fired(raw[:, counts]), counts, opts.l2
        )
        evidence = [
            EvidenceTerm(feature=k, precision=float(p))
            for k, p in zip(opts.evidence, precisions, strict=True)
        ]
    elif opts.monotone:
        value_cols = [j for j, spec in enumerate(specs) if spec.field == "value"]
        coef, intercept = _fit_nonnegative(widened, t, opts.l2, value_cols)
    else:
        coef, intercept = fit_logistic(widened, t, l2=opts.l2)
    coef = coef[: design.shape[1]]
    if per_stratum.shape[1]:
        level = np.array([s not in opts.intercept_without for s in fit.strata or []], dtype=bool)
        if evidence:
            factor = evidence_factor(evidence, [spec.key for spec in specs], raw)
            intercept = intercept_matching_mean_evidence((design @ coef)[level], factor[level], t[level])
        else:
            intercept = intercept_matching_mean((design @ coef)[level], t[level])
    return {
        "features": fitted,
        "indicators": indicators,
        "coef": coef.tolist(),
        "intercept": intercept,
        "evidence": evidence,
    }


def _fit_all(fit: _FitRows, specs: Sequence[FeatureSpec], opts: FitOptions) -> dict[str, Any]:
    """Steps 1-3 of the module docstring on these rows."""
    if fit.trust.min() == fit.trust.max():
        raise ValueError("the training rows hold only one label value: a calibrator needs both")
    if opts.post_hoc is None:
        return {**_fit_linear(fit, specs, opts), "post_hoc": None, "post_hoc_rows": 0}
    fit_rows, cal_rows = grouped_split(fit.groups, opts.post_hoc_fraction, seed=opts.seed + 2)
    params = _fit_linear(fit.take(fit_rows), specs, opts)
    p_cal = linear_predict(
        params["features"],
        params["indicators"],
        params["coef"],
        params["intercept"],
        None,
        fit.raw[cal_rows],
        params["evidence"],
    )
    ok = ~np.isnan(p_cal)
    post_hoc = fit_calibrator_kind(opts.post_hoc, p_cal[ok], fit.trust[cal_rows][ok])
    return {**params, "post_hoc": post_hoc, "post_hoc_rows": int(ok.sum())}


def _predict(params: dict[str, Any], raw: NDArray[np.float64]) -> NDArray[np.float64]:
    return linear_predict(
        params["features"],
        params["indicators"],
        params["coef"],
        params["intercept"],
        params["post_hoc"],
        raw,
        params["evidence"],
    )


def data_hash(rows: Sequence[ScoredRow], labels: NDArray[np.float64], raw: NDArray[np.float64]) -> str:
    payload = {
        "ids": [r.id for r in rows],
        "labels": labels.astype(int).tolist(),
        "features": [[None if np.isnan(v) else float(v) for v in row] for row in raw],
    }
    return sha256_hex(canonical_json(payload))


def domain_of(
    rows: Sequence[ScoredRow],
    specs: Sequence[FeatureSpec],
    raw: NDArray[np.float64],
    trust: NDArray[np.float64],
    data_name: str,
    data_sha256: str,
) -> CalibrationDomain:
    """The calibration domain of these rows: their feature numbers and lengths in words."""
    columns = {spec.key: raw[:, j] for j, spec in enumerate(specs)}
    lengths = [lengths_of(r.fields, [s.raw for s in r.signals.values()]) for r in rows]
    for k in LENGTHS:
        columns[k] = np.array([np.nan if row[k] is None else row[k] for row in lengths], dtype=np.float64)
    return describe_domain(columns, trust, data_name=data_name, data_sha256=data_sha256)


def fit_calibrator(
    rows: Sequence[ScoredRow],
    *,
    label: str,
    label_means: LabelPolarity = "untrustworthy",
    group: str | None = "source_id",
    features: Sequence[str | FeatureSpec] | None = None,
    by: str | None = None,
    name: str = "fused",
    options: FitOptions | None = None,
    data_name: str | None = None,
) -> tuple[FusionModel, FitReport]:
    """Fit a :class:`FusionModel` on scored rows and measure it by grouped cross-validation.

    ``label`` names the 0/1 column; ``label_means`` says what its 1 means (``hallucinated`` -> 1 =
    untrustworthy). The model always predicts P(trustworthy); its held-out metrics are stated in the
    label's own polarity (positive class = label 1). ``group`` keeps rows sharing a value (a source
    document) on one side of every split (``None``: every row is its own group). ``by`` adds
    per-group metrics (e.g. ``task``). ``features`` defaults to every signal's value.
    ``data_name`` (default: ``name``) names the calibration data in the model's recorded domain.
    """
    opts = options or FitOptions()
    specs = [
        f if isinstance(f, FeatureSpec) else parse_feature(f) for f in (features or default_features(rows))
    ]
    unknown = sorted(set(opts.evidence) - {spec.key for spec in specs})
    if unknown:
        raise ValueError(f"evidence {unknown} must name features of the fit ({[s.key for s in specs]})")
    if opts.values_without and not opts.intercept_by:
        raise ValueError("values_without names values of intercept_by: set intercept_by too")
    if opts.evidence and opts.monotone:
        raise ValueError("monotone and evidence cannot be combined: fit one or the other")
    labels = label_column(rows, label)
    groups = group_column(rows, group) if group else [str(i) for i in range(len(rows))]
    raw = raw_features(rows, specs)
    versions = _signal_versions(rows, specs)
    fit = _rows_with_signals(rows, raw, labels, groups, label_means, opts)
    oof_trust, held_out = _cross_validate(fit, specs, opts, by=by, group=group, label=label)
    params = _fit_all(fit, specs, opts)
    data_sha256 = data_hash(fit.rows, fit.labels, fit.raw)
    model = FusionModel.build(
        name=name,
        features=params["features"],
        signal_versions=versions,
        indicators=params["indicators"],
        coef=params["coef"],
        intercept=params["intercept"],
        evidence=params["evidence"],
        post_hoc=params["post_hoc"],
        training=TrainingSummary(
            n=int(fit.keep.size),
            label=label,
            label_means=label_means,
            positive_rate=float(fit.labels.mean()),
            data_sha256=data_sha256,
            group=group,
            l2=opts.l2,
            post_hoc_rows=params["post_hoc_rows"],
            intercept_by=opts.intercept_by,
            trustscore_version=__version__,
        ),
        held_out=held_out,
        domain=domain_of(fit.rows, specs, fit.raw, fit.trust, data_name or name, data_sha256),
    )
    return model, _fit_report(model, held_out, fit.keep, oof_trust, len(rows))


def _fit_report(
    model: FusionModel,
    held_out: HeldOutMetrics,
    keep: NDArray[np.int64],
    oof_trust: NDArray[np.float64],
    n_rows: int,
) -> FitReport:
    names = [f.spec.key for f in model.features] + [f"missing:{n}" for n in model.indicators]
    oof_full: list[float | None] = [None] * n_rows
    for i, p in zip(keep.tolist(), oof_trust.tolist(), strict=True):
        oof_full[i] = p
    return FitReport(
        held_out=held_out,
        coefficients=dict(zip(names, model.coef, strict=True)),
        oof_trust=oof_full,
        rows_without_signals=int(n_rows - keep.size),
    )


@dataclass(frozen=True)
class _FitRows:
    """The rows that carry at least one feature (``keep``: their indices), which every step fits on."""

    keep: NDArray[np.int64]
    rows: list[ScoredRow]
    raw: NDArray[np.float64]
    labels: NDArray[np.float64]
    label_means: LabelPolarity
    trust: NDArray[np.float64]
    groups: list[str]
    strata: list[str] | None

    def take(self, idx: NDArray[np.int64]) -> _FitRows:
        """These rows at positions ``idx``."""
        return _FitRows(
            keep=self.keep[idx],
            rows=[self.rows[i] for i in idx],
            raw=self.raw[idx],
            labels=self.labels[idx],
            label_means=self.label_means,
            trust=self.trust[idx],
            groups=[self.groups[i] for i in idx],
            strata=None if self.strata is None else [self.strata[i] for i in idx],
        )


def _rows_with_signals(
    rows: Sequence[ScoredRow],
    raw: NDArray[np.float64],
    labels: NDArray[np.float64],
    groups: list[str],
    label_means: LabelPolarity,
    opts: FitOptions,
) -> _FitRows:
    """Leave out the rows without any feature; refused when too few are left for the folds."""
    has_signal = ~np.isnan(raw).all(axis=1)
    if has_signal.sum() < 2 * opts.folds:
        raise ValueError(
            f"only {int(has_signal.sum())} rows carry any of the features: too few for {opts.folds}-fold "
            "cross-validation (need at least 2 rows per fold)"
        )
    keep = np.flatnonzero(has_signal)
    kept = [rows[i] for i in keep.tolist()]
    return _FitRows(
        keep=keep,
        rows=kept,
        raw=raw[keep],
        labels=labels[keep],
        label_means=label_means,
        trust=trust_target(labels[keep], label_means),
        groups=[groups[i] for i in keep],
        strata=group_column(kept, opts.intercept_by) if opts.intercept_by else None,
    )


def _cross_validate(
    fit: _FitRows,
    specs: Sequence[FeatureSpec],
    opts: FitOptions,
    *,
    by: str | None,
    group: str | None,
    label: str,
) -> tuple[NDArray[np.float64], HeldOutMetrics]:
    """Rerun the whole fit in ``folds`` outer grouped folds: the out-of-fold P(trustworthy) and the
    held-out metrics in the label's polarity (F1 at thresholds chosen on the training folds)."""
    folds = grouped_kfold(fit.groups, opts.folds, seed=opts.seed)
    in_sample: list[NDArray[np.float64]] = []

    def fit_predict(train: NDArray[np.int64], test: NDArray[np.int64]) -> NDArray[np.float64]:
        params = _fit_all(fit.take(train), specs, opts)
        in_sample.append(_predict(params, fit.raw[train]))
        return _predict(params, fit.raw[test])

    oof_trust = out_of_fold(fit_predict, folds, fit.keep.size)
    to_label = (lambda p: 1.0 - p) if fit.label_means == "untrustworthy" else (lambda p: p)
    p_label = to_label(oof_trust)
    by_values = group_column(fit.rows, by) if by else None
    report = evaluate_grouped(fit.labels, p_label, by_values, by=by)
    f1_held, _ = held_out_f1(fit.labels, [to_label(p) for p in in_sample], p_label, folds)
    held_out = HeldOutMetrics(
        folds=opts.folds,
        group=group,
        label=label,
        label_means=fit.label_means,
        report=report,
        f1_threshold_from_training_folds=f1_held,
    )
    return oof_trust, held_out
