"""Configuration of the fast CPU grounding signals (embedding grounding, lexical support)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["GroundingConfig"]


class GroundingConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    lexical: bool = True
    embedding: bool = True
    embedding_model: Path | None = Field(
        default=None,
        description="local sentence-embedding model directory; default: the bundled all-MiniLM-L6-v2",
    )
