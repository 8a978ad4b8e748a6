"""The config base classes of signals, and the ``[judges]`` / ``[signals]`` tables that hold their sections.

A judge's section extends :class:`JudgeConfig` (it names the endpoint the judge asks); a local
signal's extends :class:`SignalConfig` (or is any frozen pydantic model). A signal runs when its
section is present (built-ins that are on by default run without one) and is not ``enabled = false``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, model_validator

from trustscore.core.hashing import canonical_json

__all__ = ["JudgeConfig", "JudgesConfig", "SignalConfig", "SignalsConfig"]


class SignalConfig(BaseModel):
    """Settings every signal shares; a signal's own section model extends it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = Field(default=True, description="false turns the signal off")


class JudgeConfig(SignalConfig):
    """Settings every judge shares."""

    endpoint: str = Field(description="name of an entry under [endpoints]")
    timeout_s: float | None = Field(default=None, gt=0, description="deadline for this judge's calls")

    def value_settings(self) -> str:
        """The settings that can change the judge's values, as canonical JSON.

        Part of the judge's version, so a calibrator fitted with one setting (e.g. 5 polls, or
        logprob-weighted scores) is refused for another. Where the judge is served and how long it
        may take do not change its values and are left out.
        """
        return canonical_json(self.model_dump(mode="json", exclude={"endpoint", "enabled", "timeout_s"}))


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
        if isinstance(data, JudgesConfig):
            return data
        if not isinstance(data, Mapping):
            raise ValueError("[judges] must be a table of [judges.<name>] sections")
        from trustscore.signals._registry import resolve_section

        return {name: resolve_section("judge", str(name), raw) for name, raw in data.items()}

    def get(self, name: str) -> JudgeConfig | None:
        """The section of judge ``name``; None when it is not configured."""
        return (self.__pydantic_extra__ or {}).get(name)

    def enabled(self) -> dict[str, JudgeConfig]:
        """The configured judges that are not ``enabled = false``, by name."""
        return {name: cfg for name, cfg in (self.__pydantic_extra__ or {}).items() if cfg.enabled}


class SignalsConfig(BaseModel):
    """Local signals: one ``[signals.<name>]`` table each, validated by the model the signal
    registered. A present table turns the signal on (``enabled = false`` turns it off); built-ins
    that are on by default run without one."""

    model_config = ConfigDict(frozen=True, extra="allow")
    __pydantic_extra__: dict[str, SerializeAsAny[BaseModel]] = Field(init=False)

    @model_validator(mode="before")
    @classmethod
    def _resolve(cls, data: Any) -> Any:
        if isinstance(data, SignalsConfig):
            return data
        if not isinstance(data, Mapping):
            raise ValueError("[signals] must be a table of [signals.<name>] sections")
        from trustscore.signals._registry import resolve_section

        return {name: resolve_section("local", str(name), raw) for name, raw in data.items()}

    def get(self, name: str) -> BaseModel | None:
        """The section of local signal ``name``; None when it is not configured."""
        return (self.__pydantic_extra__ or {}).get(name)
