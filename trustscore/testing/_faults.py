"""Faults a fake server can inject, and a schedule saying which requests get them.

A fault is either returned by a policy for one request, or scheduled on the server:

    server.faults.add(Fault.rate_limit(retry_after=0.5), first=2)   # the first two requests get 429
    server.faults.add(Fault.server_error(), requests=[3])           # the 4th request gets 500
    server.faults.add(Fault.delay(5.0), when=lambda r: r.judge == "lynx")
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from trustscore.testing._request import FakeRequest

__all__ = ["Fault", "FaultKind", "FaultSchedule"]

FaultKind = Literal[
    "rate_limit",
    "server_error",
    "unavailable",
    "delay",
    "malformed_json",
    "truncated",
    "empty_choices",
    "disconnect",
]


class Fault(BaseModel):
    """One way for a request to go wrong. Build with the classmethods."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: FaultKind
    status: int = 200
    retry_after: float | None = Field(default=None, ge=0)
    """Seconds sent in the ``Retry-After`` header (429 / 503)."""
    delay_s: float = Field(default=0.0, ge=0)
    """Seconds the response is held before it is sent (``delay``: then answered normally)."""
    keep_tokens: int | None = Field(default=None, ge=0)
    """``truncated``: generated tokens kept (default: half of the answer)."""
    message: str = ""

    @classmethod
    def rate_limit(cls, retry_after: float | None = 1.0, message: str = "Too many requests") -> Fault:
        """HTTP 429 with ``Retry-After`` (what a gateway in front of vLLM sends)."""
        return cls(kind="rate_limit", status=429, retry_after=retry_after, message=message)

    @classmethod
    def server_error(cls, message: str = "EngineCore encountered an issue") -> Fault:
        """HTTP 500, vLLM's InternalServerError."""
        return cls(kind="server_error", status=500, message=message)

    @classmethod
    def unavailable(cls, retry_after: float | None = None, message: str = "Service Unavailable") -> Fault:
        """HTTP 503 (server starting or overloaded), optionally with ``Retry-After``."""
        return cls(kind="unavailable", status=503, retry_after=retry_after, message=message)

    @classmethod
    def delay(cls, seconds: float) -> Fault:
        """Hold the response ``seconds``, then answer normally (past a client deadline: a timeout)."""
        return cls(kind="delay", delay_s=seconds)

    @classmethod
    def malformed_json(cls) -> Fault:
        """HTTP 200 whose body is cut-off JSON."""
        return cls(kind="malformed_json")

    @classmethod
    def truncated(cls, keep_tokens: int | None = None) -> Fault:
        """A judge output cut by the token limit: fewer tokens, ``finish_reason: "length"``."""
        return cls(kind="truncated", keep_tokens=keep_tokens)

    @classmethod
    def empty_choices(cls) -> Fault:
        """HTTP 200 with ``choices: []``."""
        return cls(kind="empty_choices")

    @classmethod
    def disconnect(cls) -> Fault:
        """Close the connection without answering (the router raises ``httpx.RemoteProtocolError``)."""
        return cls(kind="disconnect")


class _Scheduled:
    def __init__(
        self,
        fault: Fault,
        indices: frozenset[int] | None,
        first: int | None,
        every: int | None,
        when: Callable[[FakeRequest], bool] | None,
        times: int | None,
    ) -> None:
        self.fault = fault
        self.indices = indices
        self.first = first
        self.every = every
        self.when = when
        self.remaining = times

    def matches(self, request: FakeRequest) -> bool:
        if self.remaining is not None and self.remaining <= 0:
            return False
        i = request.index
        if self.indices is not None and i not in self.indices:
            return False
        if self.first is not None and i >= self.first:
            return False
        if self.every is not None and (i + 1) % self.every != 0:
            return False
        return self.when is None or self.when(request)


class FaultSchedule:
    """Faults scheduled by request position or predicate. The first matching entry wins."""

    def __init__(self) -> None:
        self._entries: list[_Scheduled] = []
        self._lock = threading.Lock()

    def add(
        self,
        fault: Fault,
        *,
        requests: Iterable[int] | None = None,
        first: int | None = None,
        every: int | None = None,
        when: Callable[[FakeRequest], bool] | None = None,
        times: int | None = None,
    ) -> None:
        """Schedule ``fault``. With no selector it hits every request (up to ``times``).

        requests: 0-based request indices; first: the first k requests; every: every k-th request
        (k-1, 2k-1, ...); when: a predicate on the request; times: fire at most this many times.
        Selectors combine with AND.
        """
        for name, v in (("first", first), ("every", every), ("times", times)):
            if v is not None and v < 1:
                raise ValueError(f"FaultSchedule.add: {name}={v} must be >= 1 (or None)")
        indices = frozenset(requests) if requests is not None else None
        with self._lock:
            self._entries.append(_Scheduled(fault, indices, first, every, when, times))

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def take(self, request: FakeRequest) -> Fault | None:
        """The fault for ``request``, if any (consuming one of its ``times``)."""
        with self._lock:
            for entry in self._entries:
                if entry.matches(request):
                    if entry.remaining is not None:
                        entry.remaining -= 1
                    return entry.fault
        return None
