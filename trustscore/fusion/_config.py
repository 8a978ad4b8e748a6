"""Configuration of score fusion."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["FusionConfig", "OnMissing"]

OnMissing = Literal["score", "none", "raise"]
"""What a degraded result (a signal that ran gave no value) returns: see ``FusionConfig.on_missing``."""


class FusionConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    calibrator: Path | None = Field(
        default=None,
        description="fitted calibrator JSON; relative paths are read from the config file's folder",
    )
    on_missing: OnMissing = Field(
        default="score",
        description=(
            "what a degraded result (a signal that ran has no value: failed, timed out, unavailable) "
            "returns: \"score\" fuses the signals that answered and marks it degraded = true; \"none\" "
            "returns score = null (degraded = true); \"raise\" raises DegradedScoreError naming the "
            "missing signals (in a batch: that sample's error)"
        ),
    )
