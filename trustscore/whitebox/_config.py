"""The local generator model a white-box signal reads from inside: ``model_path``, ``device`` and
``dtype``, settings of ``[signals.redeep]`` and ``[signals.familiarity]`` alike (two sections that name
one model share it)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["WhiteboxModel", "sections_from_whitebox"]


class WhiteboxModel(BaseModel):
    """The local Hugging Face causal LM a white-box signal reads from inside."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model_path: Path | None = Field(default=None, description="local directory of the generator model")
    device: str = "cpu"
    dtype: Literal["float32", "bfloat16", "float16"] = "float32"


_OLD_SIGNALS = ("redeep", "familiarity")


def sections_from_whitebox(old: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The deprecated shared ``[whitebox]`` table (the model, with ``[whitebox.redeep]`` and
    ``[whitebox.familiarity]``) as the ``[signals.redeep]`` / ``[signals.familiarity]`` tables of the
    signals it turned on: ReDeEP when ``model_path`` is set, Self-Familiarity when its ``enabled``.
    Read at load time only; the signals' own models validate the result."""
    if not isinstance(old, Mapping):
        raise ValueError("[whitebox] must be a table")
    unknown = sorted(set(old) - set(WhiteboxModel.model_fields) - set(_OLD_SIGNALS))
    if unknown:
        raise ValueError(f"whitebox.{unknown[0]}: unknown setting")
    model = {k: old[k] for k in WhiteboxModel.model_fields if k in old}
    tables = {name: dict(old.get(name) or {}) for name in _OLD_SIGNALS}
    out: dict[str, dict[str, Any]] = {}
    if old.get("model_path") is not None and tables["redeep"].get("enabled", True):
        out["redeep"] = {**model, **tables["redeep"]}
    if tables["familiarity"].get("enabled", False):
        out["familiarity"] = {**model, **tables["familiarity"]}
    return out
