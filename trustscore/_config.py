"""One configuration for the whole SDK, read from TOML (or built in code).

    [endpoints.judge]
    base_url = "http://127.0.0.1:8000/v1"
    model = "lynx-8b"
    api_key_env = "VLLM_API_KEY"

    [judges.lynx]
    endpoint = "judge"

    [signals.my_signal]          # a registered local signal's own section
    threshold = 0.3

Each part owns its section's model (``trustscore.llm._config``, ``trustscore.fusion._config``, ...);
``[judges.<name>]`` and ``[signals.<name>]`` are validated by the models their signals registered
(:mod:`trustscore.signals._registry`). This module only composes them and checks the references between
them. Every setting is described in docs/config.md, generated from the models' descriptions.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from trustscore._errors import CONFIG_REFERENCE, ConfigError
from trustscore.core._files import MAX_CONFIG_BYTES, read_capped_text
from trustscore.core._names import closest_name
from trustscore.fusion._cascade_config import CascadeConfig
from trustscore.fusion._config import FusionConfig
from trustscore.llm._config import CACHE_DIR_ENV, CacheConfig, EndpointConfig
from trustscore.signals import JudgesConfig, SignalsConfig, get_signal
from trustscore.telemetry._config import TelemetryConfig

__all__ = ["ENV_DEFAULTS", "ENV_OVERRIDES", "Config", "ConfigError", "LimitsConfig", "SignalsConfig"]

ENV_OVERRIDES: dict[str, str] = {
    "TRUSTSCORE_SCORE_BUDGET_S": "limits.score_budget_s",
    "TRUSTSCORE_MAX_CONCURRENT_SAMPLES": "limits.max_concurrent_samples",
    "TRUSTSCORE_ENDPOINT_<NAME>_BASE_URL": "endpoints.<name>.base_url",
}
"""Environment variables that override a setting of every Config built, the file's value included
(``<NAME>``: the endpoint's name upper-cased, other characters than letters and digits as ``_``).
Documented in docs/config.md."""

ENV_DEFAULTS: dict[str, str] = {CACHE_DIR_ENV: "cache.directory"}
"""Environment variables that give a setting's default: a value in the file wins. The cache folder is
one, so a test fixture or a deployment can move every cache that is not explicitly placed."""

_ENDPOINT_PREFIX, _ENDPOINT_SUFFIX = "TRUSTSCORE_ENDPOINT_", "_BASE_URL"


class LimitsConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    score_budget_s: float = Field(
        default=120.0, gt=0, description="overall deadline for one score(); late signals are reported missing"
    )
    max_concurrent_samples: int = Field(default=64, ge=1, description="samples in flight in score_many")


class Config(BaseModel):
    """The whole configuration: every section, with defaults that run offline (local signals only)."""

    # The endpoint sections may hold a pasted API key: validation errors never echo input values.
    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)

    endpoints: dict[str, EndpointConfig] = Field(
        default_factory=dict, description="OpenAI-compatible servers by name; judges name one"
    )
    judges: JudgesConfig = Field(
        default_factory=JudgesConfig, description="one [judges.<name>] table per judge that runs"
    )
    signals: SignalsConfig = Field(
        default_factory=SignalsConfig,
        description="one [signals.<name>] table per registered local signal with its own section",
    )
    fusion: FusionConfig = Field(default_factory=FusionConfig, description="how signals become one score")
    cascade: CascadeConfig = Field(
        default_factory=CascadeConfig, description="signals in stages: later ones only where still unsure"
    )
    cache: CacheConfig = Field(default_factory=CacheConfig, description="the on-disk LLM response cache")
    limits: LimitsConfig = Field(default_factory=LimitsConfig, description="time and concurrency limits")
    telemetry: TelemetryConfig = Field(
        default_factory=TelemetryConfig, description="what OpenTelemetry spans record beyond metadata"
    )

    @model_validator(mode="before")
    @classmethod
    def _environment(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        data = _with_env_overrides(data, os.environ)
        removed = [f"[{key}] was removed: {how}" for key, how in _REMOVED_SECTIONS.items() if key in data]
        if removed:
            raise ValueError("; ".join(removed))
        return data

    @model_validator(mode="after")
    def _references(self) -> Config:
        for name, judge in self.judges.enabled().items():
            if judge.endpoint not in self.endpoints:
                known = ", ".join(sorted(self.endpoints)) or "none defined"
                raise ValueError(
                    f"judges.{name}.endpoint = {judge.endpoint!r} is not an entry under [endpoints] "
                    f"(known: {known}); add [endpoints.{judge.endpoint}] or fix the name"
                )
        for name, section in self.signals.sections().items():
            endpoint = getattr(section, "endpoint", None)
            on = getattr(section, "enabled", True)
            if on and isinstance(endpoint, str) and endpoint not in self.endpoints:
                raise ValueError(
                    f"signals.{name}.endpoint = {endpoint!r} is not an entry under [endpoints]; "
                    f"add [endpoints.{endpoint}] or fix the name"
                )
        if self.cascade.calibrator is not None and self.fusion.calibrator is not None:
            raise ValueError(
                "fusion.calibrator and cascade.calibrator are both set: a fitted cascade holds its own "
                "calibrators (its last stage's is the full ensemble's); unset fusion.calibrator"
            )
        return self

    @classmethod
    def from_toml(cls, path: str | Path) -> Config:
        """Read a TOML file. Relative paths inside it are taken from the file's folder."""
        if not isinstance(path, str | Path):
            raise ConfigError(f"a config file is named by a path (got {type(path).__name__})")
        path = Path(path)
        text = read_capped_text(path, what="config file", limit=MAX_CONFIG_BYTES, error=ConfigError)
        try:
            data = tomllib.loads(text)
        except RecursionError:
            raise ConfigError(f"config file {path} nests tables or arrays too deeply") from None
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"config file {path} is not valid TOML: {e}") from None
        return cls.from_dict(data, base_dir=path.parent, source=str(path))

    @classmethod
    def from_dict(
        cls, data: dict[str, Any], *, base_dir: Path | None = None, source: str | None = None
    ) -> Config:
        """Check ``data`` (a parsed TOML document); relative paths in it are taken from ``base_dir``.
        ``source`` names where it came from (a file) in the error a bad setting raises."""
        try:
            cfg = cls.model_validate(data)
        except ValidationError as e:
            raise ConfigError(_explain(e, source)) from None
        return cfg._resolve_paths(base_dir) if base_dir is not None else cfg

    def _resolve_paths(self, base: Path) -> Config:
        def fix(p: Path | None) -> Path | None:
            if p is None:
                return None
            p = p.expanduser()
            return p if p.is_absolute() else base / p

        return self.model_copy(
            update={
                "signals": SignalsConfig.model_validate(
                    {name: _with_paths_fixed(sec, fix) for name, sec in self.signals.sections().items()}
                ),
                "fusion": self.fusion.model_copy(update={"calibrator": fix(self.fusion.calibrator)}),
                "cascade": self.cascade.model_copy(update={"calibrator": fix(self.cascade.calibrator)}),
                "cache": self.cache.model_copy(update={"directory": fix(self.cache.directory)}),
            }
        )


