"""Configuration of score fusion."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["FusionConfig"]


class FusionConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    calibrator: Path | None = Field(
        default=None,
        description="fitted calibrator JSON; relative paths are read from the config file's folder",
    )
