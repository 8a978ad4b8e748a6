"""Admission and shutdown for the scoring service: a bounded queue in front of the Scorer.

A request reserves room for the samples it will score at once (one, or up to a batch's concurrency);
when ``max_in_flight + max_queued`` is reserved, a new request is refused (the service answers 429 with
Retry-After) instead of waiting. Admitted samples take one of ``max_in_flight`` slots in arrival order.
On shutdown, :meth:`Admission.drain` refuses new work, lets the work in flight finish for the grace
period, then cancels what is left: each request answers its unfinished samples with a reason.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

__all__ = ["SHUTTING_DOWN", "Admission"]

SHUTTING_DOWN = "the service is shutting down"


class Admission:
    def __init__(self, max_in_flight: int, max_queued: int) -> None:
        self.capacity = max_in_flight + max_queued
        self.slots = anyio.CapacityLimiter(max_in_flight)
        self.reserved = 0
        self.draining = False
        self._scopes: set[anyio.CancelScope] = set()
        self._idle: anyio.Event | None = None

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

    @asynccontextmanager
    async def work(self, room: int) -> AsyncIterator[anyio.CancelScope]:
        """Around one admitted request (``room`` already reserved): a scope that drain() cancels."""
        scope = anyio.CancelScope()
        self._scopes.add(scope)
        try:
            yield scope
        finally:
            self._scopes.discard(scope)
            self.reserved -= room
            if not self._scopes and self._idle is not None:
                self._idle.set()

    async def drain(self, grace_s: float) -> bool:
        """Refuse new work; wait up to ``grace_s`` for the work in flight, then cancel the rest and
        wait for it to answer. True when work was cut."""
        self.draining = True
        if not self._scopes:
            return False
        self._idle = anyio.Event()
        with anyio.move_on_after(grace_s):
            await self._idle.wait()
        cut = bool(self._scopes)
        for scope in list(self._scopes):
            scope.cancel()
        if self._scopes:
            await self._idle.wait()
        return cut
