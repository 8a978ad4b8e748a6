"""``[signals.redeep]``: the model the ReDeEP signal reads and how it runs.

What to read (heads A, layers F, token or chunk level, PKS units, top-k fraction) comes from the
fitted profile, so fitting and scoring always use one recipe; these settings only say how to run it.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from trustscore.signals import SignalConfig
from trustscore.whitebox._config import WhiteboxModel

__all__ = ["RedeepConfig"]


class RedeepConfig(SignalConfig, WhiteboxModel):
    """ReDeEP: how the response uses the retrieved context, read from the generator's attention and
    feed-forward layers (needs ``model_path`` and a fitted ``profile``)."""

    profile: Path | None = Field(default=None, description="fitted ReDeEP profile (JSON) for this model")
    system_prompt: str = Field(
        default="You are a helpful assistant.",
        description="system turn of the teacher-forced prompt (the ReDeEP code's); '' for none",
    )
    max_tokens: int = Field(
        default=8192, ge=8, description="longest prompt + response read; longer samples are reported missing"
    )
    batch_size: int = Field(
        default=8,
        ge=1,
        description="most samples in flight read in one forward pass (of similar length); 1 reads each alone",
    )
    position_chunk: int = Field(
        default=256, ge=1, description="response positions per logit-lens / attention block (bounds memory)"
    )
    chunk_chars: int = Field(
        default=512, ge=16, description="chunk level: longest response/context chunk in characters"
    )
    span_threshold: float = Field(
        default=0.5, ge=0.0, le=1.0, description="units with P(hallucination) at or above this become spans"
    )
    candidate_heads: int = Field(
        default=32, ge=1, description="copying heads extracted as candidates when fitting a profile"
    )
    gershgorin_sample: int | None = Field(
        default=4096, ge=2, description="vocabulary rows/columns sampled for Gershgorin discs; null = all"
    )
    heads_cache_dir: Path | None = Field(
        default=None, description="where copying-head scores are cached; default ~/.cache/trustscore"
    )
