"""The Fuser contract (signals -> one score) and the default, uncalibrated combination (a weighted
log-odds pool)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from trustscore._types import DomainCheck, Sample, Signal

__all__ = [
    "CLIP",
    "OFFLINE_WEIGHT",
    "OTHER_WEIGHT",
    "AssessingFuser",
    "DefaultFuser",
    "FusedScore",
    "Fuser",
    "clip_score",
]


class FusedScore(BaseModel):
    model_config = ConfigDict(frozen=True)

    score: float | None
    calibrated: bool
    used: list[str]
    """The signals that fed ``score``."""
    description: str
    """"default:logodds" or "calibrator:<name>@<version>"."""
    not_calibrated_reason: str | None = None
    """Why ``calibrated`` is False, naming the fix (None when calibrated)."""
    interval: tuple[float, float] | None = None
    """90% interval of ``score`` from the uncertainty of an adaptation's level and slope (None when no
    adaptation made the score)."""


@runtime_checkable
class Fuser(Protocol):
    def predict(self, signals: Mapping[str, Signal]) -> FusedScore: ...


@runtime_checkable
class AssessingFuser(Fuser, Protocol):
    """A fuser that knows the sample: it picks its adaptation by the sample's domain and says whether the
    sample lies inside what it was calibrated on (None: nothing to say). Outside, the Scorer keeps the
    score but does not claim it calibrated."""

    def assess(
        self, sample: Sample, signals: Mapping[str, Signal]
    ) -> tuple[FusedScore, DomainCheck | None]: ...


class OfflineModel(Protocol):
    """What the default pool needs of a fitted offline model (a ``FusionModel``)."""

    @property
    def signal_versions(self) -> Mapping[str, str | None]: ...

    def linear_and_evidence(self, signals: Mapping[str, Signal]) -> tuple[float | None, float]: ...


OTHER_WEIGHT = 0.5
"""Weight of a signal the weights do not name."""
OFFLINE_WEIGHT = 1.0
"""Weight of the shipped offline model's voice in the pool beside a judge: a judge's weight. Swept on the
corruption pairs held out for fitting (0.25 to 4, ``benchmarks.quality.scripted_judges --offline-weights``,
docs/signals.md): the pool ranks above both the judge alone and the offline model alone in more judge
settings as the offline voice grows, but above 1.34 (= logit(0.95) / logit(0.9)) a confident judge's FAIL
(P(pass) 0.05) no longer puts under 0.5 an answer the offline model passes at 0.9, so a judge could not
flag what the offline checks miss. 1.0 is the heaviest weight swept below that line."""
CLIP = 0.01
"""Values are clipped into [CLIP, 1 - CLIP] before taking log-odds, so 0 and 1 stay finite; every fused
score a Scorer returns lies in that range too (:func:`clip_score`)."""


def clip_score(score: float | None) -> float | None:
    """``score`` clipped into [CLIP, 1 - CLIP] (None stays None): no fused score claims certainty,
    whichever fuser made it and however few signals fed it."""
    return None if score is None else min(1.0 - CLIP, max(CLIP, score))


class DefaultFuser:
    """The uncalibrated default: a weighted log-odds pool of the available signal values.

    ``score = sigmoid(sum_i w_i * logit(v_i) / sum_i w_i)`` over the present signals, with each
    value clipped into [0.01, 0.99] and per-signal weights: by default those the signals registered
    with (:func:`trustscore.signals.signal_weights`: judges 1, ReDeEP and the encoders 0.5, grounding
    and familiarity 0.25), :data:`OTHER_WEIGHT` for a name not registered. In log-odds a confident
    verdict is far from 0, so it is not averaged away the way a plain mean averages it: a judge at
    0.09 or lower keeps the score below 0.5 even when both default grounding signals say 1.0 (Lynx
    0.07 with lexical 1.0 and embedding 0.56 gives 0.285, where the plain mean gave 0.544). One
    signal alone gives its own value, clipped the same way. The result ranks; it is *not* a calibrated
    probability (``calibrated=False``): fit a calibrator for that. Missing signals are left out, never counted
    as 0; with no signal at all the score is ``None``.

    With ``offline`` (the shipped calibrator of the offline signals that run beside a judge), those
    signals enter the pool as one voice, the model's score as if no finding had fired, with
    ``offline_weight`` (:data:`OFFLINE_WEIGHT`; a benchmark sweeps it); then the factor by which the
    model's findings (a contradicted fact, a contradicted polarity: its evidence terms, their linear
    weights and their noisy-OR) multiply its own score multiplies the pooled score too. A contradiction
    pulls a judge's wrong pass down as it pulls the offline score down (the noisy-OR holds a finding
    independent of the other evidence, :mod:`trustscore.fusion._evidence`), instead of being averaged
    with the judge.
    """

    description = "default:logodds"
    not_calibrated_reason = (
        "the default fusion (a weighted log-odds pool of the signals) ranks but is not a probability: "
        "fit a calibrator on labeled rows with `trustscore calibrate`"
    )

    def __init__(
        self,
        weights: Mapping[str, float] | None = None,
        offline: OfflineModel | None = None,
        offline_weight: float = OFFLINE_WEIGHT,
    ) -> None:
        if weights is None:
            from trustscore.signals import signal_weights

            weights = signal_weights()
        if not offline_weight > 0:
            raise ValueError(f"offline_weight must be above 0, got {offline_weight}")
        self.weights = weights
        self.offline = offline
        self.offline_weight = offline_weight

    def _pooled_with_offline(self, signals: Mapping[str, Signal], used: list[str]) -> float | None:
        """The pool with the offline model as one voice and its evidence after (None: it has no say)."""
        assert self.offline is not None
        reads = set(self.offline.signal_versions)
        linear, factor = self.offline.linear_and_evidence({n: signals[n] for n in used if n in reads})
        if linear is None:
            return None
        voices = [
            (self.weights.get(n, OTHER_WEIGHT), float(signals[n].value or 0.0))
            for n in used
            if n not in reads
        ]
        voices.append((self.offline_weight, linear))
        return _pool(voices) * factor

    def predict(self, signals: Mapping[str, Signal]) -> FusedScore:
        used = [name for name, s in signals.items() if s.value is not None]
        if self.offline is not None and used:
            score = self._pooled_with_offline(signals, used)
            if score is not None:
                return FusedScore(
                    score=clip_score(score),
                    calibrated=False,
                    used=used,
                    description=self.description,
                    not_calibrated_reason=self.not_calibrated_reason,
                )
        if not used:
            return FusedScore(
                score=None,
                calibrated=False,
                used=[],
                description=self.description,
                not_calibrated_reason=self.not_calibrated_reason,
            )
        if len(used) == 1:
            return FusedScore(
                score=clip_score(signals[used[0]].value),
                calibrated=False,
                used=used,
                description=self.description,
                not_calibrated_reason=self.not_calibrated_reason,
            )
        score = _pool([(self.weights.get(n, OTHER_WEIGHT), float(signals[n].value or 0.0)) for n in used])
        return FusedScore(
            score=score,
            calibrated=False,
            used=used,
            description=self.description,
            not_calibrated_reason=self.not_calibrated_reason,
        )


def _pool(voices: list[tuple[float, float]]) -> float:
    """``sigmoid(sum w * logit(v) / sum w)`` over (weight, value) pairs, each value clipped into
    [CLIP, 1 - CLIP]."""
    total = pooled = 0.0
    for weight, raw in voices:
        value = min(1.0 - CLIP, max(CLIP, raw))
        pooled += weight * math.log(value / (1.0 - value))
        total += weight
    return 1.0 / (1.0 + math.exp(-pooled / total))
