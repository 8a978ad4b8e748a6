"""The local generator model a white-box signal reads from inside: ``model_path``, ``device`` and
``dtype``, settings of ``[signals.redeep]`` and ``[signals.familiarity]`` alike (two sections that name
one model share it)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["WhiteboxModel"]


class WhiteboxModel(BaseModel):
    """The local Hugging Face causal LM a white-box signal reads from inside."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model_path: Path | None = Field(default=None, description="local directory of the generator model")
    device: str = "cpu"
    dtype: Literal["float32", "bfloat16", "float16"] = "float32"

