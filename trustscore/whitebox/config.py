"""Configuration of the local white-box model and its signals (ReDeEP, Self-Familiarity)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from trustscore.whitebox.familiarity_config import FamiliarityConfig
from trustscore.whitebox.redeep_config import RedeepConfig

__all__ = ["FamiliarityConfig", "RedeepConfig", "WhiteboxConfig"]


class WhiteboxConfig(BaseModel):
    """A local Hugging Face causal LM read from inside. Off unless ``model_path`` is set."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model_path: Path | None = Field(default=None, description="local directory of the generator model")
    device: str = "cpu"
    dtype: Literal["float32", "bfloat16", "float16"] = "float32"
    redeep: RedeepConfig = Field(default_factory=RedeepConfig)
    familiarity: FamiliarityConfig = Field(default_factory=FamiliarityConfig)
