"""The ``[judges]`` and ``[signals]`` tables of the Config: one section per signal, each validated by
the model its signal registered."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, model_validator

from trustscore.signals._config import JudgeConfig
from trustscore.signals._registry import SignalKind, resolve_section

__all__ = ["JudgesConfig", "SignalsConfig"]


class JudgesConfig(BaseModel):
    """Which judges run, and how: one ``[judges.<name>]`` table per judge, validated by the model
    its registration names (:mod:`trustscore.signals._registry`). Absent table = judge off.

    Read a judge's section as ``config.judges.get("lynx")`` (or ``config.judges.lynx`` when present).
    """

    model_config = ConfigDict(frozen=True, extra="allow")
    __pydantic_extra__: dict[str, SerializeAsAny[JudgeConfig]] = Field(init=False)

    @model_validator(mode="before")
    @classmethod
    def _resolve(cls, data: Any) -> Any:
        return _sections(cls, "judge", data)

    def get(self, name: str) -> JudgeConfig | None:
        """The section of judge ``name``; None when it is not configured."""
        return (self.__pydantic_extra__ or {}).get(name)

    def enabled(self) -> dict[str, JudgeConfig]:
        """The configured judges that are not ``enabled = false``, by name."""
        return {name: cfg for name, cfg in (self.__pydantic_extra__ or {}).items() if cfg.enabled}


class SignalsConfig(BaseModel):
    """Local signals: one ``[signals.<name>]`` table each, validated by the model the signal
    registered. A present table turns the signal on (``enabled = false`` turns it off); a signal
    registered as on by default runs without one."""

    model_config = ConfigDict(frozen=True, extra="allow")
    __pydantic_extra__: dict[str, SerializeAsAny[BaseModel]] = Field(init=False)

    @model_validator(mode="before")
    @classmethod
    def _resolve(cls, data: Any) -> Any:
        return _sections(cls, "local", data)

    def get(self, name: str) -> BaseModel | None:
        """The section of local signal ``name``; None when it is not configured."""
        return (self.__pydantic_extra__ or {}).get(name)

    def sections(self) -> dict[str, BaseModel]:
        """Every configured section, by signal name."""
        return dict(self.__pydantic_extra__ or {})


def _sections(table: type[BaseModel], kind: SignalKind, data: Any) -> Any:
    """``data`` (a table of sections by signal name) with each section validated by its signal's model."""
    if isinstance(data, table):
        return data
    if not isinstance(data, Mapping):
        name = "judges" if kind == "judge" else "signals"
        raise ValueError(f"[{name}] must be a table of [{name}.<name>] sections")
    return {name: resolve_section(kind, str(name), raw) for name, raw in data.items()}
