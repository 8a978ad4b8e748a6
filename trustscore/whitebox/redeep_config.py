"""Settings of the ReDeEP signal."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["RedeepConfig"]


class RedeepConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = True
    profile: Path | None = Field(default=None, description="fitted ReDeEP profile (JSON) for this model")
