"""Per-server adaptive concurrency (AIMD) and a bounded retry policy that honours Retry-After.

Everything here is anyio-only. Primitives bound to an event loop (the slot gate) are created
lazily, one per running loop, so one client object can serve several ``anyio.run`` calls (the sync
facade) and both asyncio and trio. :class:`LimiterPool` gives every client of one server URL the
same limiter: the limit is the server's, not the model name's; a replica pool
(:mod:`trustscore.llm._pool`) has one per replica.
"""

from __future__ import annotations

import random
import time
import weakref
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import anyio
import anyio.lowlevel

from trustscore._errors import LLMTimeout, RateLimited, ServerError
from trustscore.llm._config import EndpointConfig
from trustscore.llm._protocol import LLMError
from trustscore.llm._scheduling import PriorityGate, request_order

__all__ = ["AdaptiveLimiter", "LimiterPool", "LoopLocal", "Permit", "RetryPolicy", "is_overload"]

T = TypeVar("T")


class LoopLocal(Generic[T]):
    """One value per running event loop, made on first use inside that loop.

    Async clients and anyio primitives must never cross event loops (pooled connections bind to the
    loop that opened them). Entries are held weakly by the loop's native token, so a finished loop
    does not keep its objects alive through this map.
    """

    def __init__(self, factory: Callable[[], T]) -> None:
        self._factory = factory
        self._values: weakref.WeakKeyDictionary[object, T] = weakref.WeakKeyDictionary()

    def get(self) -> T:
        """The current loop's value (created now if this loop has none). Call inside a loop."""
        key = _loop_key()
        value = self._values.get(key)
        if value is None:
            value = self._factory()
            self._values[key] = value
        return value

    def pop_current(self) -> T | None:
        """Remove and return the current loop's value, if it has one."""
        return self._values.pop(_loop_key(), None)

    def pop_all(self) -> list[tuple[object, T]]:
        """Remove and return every loop's value, with that loop's native token (asyncio loop or
        TrioToken), so each can be closed on its own loop."""
        items = list(self._values.items())
        self._values.clear()
        return items

    @staticmethod
    def current_key() -> object:
        """The running loop's native token."""
        return _loop_key()


def _loop_key() -> object:
    """The running loop's native token (asyncio loop or TrioToken), stable for the loop's life.

    anyio >= 4.11 wraps it in an EventLoopToken (a new wrapper per call); older releases return it bare.
    """
    token = anyio.lowlevel.current_token()
    return getattr(token, "native_token", token)


def is_overload(error: LLMError) -> bool:
    """True for the errors that mean "send less": 429, 503 and a timeout (a server too slow to answer
    in time is congested: its queue, not the request, is what the time went to)."""
    return isinstance(error, RateLimited | LLMTimeout) or (
        isinstance(error, ServerError) and error.status == 503
    )


@dataclass
class Permit:
    """A held slot of an :class:`AdaptiveLimiter`. Report how the attempt went before leaving."""

    limiter: AdaptiveLimiter
    epoch: int
    started: float = field(default_factory=lambda: time.monotonic())

    def success(self) -> None:
        self.limiter._on_success()

    def overloaded(self, retry_after: float | None = None) -> None:
        self.limiter._on_overload(self.epoch, retry_after)

    def timed_out(self) -> None:
        """No answer in time: congestion, unless the server answered another request meanwhile
        (then this one was a straggler: one stuck request, not a server that is behind)."""
        if self.limiter._last_success <= self.started:
            self.limiter._on_overload(self.epoch, None)


