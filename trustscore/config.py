"""One configuration for the whole SDK, read from TOML (or built in code).

    [endpoints.judge]
    base_url = "http://127.0.0.1:8000/v1"
    model = "lynx-8b"
    api_key_env = "VLLM_API_KEY"

    [judges.lynx]
    endpoint = "judge"

Each part owns its section's model (``trustscore.llm.config``, ``trustscore.judges.config``, ...);
this module only composes them and checks the references between them.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from trustscore.files import MAX_CONFIG_BYTES, read_capped_text
from trustscore.fusion.config import FusionConfig
from trustscore.grounding.config import GroundingConfig
from trustscore.judges.config import JudgesConfig
from trustscore.llm.config import CacheConfig, EndpointConfig
from trustscore.whitebox.config import WhiteboxConfig

__all__ = ["Config", "ConfigError", "LimitsConfig"]


class ConfigError(ValueError):
    """The configuration is invalid; the message names the field and the fix."""


class LimitsConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    score_budget_s: float = Field(
        default=120.0, gt=0, description="overall deadline for one score(); late signals are reported missing"
    )
    max_concurrent_samples: int = Field(default=64, ge=1, description="samples in flight in score_many")


class Config(BaseModel):
    # The endpoint sections may hold a pasted API key: validation errors never echo input values.
    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)

    endpoints: dict[str, EndpointConfig] = Field(default_factory=dict)
    judges: JudgesConfig = Field(default_factory=JudgesConfig)
    whitebox: WhiteboxConfig = Field(default_factory=WhiteboxConfig)
    grounding: GroundingConfig = Field(default_factory=GroundingConfig)
    fusion: FusionConfig = Field(default_factory=FusionConfig)
    cache: CacheConfig = Field(default_factory=CacheConfig)
    limits: LimitsConfig = Field(default_factory=LimitsConfig)

    @model_validator(mode="after")
    def _references(self) -> Config:
        for name, judge in self.judges.enabled().items():
            if judge.endpoint not in self.endpoints:
                known = ", ".join(sorted(self.endpoints)) or "none defined"
                raise ValueError(
                    f"judges.{name}.endpoint = {judge.endpoint!r} is not an entry under [endpoints] "
                    f"(known: {known}); add [endpoints.{judge.endpoint}] or fix the name"
                )
        familiar = self.whitebox.familiarity
        if familiar.enabled and familiar.endpoint is not None and familiar.endpoint not in self.endpoints:
            raise ValueError(
                f"whitebox.familiarity.endpoint = {familiar.endpoint!r} is not an entry under [endpoints]; "
                f"add [endpoints.{familiar.endpoint}] or fix the name"
            )
        return self

    @classmethod
    def from_toml(cls, path: str | Path) -> Config:
        """Read a TOML file. Relative paths inside it are taken from the file's folder."""
        path = Path(path)
        text = read_capped_text(path, what="config file", limit=MAX_CONFIG_BYTES, error=ConfigError)
        try:
            data = tomllib.loads(text)
        except RecursionError:
            raise ConfigError(f"config file {path} nests tables or arrays too deeply") from None
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"config file {path} is not valid TOML: {e}") from None
        return cls.from_dict(data, base_dir=path.parent)

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, base_dir: Path | None = None) -> Config:
        try:
            cfg = cls.model_validate(data)
        except ValidationError as e:
            raise ConfigError(_explain(e)) from None
        return cfg._resolve_paths(base_dir) if base_dir is not None else cfg

    def _resolve_paths(self, base: Path) -> Config:
        def fix(p: Path | None) -> Path | None:
            if p is None:
                return None
            p = p.expanduser()
            return p if p.is_absolute() else base / p

        return self.model_copy(
            update={
                "whitebox": self.whitebox.model_copy(
                    update={
                        "model_path": fix(self.whitebox.model_path),
                        "redeep": self.whitebox.redeep.model_copy(
                            update={"profile": fix(self.whitebox.redeep.profile)}
                        ),
                    }
                ),
                "grounding": self.grounding.model_copy(
                    update={"embedding_model": fix(self.grounding.embedding_model)}
                ),
                "fusion": self.fusion.model_copy(update={"calibrator": fix(self.fusion.calibrator)}),
                "cache": self.cache.model_copy(update={"directory": fix(self.cache.directory)}),
            }
        )


def _explain(e: ValidationError) -> str:
    lines = ["invalid trustscore config:"]
    for err in e.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown setting (check the spelling against the README's config reference)"
        lines.append(f"  {where}: {msg}")
    return "\n".join(lines)
