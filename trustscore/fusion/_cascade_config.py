"""Configuration of the cost-aware cascade: signals run in stages, later stages only when still unsure.

    [cascade]
    calibrator = "calibration/cascade.json"   # stages' calibrators and bands (trustscore calibrate --cascade)

    [[cascade.stages]]
    name = "local"
    signals = ["lexical", "embedding"]        # the first stage runs on every sample

    [[cascade.stages]]
    name = "verdict"
    signals = ["likert"]                      # runs when the score so far lies inside the band

    [[cascade.stages]]
    name = "ensemble"
    signals = ["lynx", "prometheus", "chainpoll"]

Without ``calibrator`` every later stage sets its own ``band = [low, high]`` or ``always = true``.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["CascadeConfig", "StageConfig"]


class StageConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9_.\-]+$",
        description="shown in results as the stage a sample stopped at (default: stage1, stage2, ...)",
    )
    signals: list[str] = Field(min_length=1, description="the signals this stage runs, all at once")
    band: tuple[float, float] | None = Field(
        default=None,
        description="[low, high]: this stage runs when the fused score of the stages before lies inside "
        "(not on the first stage; with cascade.calibrator the fitted file gives the bands)",
    )
    always: bool = Field(
        default=False, description="this stage runs on every sample that reached the stage before it"
    )

    @model_validator(mode="after")
    def _band(self) -> StageConfig:
        if self.band is not None:
            low, high = self.band
            if not 0.0 <= low <= high <= 1.0:
                raise ValueError(f"band {list(self.band)} must be [low, high] with 0 <= low <= high <= 1")
            if self.always:
                raise ValueError("a stage sets band or always = true, not both")
        if len(set(self.signals)) != len(self.signals):
            raise ValueError(f"signals {self.signals} name a signal twice")
        return self


class CascadeConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    stages: list[StageConfig] = Field(
        default_factory=list,
        description="the stages in order, one [[cascade.stages]] table each (name, signals, band, always: "
        "docs/cascade.md); none = every signal on every sample",
    )
    calibrator: Path | None = Field(
        default=None,
        description="fitted cascade JSON (trustscore calibrate --cascade): each stage's calibrator and band; "
        "relative paths are read from the config file's folder",
    )

    @model_validator(mode="after")
    def _stages(self) -> CascadeConfig:
        if not self.stages:
            if self.calibrator is not None:
                raise ValueError(
                    "calibrator is set but no [[cascade.stages]] are: add the stages it was fitted for"
                )
            return self
        if len(self.stages) < 2:
            raise ValueError(
                "a cascade needs at least two [[cascade.stages]] (one stage is the plain ensemble)"
            )
        first = self.stages[0]
        if first.band is not None or first.always:
            raise ValueError("stages[0] always runs: remove its band / always")
        names = self.stage_names
        if len(set(names)) != len(names):
            raise ValueError(f"stage names {names} repeat; give each stage its own name")
        seen: dict[str, int] = {}
        for i, stage in enumerate(self.stages):
            for signal in stage.signals:
                if signal in seen:
                    raise ValueError(
                        f"signal {signal!r} is in stages[{seen[signal]}] and stages[{i}]; put it in one"
                    )
                seen[signal] = i
        for i, stage in enumerate(self.stages[1:], start=1):
            if self.calibrator is not None and stage.band is not None:
                raise ValueError(
                    f"stages[{i}].band is set but the bands come from cascade.calibrator: remove one of them"
                )
            if self.calibrator is None and stage.band is None and not stage.always:
                raise ValueError(
                    f"stages[{i}] needs band = [low, high] or always = true, or set cascade.calibrator "
                    "to a fitted cascade (trustscore calibrate --cascade)"
                )
        return self

    @property
    def stage_names(self) -> list[str]:
        return [s.name or f"stage{i + 1}" for i, s in enumerate(self.stages)]

    @property
    def enabled(self) -> bool:
        return bool(self.stages)
