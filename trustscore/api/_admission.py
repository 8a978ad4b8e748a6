"""Admission and shutdown for the scoring service: a bounded queue in front of the Scorer.

A request reserves room for the samples it will score at once (one, or up to a batch's concurrency);
when ``max_in_flight + max_queued`` is reserved, a new request is refused (the service answers 429 with
Retry-After) instead of waiting. Admitted samples take one of ``max_in_flight`` slots in arrival order.
On shutdown, :meth:`Admission.drain` refuses new work and stops reading bodies at once, lets the
scoring in flight finish within the grace period, then cancels what is left (each request answers its
unfinished samples with a reason); answers still being written when the grace ends are cut off.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import anyio

__all__ = ["FINAL_WRITE_S", "SHUTTING_DOWN", "Admission"]

SHUTTING_DOWN = "the service is shutting down"

FINAL_WRITE_S = 1.0
"""After the grace, how long the answers of cut work have to be written (their reason lines)."""


class _Scopes:
    """Cancel scopes of one kind of work in progress, and a way to wait until there are none."""

    def __init__(self) -> None:
        self.scopes: set[anyio.CancelScope] = set()
        self._empty: anyio.Event | None = None

    @contextmanager
    def track(self, scope: anyio.CancelScope) -> Iterator[anyio.CancelScope]:
        self.scopes.add(scope)
        try:
            yield scope
        finally:
            self.scopes.discard(scope)
            if not self.scopes and self._empty is not None:
                self._empty.set()

    async def wait_empty(self) -> None:
        if self.scopes:
            self._empty = anyio.Event()
            await self._empty.wait()

    def cancel_all(self) -> bool:
        """Cancel every scope; True when there was one."""
        for scope in list(self.scopes):
            scope.cancel()
        return bool(self.scopes)


class Admission:
    def __init__(self, max_in_flight: int, max_queued: int) -> None:
        self.capacity = max_in_flight + max_queued
        self.slots = anyio.CapacityLimiter(max_in_flight)
        self.reserved = 0
        self.draining = False
        self._reading = _Scopes()
        self._working = _Scopes()
        self._sending = _Scopes()

    @property
    def running(self) -> int:
        return int(self.slots.borrowed_tokens)

    @property
    def queued(self) -> int:
        return max(0, self.reserved - self.running)

    def has_room(self) -> bool:
        """Whether a request would find room now (checked before its body is read)."""
        return not self.draining and self.reserved < self.capacity

    def try_reserve(self, room: int) -> int:
        """Reserve room for up to ``room`` samples at once (as many as are free): the room given, 0
        when the queue is full or draining. Taking what is free, a batch is never starved by single
        requests that each need less."""
        given = 0 if self.draining else max(0, min(room, self.capacity - self.reserved))
        self.reserved += given
        return given

    @contextmanager
    def reading(self) -> Iterator[anyio.CancelScope]:
        """Around reading one body: a scope that drain() cancels as it starts."""
        with anyio.CancelScope() as scope, self._reading.track(scope):
            if self.draining:
                scope.cancel()
            yield scope

    @asynccontextmanager
    async def work(self, room: int) -> AsyncIterator[anyio.CancelScope]:
        """Around one admitted request's scoring (``room`` already reserved): a scope that drain()
        cancels when the grace is over."""
        try:
            with self._working.track(anyio.CancelScope()) as scope:
                yield scope
        finally:
            self.reserved -= room

    @contextmanager
    def sending(self) -> Iterator[anyio.CancelScope]:
        """Around writing an answer after its scoring: a scope that drain() cancels when the grace is
        over (a client that reads slowly or not at all cannot hold the shutdown)."""
        with anyio.CancelScope() as scope, self._sending.track(scope):
            yield scope

    async def drain(self, grace_s: float) -> bool:
        """Refuse new work and stop reading bodies; wait up to ``grace_s`` for the work in flight
        and the answers being written, then cancel the rest and wait for it to answer. True when
        work or an answer was cut."""
        self.draining = True
        self._reading.cancel_all()
        with anyio.move_on_after(grace_s):
            await self._working.wait_empty()
            await self._sending.wait_empty()
        cut = self._working.cancel_all()
        await self._working.wait_empty()
        with anyio.move_on_after(FINAL_WRITE_S if cut else 0):  # the cut work's own lines
            await self._sending.wait_empty()
        cut |= self._sending.cancel_all()
        await self._sending.wait_empty()
        return cut
