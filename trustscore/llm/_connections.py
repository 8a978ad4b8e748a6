"""Connection pools small enough that httpx's per-request bookkeeping stays cheap.

httpcore's connection pool re-examines its whole state on every request and every response: each
connection's expiry (a socket poll), and for each idle connection a count over all of them, so its
cost per request grows with the square of the connections it holds (httpcore 1.0.x,
``AsyncConnectionPool._assign_requests_to_connections``). A five-judge ensemble keeps ~40 requests
in flight against one server, where that bookkeeping becomes most of the client's CPU per request.
:class:`ShardedClients` spreads the requests of one server
over several httpx clients of at most ``shard_width`` connections each, opening another only when
every open one is full, so the bookkeeping per request stays bounded whatever the concurrency.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx

__all__ = ["SHARD_WIDTH", "ShardedClients"]

SHARD_WIDTH = 8
"""Connections per httpx client (chosen with benchmarks/judges/bench_judges.py; docs/benchmarks.md)."""


class ShardedClients:
    """The httpx clients of one server on one event loop. ``acquire()`` -> a shard index to send
    on; ``release(index)`` when the response is read."""

    def __init__(self, make_client: Callable[[int], httpx.AsyncClient], max_connections: int) -> None:
        self._make = make_client
        self._max_shards = max(1, -(-max_connections // SHARD_WIDTH))
        self.clients: list[httpx.AsyncClient] = []
        self._busy: list[int] = []

    def acquire(self) -> int:
        """The least busy shard; a new one when every shard is full (and the ceiling allows)."""
        best = min(range(len(self._busy)), key=self._busy.__getitem__, default=-1)
        if best < 0 or (self._busy[best] >= SHARD_WIDTH and len(self.clients) < self._max_shards):
            self.clients.append(self._make(SHARD_WIDTH))
            self._busy.append(0)
            best = len(self.clients) - 1
        self._busy[best] += 1
        return best

    def release(self, index: int) -> None:
        self._busy[index] -= 1

    async def aclose(self) -> None:
        clients, self.clients, self._busy = self.clients, [], []
        for client in clients:
            await client.aclose()
