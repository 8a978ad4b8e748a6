"""The fitted fusion model: a stacked L2 logistic regression over signal features, as a Fuser.

What it computes, for one sample (``P`` = P(trustworthy)):

1. each feature's number is read from its signal (:class:`~trustscore.fusion._features.FeatureSpec`);
   a value feature may first pass through its own per-signal calibrator (stacking);
2. it is transformed (logit / clip / identity) and standardised with the training mean and
   standard deviation;
3. ``P = sigmoid(intercept + coef . [features, missing indicators])``; with ``evidence`` terms, ``P`` is
   multiplied by ``1 - precision`` of each term that fires (a sure finding, such as a contradicted
   fact, decides whatever the overlap: :mod:`trustscore.fusion._evidence`); then an optional post-hoc
   calibrator (fitted on a held-out split) maps ``P``.

**Missing signals** (timed out, failed, or not run): each of their features is imputed with its
training mean (0 after standardisation), so the absent signal contributes its *average* evidence
instead of pulling the score towards 0 or 1. Signals that were missing in some training rows also get
a 0/1 "missing" indicator feature, whose coefficient learns how missingness itself moved the odds
(e.g. a judge that times out mostly on long, harder contexts). A signal never missing in training has
no indicator: its absence at predict time is pure mean imputation. ``used`` lists only the signals
that were present; with none present the score is ``None``.

The model is persisted as JSON (never pickle), validated on load, and guarded by a SHA-256 of its
own canonical content: an edited number with a stale hash is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field, model_validator

from trustscore._errors import CalibratorError, CalibratorMismatchError
from trustscore._types import DomainCheck, Sample, Signal
from trustscore.core._hashing import canonical_json, sha256_hex
from trustscore.fusion._adaptation import MAX_ROWS, Adaptation
from trustscore.fusion._domain import CalibrationDomain
from trustscore.fusion._evidence import EvidenceTerm, evidence_factor
from trustscore.fusion._features import FeatureSpec, apply_transform
from trustscore.fusion._fuser import FusedScore, clip_score
from trustscore.fusion._maps import Calibrator, check_parameters
from trustscore.fusion._sealed import build_sealed, check_seal, read_sealed
from trustscore.fusion._task_kind import task_kind
from trustscore.stats._logistic import sigmoid
from trustscore.stats._metrics import GroupedReport, ThresholdMetrics

__all__ = [
    "FORMAT_VERSION",
    "CalibratorError",
    "CalibratorMismatchError",
    "EvidenceTerm",
    "FittedFeature",
    "FusionModel",
    "HeldOutMetrics",
    "LabelPolarity",
    "TrainingSummary",
    "linear_predict",
]

FORMAT_VERSION = 2
"""The format of a file holding adaptations (``trustscore calibrate --adapt``); a file without any is
written as format 1, which earlier trustscore versions read too. Format 1 files written by an earlier
``--adapt`` (their adaptation was folded into the coefficients, and claimed calibrated on anything inside
the base model's domain) are refused with the command that adapts again."""

LabelPolarity = Literal["untrustworthy", "trustworthy"]
"""What label 1 means: ``untrustworthy`` (a column like ``hallucinated``) or ``trustworthy`` (``correct``)."""


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class FittedFeature(_Strict):
    spec: FeatureSpec
    center: float
    scale: float = Field(gt=1e-12)  # the fit uses 1.0 for a feature with no spread
    bounds: tuple[float, float] | None = None
    """Training (min, max) of the raw number, for the ``clip`` transform."""
    stack: Calibrator | None = None
    """Per-signal calibrator applied to the value before the transform (fitted out of fold)."""

    @model_validator(mode="after")
    def _consistent(self) -> FittedFeature:
        check_parameters(self)
        if self.spec.transform == "clip" and self.bounds is None:
            raise ValueError(f"feature {self.spec.key}: clip needs bounds")
        if self.stack is not None and self.spec.field != "value":
            raise ValueError(f"feature {self.spec.key}: only signal values can be stacked")
        return self

    def column(self, raw: NDArray[np.float64]) -> NDArray[np.float64]:
        """Raw numbers (NaN = missing) -> standardised feature (NaN kept)."""
        x = raw.astype(np.float64, copy=True)
        if self.stack is not None:
            present = ~np.isnan(x)
            if present.any():
                x[present] = self.stack.predict(x[present])
        return (apply_transform(self.spec.transform, x, self.bounds) - self.center) / self.scale


class TrainingSummary(_Strict):
    n: int = Field(ge=1, le=MAX_ROWS)
    label: str
    label_means: LabelPolarity
    positive_rate: float = Field(ge=0, le=1)
    """Share of rows with label 1 (in the label's own polarity)."""
    data_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    """Hash of the training rows' ids, labels and feature numbers."""
    group: str | None
    l2: float = Field(ge=0)
    post_hoc_rows: int = Field(default=0, ge=0)
    intercept_by: str | None = None
    """The column whose values each had their own intercept while the weights were fitted
    (``FitOptions.intercept_by``); None for one intercept throughout."""
    trustscore_version: str


class HeldOutMetrics(_Strict):
    """Grouped cross-validated metrics of the whole fitting procedure, in the label's polarity."""

    folds: int
    group: str | None
    label: str
    label_means: LabelPolarity
    report: GroupedReport
    f1_threshold_from_training_folds: ThresholdMetrics


def design_matrix(
    z: NDArray[np.float64], signal_of: Sequence[str], indicators: Sequence[str]
) -> NDArray[np.float64]:
    """Standardised features with missing values at 0 (the training mean), then one 0/1
    missing-indicator column per signal in ``indicators``: the same layout in fitting and predicting."""
    missing = np.isnan(z)
    design = np.where(missing, 0.0, z)
    columns = [missing[:, list(signal_of).index(name)].astype(np.float64) for name in indicators]
    return np.column_stack([design, *columns]) if columns else design


def linear_predict(
    features: Sequence[FittedFeature],
    indicators: Sequence[str],
    coef: Sequence[float],
    intercept: float,
    post_hoc: Calibrator | None,
    raw: NDArray[np.float64],
    evidence: Sequence[EvidenceTerm] = (),
) -> NDArray[np.float64]:
    """The model's arithmetic on a raw matrix (NaN = missing); NaN where no feature is present."""
    z = np.column_stack([f.column(raw[:, j]) for j, f in enumerate(features)])
    missing = np.isnan(z)
    design = design_matrix(z, [f.spec.signal for f in features], indicators)
    p = np.asarray(sigmoid(design @ np.asarray(coef, dtype=np.float64) + intercept), dtype=np.float64)
    if evidence:
        p = p * evidence_factor(evidence, [f.spec.key for f in features], raw)
    if post_hoc is not None:
        p = np.asarray(post_hoc.predict(p), dtype=np.float64)
    p[missing.all(axis=1)] = np.nan
    return p


_OLD_ADAPTED = " + "
"""How a format-1 adapted file's domain name joined the base's and the labeled rows' names."""


class FusionModel(_Strict):
    format_version: Literal[1, 2] = 1
    kind: Literal["stacked_lr"] = "stacked_lr"
    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$")
    features: list[FittedFeature] = Field(min_length=1)
    signal_versions: dict[str, str | None]
    """The signals the model reads and the ``Signal.version`` each was fitted with."""
    indicators: list[str] = Field(default_factory=list)
    """Signals with a missing indicator, in the order their coefficients follow the features'."""
    coef: list[float]
    intercept: float
    evidence: list[EvidenceTerm] = Field(default_factory=list)
    """Findings that decide (a noisy-OR over the linear score, :mod:`trustscore.fusion._evidence`), each
    reading one of ``features``; empty in a purely linear model."""
    post_hoc: Calibrator | None = None
    training: TrainingSummary
    held_out: HeldOutMetrics | None = None
    domain: CalibrationDomain | None = None
    """What the calibration data looked like (None in files fitted before domains were recorded)."""
    not_calibrated_reason: str | None = Field(default=None, min_length=1)
    """Set on a model whose probabilities hold only on data with its calibration data's base rate
    (a model fitted on a mixture of data sets, shipped for data it never saw): its scores rank, and
    every result says ``calibrated=False`` with this reason, which names the fix. None for a model
    fitted on the user's own data: its scores are claimed calibrated (inside its domain). With
    ``adaptations``, it applies to no sample: only an adaptation claims."""
    adaptations: list[Adaptation] = Field(default_factory=list)
    """Per domain, the level and slope refitted on the user's labeled rows (``trustscore.fitting._adapt``),
    what those rows looked like and whether they carry a calibrated claim. With any, a sample is claimed
    calibrated only by the adaptation of its own ``domain``, and only when it is like that adaptation's
    rows."""
    content_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")

    @model_validator(mode="after")
    def _consistent(self) -> FusionModel:
        check_parameters(self)
        keys = [f.spec.key for f in self.features]
        if len(set(keys)) != len(keys):
            raise ValueError(f"duplicate features: {keys}")
        needed = {f.spec.signal for f in self.features}
        if needed != set(self.signal_versions):
            raise ValueError(
                f"signal_versions names {sorted(self.signal_versions)} but the features read {sorted(needed)}"
            )
        if not set(self.indicators) <= needed or len(set(self.indicators)) != len(self.indicators):
            raise ValueError(f"indicators {self.indicators} must be distinct signals among {sorted(needed)}")
        if len(self.coef) != len(self.features) + len(self.indicators):
            raise ValueError(
                f"{len(self.coef)} coefficients for {len(self.features)} features + "
                f"{len(self.indicators)} indicators"
            )
        unknown = [t.feature for t in self.evidence if t.feature not in keys]
        if unknown:
            raise ValueError(f"evidence reads {unknown}, which are not among the features {keys}")
        names = [a.domain for a in self.adaptations]
        if len(set(names)) != len(names):
            raise ValueError(f"two adaptations share a domain name: {names}")
        if self.adaptations and self.format_version != FORMAT_VERSION:
            raise ValueError(f"a file with adaptations is format {FORMAT_VERSION}, not {self.format_version}")
        if not self.adaptations and self.format_version != 1:
            raise ValueError("a file without adaptations is format 1")
        if self.domain is not None and _OLD_ADAPTED in self.domain.data_name:
            raise ValueError(
                "this calibrator was adapted by an earlier trustscore, which claimed calibrated on inputs "
                "its labels never covered; adapt the base model again: `trustscore calibrate LABELED.jsonl "
                "--adapt -o mine.json`"
            )
        check_seal(self.content_sha256, self.compute_hash(self.model_dump(mode="json")))
        return self

    @staticmethod
    def compute_hash(data: Mapping[str, Any]) -> str:
        # Files from before ``domain`` / ``not_calibrated_reason`` / ``evidence`` existed lack the key:
        # their hash must not change.
        optional = ("domain", "not_calibrated_reason", "adaptations", "evidence")
        kept = {
            k: v for k, v in data.items() if k != "content_sha256" and not (k in optional and v in (None, []))
        }
        return sha256_hex(canonical_json(kept))

    @classmethod
    def build(cls, **fields: Any) -> FusionModel:
        """Construct from fields (no hash): the content hash is computed and checked here."""
        return build_sealed(cls, cls.compute_hash, fields)

    # --- persistence -------------------------------------------------------------------------

    def to_json(self) -> str:
        return self.model_dump_json(indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str, *, source: str = "calibrator") -> FusionModel:
        return read_sealed(cls, text, source=source, kind="calibrator")

    # --- prediction --------------------------------------------------------------------------

    @property
    def version(self) -> str:
        return self.content_sha256[:12]

    @property
    def description(self) -> str:
        return f"calibrator:{self.name}@{self.version}"

    def check_versions(self, versions: Mapping[str, str | None]) -> None:
        """Refuse signals produced by a different prompt/method version than the model was fitted on.

        ``versions`` maps signal name -> ``Signal.version``; names the model does not read are
        ignored, and so are signals the model was fitted without a version for.
        """
        for name, expected in self.signal_versions.items():
            if name in versions and expected is not None and versions[name] != expected:
                raise CalibratorMismatchError(
                    f"calibrator {self.name!r} was fitted on signal {name!r} version {expected!r} but got "
                    f"version {versions[name]!r}: the judge's prompt or method changed; refit the calibrator "
                    "(trustscore calibrate) on scores from this version"
                )

    def raw_matrix(self, rows: Sequence[Mapping[str, Signal]]) -> NDArray[np.float64]:
        """Rows x features of raw numbers, NaN where a signal is missing; checks versions."""
        out = np.full((len(rows), len(self.features)), np.nan)
        for i, signals in enumerate(rows):
            self.check_versions({n: s.version for n, s in signals.items() if s.value is not None})
            for j, f in enumerate(self.features):
                v = f.spec.read(signals)
                if v is not None:
                    out[i, j] = v
        return out

    def predict_raw(self, raw: NDArray[np.float64]) -> NDArray[np.float64]:
        """P(trustworthy) for a raw feature matrix (NaN = missing); NaN where nothing is present."""
        if raw.ndim != 2 or raw.shape[1] != len(self.features):
            raise CalibratorMismatchError(
                f"expected {len(self.features)} feature columns "
                f"({', '.join(f.spec.key for f in self.features)}), got shape {raw.shape}"
            )
        return linear_predict(
            self.features, self.indicators, self.coef, self.intercept, self.post_hoc, raw, self.evidence
        )

    def linear_and_evidence(self, signals: Mapping[str, Signal]) -> tuple[float | None, float]:
        """For one sample: P(trustworthy) as if no evidence term had fired (their counts read as 0;
        None where none of the features is present), and the factor the findings multiply it by in this
        model, their linear weights and their noisy-OR together (1.0 where none fired): the score is
        their product. The default pool with a judge reads them apart
        (:class:`~trustscore.fusion._fuser.DefaultFuser`): the judge is pooled with the first, and the
        findings weigh on the pooled score as they weigh here."""
        raw = self.raw_matrix([signals])
        keys = [f.spec.key for f in self.features]
        quiet = raw.copy()
        for term in self.evidence:
            j = keys.index(term.feature)
            if not np.isnan(quiet[0, j]):
                quiet[0, j] = 0.0
        base, full = float(self.predict_raw(quiet)[0]), float(self.predict_raw(raw)[0])
        if np.isnan(base):
            return None, 1.0
        return base, full / base

    def predict_adapted(self, raw: NDArray[np.float64], domain: str | None = None) -> NDArray[np.float64]:
        """:meth:`predict_raw` mapped by the adaptation of ``domain`` (the base score where there is none)."""
        found = self.adaptation_for(domain) if self.adaptations else None
        p = self.predict_raw(raw)
        return found.map(p) if isinstance(found, Adaptation) else p

    def ranking_only(self, reason: str) -> FusionModel:
        """This model, with its scores no longer claimed calibrated, for ``reason``."""
        data = {**self.model_dump(mode="json"), "not_calibrated_reason": reason}
        data["content_sha256"] = self.compute_hash(data)
        return FusionModel.model_validate(data)

    def predict(self, signals: Mapping[str, Signal]) -> FusedScore:
        """The :class:`~trustscore.fusion._fuser.Fuser` entry point: the base model's score. With
        adaptations, :meth:`assess` (which knows the sample) is what the Scorer calls."""
        raw = self.raw_matrix([signals])
        p = float(self.predict_raw(raw)[0])
        used = list(
            dict.fromkeys(f.spec.signal for j, f in enumerate(self.features) if not np.isnan(raw[0, j]))
        )
        return FusedScore(
            score=clip_score(p) if used else None,
            calibrated=self.not_calibrated_reason is None and not self.adaptations,
            used=used,
            description=self.description,
            not_calibrated_reason=self.not_calibrated_reason
            or (
                "an adapted calibrator claims only through the adaptation of a sample's domain"
                if self.adaptations
                else None
            ),
        )

    def adaptation_for(self, domain: str | None) -> Adaptation | str:
        """The adaptation for samples naming ``domain`` (None: naming none), or why there is none."""
        for a in self.adaptations:
            if a.domain == domain:
                return a
        names = ", ".join(repr(a.domain) for a in self.adaptations if a.domain is not None)
        if domain is None:
            return (
                f"{self.description} was adapted on named domains only ({names}) and this sample names "
                "none: set its `domain` (the JSONL field, or Sample(domain=...)) to the one it belongs to"
            )
        fix = (
            f"label rows of it and adapt with `trustscore calibrate LABELED.jsonl --adapt THIS.json "
            f"--domain {domain} -o THIS.json`"
        )
        if not names:
            return (
                f"{self.description} was adapted without a domain name, and this sample names domain "
                f"{domain!r}: {fix}"
            )
        return f"{self.description} holds no adaptation for domain {domain!r} (only {names}): {fix}"

    def assess(self, sample: Sample, signals: Mapping[str, Signal]) -> tuple[FusedScore, DomainCheck | None]:
        """The score of ``sample`` and whether it lies inside what this calibrator was calibrated on.

        Without adaptations: the base model's score and its calibration domain. With them: the score
        mapped by the adaptation of the sample's ``domain`` (with its 90% interval), checked against
        what that adaptation's labeled rows were; a sample no adaptation covers gets the base score,
        not claimed, with the reason.
        """
        fused = self.predict(signals)
        if fused.score is None:
            return fused, None
        if not self.adaptations:
            return fused, self.domain_check(sample, signals)
        found = self.adaptation_for(sample.domain)
        if isinstance(found, str):
            return fused.model_copy(update={"calibrated": False, "not_calibrated_reason": found}), None
        p, interval = found.apply(fused.score)
        reasons = found.outside(
            task_kind(sample.question, sample.context), self._domain_values(sample, signals)
        )
        return (
            FusedScore(
                score=p,
                calibrated=found.not_calibrated_reason is None,
                used=fused.used,
                description=self.description,
                not_calibrated_reason=found.not_calibrated_reason,
                interval=interval,
            ),
            DomainCheck(
                inside=not reasons, reasons=reasons, calibrator=f"{self.description} ({found.label})"
            ),
        )

    def _domain_values(self, sample: Sample, signals: Mapping[str, Signal]) -> dict[str, float | None]:
        values: dict[str, float | None] = {f.spec.key: f.spec.read(signals) for f in self.features}
        values["response_words"] = float(len(sample.response.split()))
        values["context_words"] = float(len(sample.context_text.split())) if sample.has_context else None
        return values

    def domain_check(self, sample: Sample, signals: Mapping[str, Signal]) -> DomainCheck | None:
        """Whether ``sample`` (with its ``signals``) lies inside the base model's calibration domain;
        None when this model has no recorded domain."""
        if self.domain is None:
            return None
        reasons = self.domain.check(self._domain_values(sample, signals))
        return DomainCheck(inside=not reasons, reasons=reasons, calibrator=self.description)