class AdaptiveLimiter:
    """Concurrency limit that grows by one per window of successes and halves on overload.

    Additive increase: after ``limit`` consecutive successes (one "round" at the current width, as in
    TCP congestion avoidance) the limit grows by one, up to ``maximum``. Multiplicative decrease: a
    429, a 503 or a timeout halves it (floor 1); a timeout only when the server answered nothing
    else since that attempt began (else it was one stuck request, not a server that is behind).
    One congestion event halves once, as TCP cuts once per round trip: requests already in flight
    when the limit was cut belong to an older epoch and their overload reports are ignored, and so
    are overloads within the Retry-After the cutting answer asked for (the server has said how long
    its overload lasts; more 429s inside that window are the same overload, not a worse one).

    Lowering the limit below the number of slots in use is allowed: no new slot is granted until
    enough are released. Waiting requests are served lowest ``order`` first (the age of the sample
    they belong to, see :mod:`trustscore.llm._scheduling`), so work already in flight finishes first.
    """

    def __init__(self, initial: int, maximum: int) -> None:
        if initial < 1:
            raise ValueError(f"initial concurrency must be at least 1, got {initial}")
        if maximum < initial:
            raise ValueError(f"maximum concurrency ({maximum}) is below the initial one ({initial})")
        self._limit = initial
        self._maximum = maximum
        self._successes = 0
        self._epoch = 0
        self._quiet_until = 0.0
        self._last_success = float("-inf")
        self._gates: LoopLocal[PriorityGate] = LoopLocal(lambda: PriorityGate(self._limit))

    @property
    def limit(self) -> int:
        return self._limit

    @property
    def maximum(self) -> int:
        return self._maximum

    @property
    def in_flight(self) -> int:
        """Slots held in the current event loop."""
        return self.gate().borrowed

    def gate(self) -> PriorityGate:
        """The current event loop's slot gate, at the current limit."""
        gate = self._gates.get()
        if gate.total != self._limit:  # the limit moved while another loop ran
            gate.set_total(self._limit)
        return gate

    @asynccontextmanager
    async def slot(self, order: int | None = None) -> AsyncIterator[Permit]:
        """Wait for a slot (lowest ``order`` first; default: a fresh one, see
        :func:`~trustscore.llm._scheduling.request_order`); hold it for one attempt."""
        gate = self.gate()
        await gate.acquire(request_order() if order is None else order)
        try:
            yield Permit(self, self._epoch)
        finally:
            gate.release()

    def _on_success(self) -> None:
        self._last_success = time.monotonic()
        self._successes += 1
        if self._successes >= self._limit:
            self._successes = 0
            if self._limit < self._maximum:
                self._set_limit(self._limit + 1)

    def _on_overload(self, epoch: int, retry_after: float | None) -> None:
        now = time.monotonic()
        if epoch != self._epoch or now < self._quiet_until:
            return  # the overload already cut for: it neither halves again nor resets growth
        self._successes = 0
        self._epoch += 1
        self._quiet_until = now + (retry_after or 0.0)
        self._set_limit(max(1, self._limit // 2))

    def _set_limit(self, value: int) -> None:
        self._limit = value
        self._gates.get().set_total(value)


class LimiterPool:
    """One :class:`AdaptiveLimiter` per server URL, shared by every endpoint that points there.

    Two endpoint entries naming models on one server share its capacity, so they share one limit.
    The first endpoint seen for a URL sets the limiter's initial and maximum concurrency.
    """

    def __init__(self) -> None:
        self._by_url: dict[str, AdaptiveLimiter] = {}

    def for_endpoint(self, endpoint: EndpointConfig) -> AdaptiveLimiter:
        return self.for_url(endpoint.base_url, endpoint)

    def for_url(self, base_url: str, endpoint: EndpointConfig) -> AdaptiveLimiter:
        """The limiter of the server at ``base_url`` (one replica of ``endpoint``)."""
        url = base_url.rstrip("/").lower()
        limiter = self._by_url.get(url)
        if limiter is None:
            limiter = AdaptiveLimiter(endpoint.initial_concurrency, endpoint.max_concurrency)
            self._by_url[url] = limiter
        return limiter


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries with full-jitter exponential backoff, honouring the server's Retry-After.

    Attempt ``k`` (0-based, counting retries) waits ``uniform(0, min(max_delay_s, base_delay_s * 2**k))``
    ("full jitter", AWS Architecture Blog, "Exponential Backoff And Jitter", 2015). When the server
    says how long to wait, that wait is used instead, capped at ``max_retry_after_s``, plus up to
    ``base_delay_s`` of jitter so clients told the same time do not return in lockstep.
    """

    max_retries: int = 3
    base_delay_s: float = 0.5
    max_delay_s: float = 8.0
    max_retry_after_s: float = 30.0
    rng: random.Random = field(default_factory=random.Random, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.base_delay_s < 0 or self.max_delay_s < 0 or self.max_retry_after_s < 0:
            raise ValueError("retry delays must be >= 0")

    def should_retry(self, error: LLMError, retries_done: int) -> bool:
        return error.retryable and retries_done < self.max_retries

    def delay(self, error: LLMError, retries_done: int) -> float:
        """Seconds to wait before retry number ``retries_done + 1``."""
        retry_after = error.retry_after if isinstance(error, RateLimited | ServerError) else None
        if retry_after is not None:
            jitter = self.rng.uniform(0.0, self.base_delay_s)
            return min(self.max_retry_after_s, max(0.0, retry_after) + jitter)
        ceiling = min(self.max_delay_s, self.base_delay_s * 2**retries_done)
        return self.rng.uniform(0.0, ceiling)
