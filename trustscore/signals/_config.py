"""The config base classes of signals: a judge's section extends :class:`JudgeConfig` (it names the
endpoint the judge asks); a local signal's extends :class:`SignalConfig` (or is any frozen pydantic
model). A signal runs when its section is present and is not ``enabled = false``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from trustscore.core._hashing import canonical_json

__all__ = ["JudgeConfig", "SignalConfig"]


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
