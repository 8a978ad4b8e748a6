"""From the signals of one sample to its :class:`~trustscore._types.TrustScore`: fused, its calibration
claimed or not (and why), and what ``fusion.on_missing`` makes of a degraded one."""

from __future__ import annotations

from collections.abc import Sequence

from trustscore._errors import DegradedScoreError
from trustscore._types import CascadeStop, DomainCheck, Sample, Signal, TrustScore, Usage
from trustscore.fusion._fuser import AssessingFuser, FusedScore, Fuser, clip_score
from trustscore.scoring._reason import top_reason

__all__ = ["OUTSIDE_DOMAIN", "fused_result"]


OUTSIDE_DOMAIN = "outside the calibration domain"
"""How the reason not to claim calibrated starts for a sample outside its calibrator's domain."""


def _not_calibrated_reason(fused: FusedScore, domain: DomainCheck | None) -> str:
    if not fused.calibrated:
        return fused.not_calibrated_reason or f"{fused.description} gives no calibrated probability"
    assert domain is not None
    return f"{OUTSIDE_DOMAIN} of {domain.calibrator}: {'; '.join(domain.reasons)}"


def fused_result(
    sample: Sample,
    signals: dict[str, Signal],
    fuser: Fuser,
    *,
    incomplete: list[str],
    cascade: CascadeStop | None,
    seconds: float,
    on_missing: str,
    config_source: str,
    judges: Sequence[str],
) -> TrustScore:
    """The sample's result: ``signals`` fused; ``incomplete`` names the signals a rerun may answer.
    A signal that recognised an abstention marks the result abstained, not degraded."""
    # A fitted model knows the sample: its adaptation by the sample's domain, and whether the
    # sample lies inside what it was calibrated on; outside, the score stands but is not claimed.
    if isinstance(fuser, AssessingFuser):
        fused, domain = fuser.assess(sample, signals)
    else:
        fused, domain = fuser.predict(signals), None
    calibrated = fused.calibrated and (domain is None or domain.inside)
    score = clip_score(fused.score)
    result = TrustScore(
        score=score,
        calibrated=calibrated,
        reason=top_reason(score, signals, judges=judges, incomplete=incomplete),
        not_calibrated_reason=None if calibrated else _not_calibrated_reason(fused, domain),
        interval=fused.interval,
        domain=domain,
        signals=signals,
        used_signals=list(fused.used),
        fusion=fused.description,
        usage=Usage.total([s.usage for s in signals.values()]),
        seconds=seconds,
        complete=not incomplete,
        incomplete_signals=incomplete,
        sample_id=sample.id,
        cascade=cascade,
        degraded=any(signal.missing and not signal.abstention for signal in signals.values()),
        abstained=any(signal.abstention for signal in signals.values()),
        config_source=config_source,
    )
    return _on_missing(result, on_missing, judges)


def _on_missing(result: TrustScore, on_missing: str, judges: Sequence[str]) -> TrustScore:
    """What ``fusion.on_missing`` makes of a degraded result: the fused score of the signals that
    answered ("score"), no score ("none"), or a DegradedScoreError ("raise")."""
    if not result.degraded or on_missing == "score":
        return result
    if on_missing == "raise":
        raise DegradedScoreError(result.missing, result)
    missing = ", ".join(result.missing)
    return result.model_copy(
        update={
            "score": None,
            "reason": top_reason(None, result.signals, judges=judges, incomplete=result.incomplete_signals),
            "used_signals": [],
            "calibrated": False,
            "not_calibrated_reason": (
                f'no score: signal(s) {missing} gave no value and fusion.on_missing = "none"'
            ),
        }
    )
