"""The scoring service's settings: who may call it, how much it takes in, how long a request may run."""

from __future__ import annotations

import ipaddress

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

__all__ = ["ApiSettings", "is_loopback"]


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class ApiSettings(BaseModel):
    """How ``trustscore api`` serves one Scorer."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    api_keys: list[SecretStr] = Field(
        default_factory=list,
        description="keys a caller sends as 'Authorization: Bearer KEY' (none: no key asked; loopback only)",
    )
    max_in_flight: int = Field(default=32, ge=1, description="samples scored at once")
    max_queued: int = Field(default=256, ge=0, description="samples waiting beyond those; more get 429")
    batch_concurrency: int = Field(
        default=8, ge=1, description="samples of one batch request scored at once (its room in the queue)"
    )
    max_body_bytes: int = Field(default=4 * 2**20, ge=1024, description="largest request body; more get 413")
    max_batch_rows: int = Field(default=1000, ge=1, description="most samples in one batch request")
    max_budget_s: float | None = Field(
        default=None, gt=0, description="largest per-request budget_s a caller may ask for (None: any)"
    )
    retry_after_s: int = Field(default=1, ge=1, description="Retry-After sent with a 429")
    shutdown_grace_s: float = Field(
        default=30.0,
        ge=0,
        description="on shutdown, how long work in flight may finish before it is failed and the "
        "connections closed: the process ends within it (plus a moment to close)",
    )
    header_timeout_s: float = Field(
        default=10.0, gt=0, description="a request's head (line and headers) must arrive within it"
    )
    body_timeout_s: float = Field(
        default=30.0, gt=0, description="a request's body must arrive within it; else 408"
    )
    send_timeout_s: float = Field(
        default=10.0, gt=0, description="a client that reads none of its answer for this long is cut off"
    )
    max_body_buffer_bytes: int = Field(
        default=32 * 2**20,
        ge=0,
        description="body bytes held at once across requests beyond each body's first 64 KiB; "
        "a body that does not fit gets 429",
    )
    max_connections: int = Field(
        default=1000, ge=1, description="open connections; more are closed as they are accepted"
    )

    @model_validator(mode="after")
    def _keys_not_blank(self) -> ApiSettings:
        if any(not key.get_secret_value().strip() for key in self.api_keys):
            raise ValueError("api_keys: a key is empty; remove it or give it a value")
        return self
