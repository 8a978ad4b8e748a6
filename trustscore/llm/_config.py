"""Configuration of remote model endpoints and the response cache."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from trustscore._errors import EndpointUnavailable

__all__ = ["CACHE_DIR_ENV", "CacheConfig", "EndpointConfig", "redact_url"]


class EndpointConfig(BaseModel):
    """One served model, on one OpenAI-compatible server or a pool of replicas of it.

    A pool is ``base_urls = [...]``, or ``base_url`` plus ``replicas = N`` (N servers on consecutive
    ports from base_url's). The concurrency fields then apply to each replica.
    """

    # A key pasted into the wrong field must never be echoed back by a validation error.
    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)

    base_url: str = Field(
        description="e.g. http://127.0.0.1:8000/v1; with base_urls, defaults to (and must be) the first"
    )
    base_urls: tuple[str, ...] = Field(
        default=(),
        description="every replica's base URL, for a pool of identical servers (one model, one identity)",
    )
    replicas: int = Field(
        default=1,
        ge=1,
        le=256,
        description="servers on consecutive ports starting at base_url's port (one per GPU, say)",
    )
    eject_after_failures: int = Field(
        default=3,
        ge=1,
        description="a replica that fails this many requests in a row (connection refused or reset, "
        "HTTP 5xx, no answer within timeout_s) gets no traffic until its health check (GET /health) "
        "answers 200 in time",
    )
    health_interval_s: float = Field(
        default=2.0, gt=0, description="seconds between health checks of an ejected replica"
    )
    model: str = Field(description="the served model name (vllm serve --served-model-name)")
    flavour: Literal["vllm", "openai"] = "vllm"
    api_key_env: str | None = Field(
        default=None, description="name of the environment variable holding the API key (never the key)"
    )
    model_identity: str | None = Field(
        default=None,
        description="what the weights are (HF id@revision or a hash); part of the cache key, shared by "
        "replicas that set the same value. Defaults to the served model name at base_url.",
    )
    context_window: int = Field(default=8192, ge=256, description="--max-model-len of the server")
    timeout_s: float = Field(default=60.0, gt=0, description="deadline for one HTTP attempt")
    max_retries: int = Field(
        default=4,
        ge=0,
        le=10,
        description="retries of a 429, 5xx, timeout, dropped connection or 200 that is no answer",
    )
    initial_concurrency: int = Field(default=16, ge=1)
    max_concurrency: int = Field(default=256, ge=1, description="ceiling for the adaptive (AIMD) limiter")
    headers: dict[str, str] = Field(default_factory=dict)

    @field_validator("api_key_env")
    @classmethod
    def _a_variable_name_not_a_key(cls, v: str | None) -> str | None:
        if v is not None and not _looks_like_env_name(v):
            raise ValueError(
                "is not an environment variable name; it looks like an API key itself (not shown). "
                'Export the key (export MY_API_KEY=...) and set api_key_env = "MY_API_KEY"; '
                "if that was a real key, rotate it"
            )
        return v

    @field_validator("headers")
    @classmethod
    def _header_values_fit_a_header(cls, v: dict[str, str]) -> dict[str, str]:
        for name, value in v.items():
            if value != value.strip() or (value and not _HEADER_SAFE.fullmatch(value)):
                raise ValueError(
                    f"headers.{name}: the value (not shown) has surrounding whitespace, a control or a "
                    "non-ASCII character, which no HTTP header may carry; give the value alone"
                )
        return v

    @model_validator(mode="before")
    @classmethod
    def _first_replica_is_base_url(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("base_urls") and not data.get("base_url"):
            return {**data, "base_url": data["base_urls"][0]}
        return data

    @model_validator(mode="after")
    def _check(self) -> EndpointConfig:
        for url in (self.base_url, *self.base_urls):
            if not url.startswith(("http://", "https://")):
                raise ValueError(f"base_url {redact_url(url)!r} must start with http:// or https://")
            if "@" in urlsplit(url).netloc:
                raise ValueError(
                    f"base_url {redact_url(url)!r} holds credentials (user:key@host): a key in a URL ends up "
                    'in error messages and logs. Export the key (export MY_API_KEY=...), set api_key_env = '
                    '"MY_API_KEY" and give the URL without it; if that was a real key, rotate it'
                )
        if self.base_urls:
            if self.replicas != 1:
                raise ValueError(
                    "give base_urls or replicas, not both (replicas counts ports up from base_url)"
                )
            if self.base_url != self.base_urls[0]:
                raise ValueError(
                    "give base_url or base_urls, not both (base_url is then the first of base_urls)"
                )
            if len({_normal(u) for u in self.base_urls}) != len(self.base_urls):
                raise ValueError("base_urls lists one server twice; list each replica once")
        if self.replicas > 1 and urlsplit(self.base_url).port is None:
            raise ValueError(
                f"replicas = {self.replicas} needs an explicit port in base_url {self.base_url!r} "
                "(replicas are counted up from it); or list them in base_urls"
            )
        if self.replicas > 1 and (urlsplit(self.base_url).port or 0) + self.replicas - 1 > 65535:
            raise ValueError(f"replicas = {self.replicas} counts past port 65535 from {self.base_url!r}")
        if self.initial_concurrency > self.max_concurrency:
            raise ValueError("initial_concurrency is above max_concurrency")
        return self

    def replica_urls(self) -> tuple[str, ...]:
        """Every replica's base URL, the first being ``base_url``."""
        if self.base_urls:
            return self.base_urls
        if self.replicas == 1:
            return (self.base_url,)
        parts = urlsplit(self.base_url)
        port = parts.port
        assert port is not None  # checked above
        host = parts.netloc.rsplit(":", 1)[0]
        return tuple(urlunsplit(parts._replace(netloc=f"{host}:{port + i}")) for i in range(self.replicas))

    def api_key(self) -> str | None:
        """The key from the named environment variable, without surrounding whitespace (a key read
        from a file keeps its newline); a clear error, never quoting the key, when it is named but
        unset, empty, or holds characters no HTTP header may carry."""
        if self.api_key_env is None:
            return None
        key = (os.environ.get(self.api_key_env) or "").strip()
        if not key:
            raise EndpointUnavailable(
                f"endpoint {self.model!r}: api_key_env names ${self.api_key_env}, which is not set "
                f"(or only whitespace); export it or remove api_key_env"
            )
        if not _HEADER_SAFE.fullmatch(key):
            raise EndpointUnavailable(
                f"endpoint {self.model!r}: the key in ${self.api_key_env} (not shown) holds a control "
                "or non-ASCII character, which no HTTP header may carry: export the key alone"
            )
        return key


CACHE_DIR_ENV = "TRUSTSCORE_CACHE_DIR"

_HEADER_SAFE = re.compile(r"[\x20-\x7e]+")
"""Printable ASCII: what a key may hold to travel in an Authorization header."""


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_KEY_PREFIXES = ("sk-", "sk_", "hf_", "gsk_", "ghp_", "github_pat_", "xai-", "xox", "AIza", "AKIA", "pk-")


def _looks_like_env_name(value: str) -> bool:
    """An environment variable name, not a secret: an identifier, no known key prefix, and not a long
    mixed-case-and-digit run (names are words joined by underscores; keys are random)."""
    if not _ENV_NAME.fullmatch(value) or value.startswith(_KEY_PREFIXES):
        return False
    random_looking = all(any(test(c) for c in value) for test in (str.islower, str.isupper, str.isdigit))
    longest_part = max(len(part) for part in value.split("_"))
    return not (len(value) >= 20 and random_looking) and longest_part < 32

def _normal(url: str) -> str:
    return url.rstrip("/").lower()


def _default_cache_dir() -> Path:
    """``$TRUSTSCORE_CACHE_DIR`` (the test kit's fixtures point it at a temp dir), else
    ``$XDG_CACHE_HOME/trustscore/responses``, else ``~/.cache/trustscore/responses``."""
    own = os.environ.get(CACHE_DIR_ENV)
    if own:
        return Path(own)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "trustscore" / "responses"


class CacheConfig(BaseModel):
    """The on-disk response cache (diskcache; JSON values only, never pickle)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mode: Literal["off", "read", "readwrite"] = Field(
        default="readwrite", description="read: use cached answers but store none; off: no cache"
    )
    directory: Path = Field(
        default_factory=_default_cache_dir,
        description="where answers are stored; default $TRUSTSCORE_CACHE_DIR, else "
        "$XDG_CACHE_HOME/trustscore/responses (~/.cache/trustscore/responses)",
    )
    size_limit_bytes: int = Field(default=2**30, ge=2**20, description="oldest answers are evicted beyond it")


def redact_url(url: str) -> str:
    """``url`` with any ``user:password@`` replaced by ``***@``, for messages."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc="***@" + parts.netloc.rsplit("@", 1)[1]))
