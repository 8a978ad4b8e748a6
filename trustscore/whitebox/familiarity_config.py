"""Settings of the Self-Familiarity signal."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["FamiliarityConfig"]


class FamiliarityConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = False
