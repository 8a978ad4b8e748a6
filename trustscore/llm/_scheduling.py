"""Scheduling that finishes what it started: older samples' requests first, new samples only when
the endpoints have room.

Every sample the Scorer scores holds a :class:`Ticket`, handed to its LLM calls in their
:class:`~trustscore.llm._call.CallContext`. Its ``order`` is the sample's age: the LLM client queues
each request for a slot by that order (:class:`PriorityGate`), so a retry or a second-stage call
(TLM's agreement checks) of a sample already in flight is served before any request of a sample
started later. A request made outside any sample gets a fresh order when it is made: plain
first-come, first-served.

``score_many`` starts a new sample only when :class:`SampleAdmission` says so: every endpoint has a
free slot and nobody queued for one, and the last sample started has already reached its endpoints.
Admission thus follows the endpoint's current capacity (the AIMD limit), instead of queueing the
first attempts of 64 samples ahead of every retry.

Why: with the whole batch's first attempts queued first-come-first-served in the client's limiter,
a retry (which waits out its Retry-After *without* holding a slot, then queues again) lands behind
all of them and the sample's budget ends before it is sent.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import TracebackType
from typing import Protocol, runtime_checkable

import anyio
import anyio.lowlevel

__all__ = ["Capacity", "PriorityGate", "SampleAdmission", "Ticket", "request_order"]

_orders = itertools.count()


class Ticket:
    """One sample's place in line. ``with ticket:`` around the sample's work marks it done on leaving."""

    def __init__(self, on_change: Callable[[Ticket], None] | None = None) -> None:
        self.order = next(_orders)
        self.started = False
        """The sample has asked an LLM for something (a request, or a cache lookup)."""
        self.done = False
        self._on_change = on_change

    def mark_started(self) -> None:
        if not self.started:
            self.started = True
            if self._on_change is not None:
                self._on_change(self)

    def __enter__(self) -> Ticket:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.done = True
        if self._on_change is not None:
            self._on_change(self)


def request_order(ticket: Ticket | None = None) -> int:
    """The queue order for an LLM call made now: its sample's age (``ticket``), else a fresh (latest)
    order."""
    if ticket is None:
        return next(_orders)
    ticket.mark_started()
    return ticket.order


@dataclass(order=True)
class _Waiter:
    order: int
    seq: int
    event: anyio.Event = field(compare=False)
    granted: bool = field(default=False, compare=False)
    cancelled: bool = field(default=False, compare=False)


class PriorityGate:
    """A counting semaphore of one event loop that hands free slots to the lowest ``order`` first
    (ties: first come). ``total`` may change at any time; lowering it below the slots in use grants
    nothing until enough are released. Listeners are called on every change (admission watches)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.borrowed = 0
        self._waiters: list[_Waiter] = []
        self._waiting = 0
        self._seq = itertools.count()
        self._listeners: set[Callable[[], None]] = set()

    @property
    def waiting(self) -> int:
        """Acquirers queued for a slot."""
        return self._waiting

    @property
    def has_room(self) -> bool:
        """A new acquirer would get a slot at once."""
        return self._waiting == 0 and self.borrowed < self.total

    async def acquire(self, order: int) -> None:
        await anyio.lowlevel.checkpoint_if_cancelled()
        if self.has_room:
            self.borrowed += 1
            self._notify()
            await anyio.lowlevel.cancel_shielded_checkpoint()
            return
        waiter = _Waiter(order, next(self._seq), anyio.Event())
        heapq.heappush(self._waiters, waiter)
        self._waiting += 1
        self._notify()
        try:
            await waiter.event.wait()
        except BaseException:
            if waiter.granted:  # handed a slot in the same instant it was cancelled: pass it on
                self.release()
            else:
                waiter.cancelled = True
                self._waiting -= 1
                self._notify()
            raise

    def release(self) -> None:
        self.borrowed -= 1
        self._grant()
        self._notify()

    def set_total(self, total: int) -> None:
        self.total = total
        self._grant()
        self._notify()

    def listen(self, callback: Callable[[], None]) -> None:
        self._listeners.add(callback)

    def unlisten(self, callback: Callable[[], None]) -> None:
        self._listeners.discard(callback)

    def _grant(self) -> None:
        while self.borrowed < self.total and self._waiters:
            waiter = heapq.heappop(self._waiters)
            if waiter.cancelled:
                continue
            waiter.granted = True
            self._waiting -= 1
            self.borrowed += 1
            waiter.event.set()

    def _notify(self) -> None:
        for callback in tuple(self._listeners):
            callback()


class _Room(Protocol):
    @property
    def has_room(self) -> bool: ...

    def listen(self, callback: Callable[[], None]) -> None: ...

    def unlisten(self, callback: Callable[[], None]) -> None: ...


@runtime_checkable
class Capacity(Protocol):
    """What admission watches: an AdaptiveLimiter, or a replica pool's PoolCapacity."""

    def gate(self) -> _Room: ...


class SampleAdmission:
    """Decides when ``score_many`` may start its next sample (see the module docstring).

    A sample is admitted when fewer than ``max_active`` are running, the previously admitted one has
    reached its endpoints (or finished), and every endpoint in ``limiters`` has a free slot with
    nobody queued. Use inside one event loop: ``with admission.watching(): ticket = await admission.next()``.
    """

    def __init__(self, limiters: Sequence[Capacity], max_active: int) -> None:
        if max_active < 1:
            raise ValueError(f"max_active must be at least 1, got {max_active}")
        self._limiters = list(dict.fromkeys(limiters))
        self._max_active = max_active
        self._active: set[Ticket] = set()
        self._last: Ticket | None = None
        self._changed: anyio.Event | None = None

    @contextmanager
    def watching(self) -> Iterator[SampleAdmission]:
        """Listen to the endpoints' slot changes while admitting (inside the event loop)."""
        gates = [limiter.gate() for limiter in self._limiters]
        for gate in gates:
            gate.listen(self._notify)
        try:
            yield self
        finally:
            for gate in gates:
                gate.unlisten(self._notify)

    async def next(self) -> Ticket:
        """Wait for room, then a new ticket for the next sample (enter it in the sample's task)."""
        while not self._room():
            self._changed = anyio.Event()
            await self._changed.wait()
        ticket = Ticket(on_change=self._on_ticket_change)
        self._active.add(ticket)
        self._last = ticket
        return ticket

    def _room(self) -> bool:
        if len(self._active) >= self._max_active:
            return False
        if not self._limiters:
            return True
        last = self._last
        if last is not None and not (last.started or last.done):
            return False
        return all(limiter.gate().has_room for limiter in self._limiters)

    def _on_ticket_change(self, ticket: Ticket) -> None:
        if ticket.done:
            self._active.discard(ticket)
        self._notify()

    def _notify(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = None
