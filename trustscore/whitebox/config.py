"""Configuration of the white-box signals: ``[signals.redeep]`` and ``[signals.familiarity]``.

Each section names the local generator model it reads (``model_path``, ``device``, ``dtype``) beside
its own settings; two sections that name one model share it. :class:`WhiteboxConfig` is what the
white-box code reads (the model and both signals' settings), and the deprecated shared ``[whitebox]``
section, which a config that still has is read into the two sections with a DeprecationWarning
(:mod:`trustscore.config`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from trustscore.signals import SignalConfig
from trustscore.whitebox.familiarity_config import FamiliarityConfig
from trustscore.whitebox.redeep_config import RedeepConfig

__all__ = [
    "FamiliarityConfig",
    "FamiliaritySection",
    "RedeepConfig",
    "RedeepSection",
    "WhiteboxConfig",
    "WhiteboxModel",
]


class WhiteboxModel(BaseModel):
    """The local Hugging Face causal LM a white-box signal reads from inside."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model_path: Path | None = Field(default=None, description="local directory of the generator model")
    device: str = "cpu"
    dtype: Literal["float32", "bfloat16", "float16"] = "float32"


class WhiteboxConfig(WhiteboxModel):
    """The model and both white-box signals' settings. Off unless ``model_path`` is set (ReDeEP) or
    ``familiarity.enabled``."""

    redeep: RedeepConfig = Field(default_factory=RedeepConfig)
    familiarity: FamiliarityConfig = Field(default_factory=FamiliarityConfig)

    def sections(self) -> dict[str, dict[str, Any]]:
        """The ``[signals.redeep]`` / ``[signals.familiarity]`` tables for the signals this turns on."""
        model = {k: getattr(self, k) for k in WhiteboxModel.model_fields if k in self.model_fields_set}
        out: dict[str, dict[str, Any]] = {}
        if self.model_path is not None and self.redeep.enabled:
            out["redeep"] = {**model, **self.redeep.model_dump(exclude_unset=True)}
        if self.familiarity.enabled:
            out["familiarity"] = {**model, **self.familiarity.model_dump(exclude_unset=True)}
        return out


class RedeepSection(SignalConfig, WhiteboxModel, RedeepConfig):
    """ReDeEP: how the response uses the retrieved context, read from the generator's attention and
    feed-forward layers (needs ``model_path`` and a fitted ``profile``)."""

    def whitebox(self) -> WhiteboxConfig:
        return WhiteboxConfig(
            model_path=self.model_path,
            device=self.device,
            dtype=self.dtype,
            redeep=RedeepConfig.model_validate(self.model_dump(include=set(RedeepConfig.model_fields))),
        )


class FamiliaritySection(SignalConfig, WhiteboxModel, FamiliarityConfig):
    """Self-Familiarity: how well the generator knows the question's concepts (a local model at
    ``model_path``, or the remote generator at ``endpoint``)."""

    enabled: bool = Field(default=True, description="false turns the signal off")

    def whitebox(self) -> WhiteboxConfig:
        return WhiteboxConfig(
            model_path=self.model_path,
            device=self.device,
            dtype=self.dtype,
            familiarity=FamiliarityConfig.model_validate(
                self.model_dump(include=set(FamiliarityConfig.model_fields))
            ),
        )