_REMOVED_SECTIONS: dict[str, str] = {
    "grounding": "write [signals.lexical] (the lexical_* settings without the prefix) and "
    "[signals.embedding] (the embedding_* and max_* settings without the prefix); lexical = false is "
    "[signals.lexical] enabled = false",
    "whitebox": "write [signals.redeep] and [signals.familiarity], each with the model_path / device / "
    "dtype it reads and the settings of its old [whitebox.redeep] / [whitebox.familiarity] table",
}
"""Shared sections of older releases and how to write them now: a file that still has one is refused."""


def _with_paths_fixed(section: BaseModel, fix: Callable[[Path | None], Path | None]) -> BaseModel:
    """``section`` with its relative paths taken from the config file's folder."""
    update = {name: fix(value) for name, value in section if isinstance(value, Path)}
    return section.model_copy(update=update) if update else section


def _with_env_overrides(data: Mapping[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """``data`` with the TRUSTSCORE_* variables set in ``environ`` written over their settings."""
    out = dict(data)
    for var, path in ENV_OVERRIDES.items():
        if "<" not in path and environ.get(var):
            _put(out, path.split("."), environ[var])
    endpoints = _plain(out.get("endpoints") or {})
    for var, value in environ.items():
        if not (var.startswith(_ENDPOINT_PREFIX) and var.endswith(_ENDPOINT_SUFFIX)) or not value:
            continue
        key = var[len(_ENDPOINT_PREFIX) : -len(_ENDPOINT_SUFFIX)]
        names = [n for n in endpoints if _env_name(n) == key]
        if not names and endpoints:  # a config without endpoints (the offline default) ignores them
            known = ", ".join(sorted(endpoints))
            raise ValueError(
                f"${var} names endpoint {key!r}, which is not under [endpoints] (known: {known})"
            )
        if names:
            _put(out, ["endpoints", names[0], "base_url"], value)
    return out


def _env_name(endpoint: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", endpoint).upper()


def _plain(node: Any) -> dict[str, Any]:
    """A section as a dict of the settings it was given (a model instance keeps only those)."""
    if isinstance(node, BaseModel):
        return {k: getattr(node, k) for k in node.model_fields_set}
    return dict(node)


def _put(data: dict[str, Any], path: list[str], value: str) -> None:
    head, *rest = path
    if not rest:
        data[head] = value
        return
    child = _plain(data.get(head) or {})
    _put(child, rest, value)
    data[head] = child


def _env_source(loc: tuple[int | str, ...]) -> str:
    """The variable a setting's bad value came from, when it came from the environment."""
    where = [str(p) for p in loc]
    for var, path in ENV_OVERRIDES.items():
        parts = path.split(".")
        if "<" in path and where[:1] == ["endpoints"] and where[2:] in ([], ["base_url"]) and len(where) > 1:
            var = f"{_ENDPOINT_PREFIX}{_env_name(where[1])}{_ENDPOINT_SUFFIX}"
            return f" (from ${var})" if os.environ.get(var) else ""
        if parts == where and os.environ.get(var):
            return f" (from ${var})"
    return ""


def _explain(e: ValidationError, source: str | None) -> str:
    lines = [f"invalid trustscore config in {source}:" if source else "invalid trustscore config:"]
    for err in e.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        where += _env_source(err["loc"])
        msg = str(err["msg"]).removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            meant = closest_name(str(err["loc"][-1]), _settings_at(err["loc"][:-1]))
            msg = "unknown setting" + (f": did you mean {meant!r}?" if meant else " (check the spelling)")
        lines.append(f"  {where}: {msg}")
    lines.append(f"every setting is described in {CONFIG_REFERENCE}")
    return "\n".join(lines)


_SIGNAL_TABLES: dict[str, Literal["judge", "local"]] = {"judges": "judge", "signals": "local"}


def _settings_at(loc: tuple[int | str, ...]) -> list[str]:
    """The settings the table at ``loc`` accepts (``("fusion",)`` -> FusionConfig's fields); [] where
    it cannot be told (an unknown signal's table)."""
    model: Any = Config
    parts = [str(p) for p in loc]
    while parts:
        head = parts.pop(0)
        if model is Config and head in _SIGNAL_TABLES:
            if not parts:
                return []
            try:
                model = get_signal(parts.pop(0), kind=_SIGNAL_TABLES[head]).config
            except ConfigError:
                return []
            continue
        field = model.model_fields.get(head)
        if field is None:
            return []
        model = field.annotation
        if get_origin(model) is dict:  # a table of named entries: [endpoints.<name>]
            if parts:
                parts.pop(0)
            model = get_args(model)[1]
        model = next((t for t in (model, *get_args(model)) if _is_model(t)), None)
        if model is None:
            return []
    return list(model.model_fields)


def _is_model(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, BaseModel)
