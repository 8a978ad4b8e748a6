"""Configuration of remote model endpoints and the response cache."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from trustscore.errors import EndpointUnavailable

__all__ = ["CACHE_DIR_ENV", "CacheConfig", "EndpointConfig"]


class EndpointConfig(BaseModel):
    """One OpenAI-compatible server (one served model)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base_url: str = Field(description="e.g. http://127.0.0.1:8000/v1")
    model: str = Field(description="the served model name (vllm serve --served-model-name)")
    flavour: Literal["vllm", "openai"] = "vllm"
    api_key_env: str | None = Field(
        default=None, description="name of the environment variable holding the API key (never the key)"
    )
    model_identity: str | None = Field(
        default=None,
        description="what the weights are (HF id@revision or a hash); part of the cache key. "
        "Defaults to the served model name.",
    )
    context_window: int = Field(default=8192, ge=256, description="--max-model-len of the server")
    timeout_s: float = Field(default=60.0, gt=0, description="deadline for one HTTP attempt")
    max_retries: int = Field(default=3, ge=0, le=10)
    initial_concurrency: int = Field(default=16, ge=1)
    max_concurrency: int = Field(default=256, ge=1, description="ceiling for the adaptive (AIMD) limiter")
    headers: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> EndpointConfig:
        if not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url {self.base_url!r} must start with http:// or https://")
        if self.initial_concurrency > self.max_concurrency:
            raise ValueError("initial_concurrency is above max_concurrency")
        return self

    def api_key(self) -> str | None:
        """The key from the named environment variable; a clear error when it is named but unset."""
        if self.api_key_env is None:
            return None
        key = os.environ.get(self.api_key_env)
        if not key:
            raise EndpointUnavailable(
                f"endpoint {self.model!r}: api_key_env names ${self.api_key_env}, which is not set; "
                f"export it or remove api_key_env"
            )
        return key


CACHE_DIR_ENV = "TRUSTSCORE_CACHE_DIR"


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
