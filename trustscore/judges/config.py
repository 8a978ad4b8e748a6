"""Per-judge configuration. A judge runs when its section is present in the config."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["JudgeConfig", "JudgesConfig"]


class JudgeConfig(BaseModel):
    """Settings every judge shares."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    endpoint: str = Field(description="name of an entry under [endpoints]")
    enabled: bool = True
    timeout_s: float | None = Field(default=None, gt=0, description="deadline for this judge's calls")


class JudgesConfig(BaseModel):
    """Which judges run, and how. Absent section = judge off."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    likert: JudgeConfig | None = None
    prometheus: JudgeConfig | None = None
    lynx: JudgeConfig | None = None
    chainpoll: JudgeConfig | None = None
    tlm: JudgeConfig | None = None

    def enabled(self) -> dict[str, JudgeConfig]:
        out: dict[str, JudgeConfig] = {}
        for name in type(self).model_fields:
            cfg = getattr(self, name)
            if cfg is not None and cfg.enabled:
                out[name] = cfg
        return out
