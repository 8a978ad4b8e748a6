"""The Fuser contract (signals -> one score) and the default, uncalibrated combination."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from trustscore.types import Signal

__all__ = ["DefaultFuser", "FusedScore", "Fuser"]


class FusedScore(BaseModel):
    model_config = ConfigDict(frozen=True)

    score: float | None
    calibrated: bool
    used: list[str]
    """The signals that fed ``score``."""
    description: str
    """"default:mean" or "calibrator:<name>@<version>"."""


@runtime_checkable
class Fuser(Protocol):
    def predict(self, signals: Mapping[str, Signal]) -> FusedScore: ...


class DefaultFuser:
    """The uncalibrated default: the plain mean of the available signal values.

    Every signal is already oriented "higher = more trustworthy" in [0, 1], so the mean is a
    usable ranking score; it is *not* a probability (``calibrated=False``). Missing signals are
    left out, never counted as 0; with no signal at all the score is ``None``.
    """

    description = "default:mean"

    def predict(self, signals: Mapping[str, Signal]) -> FusedScore:
        used = [name for name, s in signals.items() if s.value is not None]
        if not used:
            return FusedScore(score=None, calibrated=False, used=[], description=self.description)
        values = [signals[n].value for n in used]
        score = sum(v for v in values if v is not None) / len(used)
        return FusedScore(score=score, calibrated=False, used=used, description=self.description)
