"""uvicorn's h11 protocol with the two bounds uvicorn does not offer: a deadline for a request's head,
and a cap on open connections.

uvicorn's own ``timeout_keep_alive`` closes a connection idle *between* requests, but a byte received
resets it, so a client trickling a request head one byte at a time holds its connection for ever (the
head needs no key: it is read before any route runs). Here each request head must be complete within
``header_timeout_s`` of its first byte (of the connection, for the first request), or the connection
is closed. uvicorn's ``limit_concurrency`` answers 503 only once a full head has arrived, so it never
reaches such a client either; here a connection beyond ``max_connections`` makes room by closing
an idle keep-alive connection, else the one that has sent the least of its head for the longest (a
trickler), or is closed as it is accepted when every connection is busy with a request. In a head's
first moments a part read without the rest marks a trickler, and a connection not read yet is spared
longest (its whole head may be on its way), so a client that sends its head at once outranks the
tricklers; the open files stay below the process's limit. And a connection answered before its
request's body was read is closed, rather than left to a client that keeps sending it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import socket
from collections.abc import Iterable
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["BoundedH11Protocol", "accept_limits", "bounded_protocol", "widen_listen_queue"]

logger = logging.getLogger("trustscore.api")

HEAD_GRACE_S = 0.5
"""How long a new request head is spared from eviction: enough for a client's whole head to be read
on a busy event loop, short next to the head deadline a trickler can use."""


class BoundedH11Protocol(H11Protocol):
    def __init__(self, *args: Any, header_timeout_s: float, max_connections: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timeout_s = header_timeout_s
        self.max_connections = max_connections
        self.head_timer: asyncio.TimerHandle | None = None
        self.head_started: float | None = None
        self.head_bytes = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if len(self.connections) >= self.max_connections and not self._evict_a_waiting_head():
            transport.abort()  # its file descriptor is given back at once; nothing was read
            return
        super().connection_made(transport)
        self._arm_head_timer()

    def _evict_a_waiting_head(self) -> bool:
        """At the cap, close the connection :meth:`eviction_rank` puts first to make room; False
        when every connection is busy with a request."""
        waiting = [
            c
            for c in self.connections
            if isinstance(c, BoundedH11Protocol) and c.waits_for_a_head() and not c.transport.is_closing()
        ]
        if not waiting:
            return False
        now = self.loop.time()
        min(waiting, key=lambda c: c.eviction_rank(now)).transport.close()
        return True

    def waits_for_a_head(self) -> bool:
        """Between requests (keep-alive) or with a request head still arriving."""
        return self.head_timer is not None or self.timeout_keep_alive_task is not None

    def eviction_rank(self, now: float) -> tuple[int, float]:
        """Lowest goes first: an idle keep-alive connection (its last request was answered); then,
        of the heads begun ``HEAD_GRACE_S`` ago or more, the lowest rate of head bytes since, so the
        one that has sent the least for the longest; then the younger heads of which some bytes were
        read, oldest first (a head sent at once is read whole, so these are incomplete); last, oldest
        first, the connections of which nothing was read yet: a client's whole head may be waiting
        in the kernel's buffer, and it must not be taken for a trickler."""
        if self.head_started is None:  # idle between requests, no head begun
            return 0, 0.0
        waited = now - self.head_started
        if waited >= HEAD_GRACE_S:
            return 1, self.head_bytes / waited
        return (2 if self.head_bytes else 3), self.head_started

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_timer()
        if self.transport is not None:  # None: closed in connection_made, never served
            super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE:
            self._arm_head_timer()  # a new request head starts (or goes on) arriving
            self.head_bytes += len(data)
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm_head_timer()
            self.head_bytes = 0

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.conn.their_state is h11.SEND_BODY and not self.transport.is_closing():
            # Answered before its body was read (401, 413, 429, a GET with a body): a client still
            # sending it would hold the connection with no deadline, each byte resetting keep-alive.
            self.transport.close()

    def head_timed_out(self) -> None:
        """The head did not arrive in time: close the connection (nothing was handed to the app)."""
        self.head_timer = self.head_started = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            logger.debug("closing a connection whose request head took over %g s", self.header_timeout_s)
            self.transport.close()

    def _arm_head_timer(self) -> None:
        if self.head_timer is None:
            self.head_timer = self.loop.call_later(self.header_timeout_s, self.head_timed_out)
            self.head_started = self.loop.time()

    def _disarm_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None
            self.head_started = None


def bounded_protocol(header_timeout_s: float, max_connections: int) -> Any:
    """The protocol factory to give ``uvicorn.Config(http=...)``."""
    return functools.partial(
        BoundedH11Protocol, header_timeout_s=header_timeout_s, max_connections=max_connections
    )


FILES_RESERVED = 64
"""File descriptors kept for everything but connections: listeners, caches, model files, imports."""

UVICORN_BACKLOG = 2048
"""The kernel's queue of connections not yet accepted: they hold no descriptor of the process."""


def accept_limits(wanted: int) -> tuple[int, int]:
    """The connection cap and uvicorn's ``backlog`` that keep the process under its open-file limit
    (RLIMIT_NOFILE), so that accept() never fails for want of a descriptor (asyncio then stops
    accepting for a second, the valid clients with the rest). asyncio accepts up to ``backlog``
    connections at each wake-up before any reaches the protocol, and the descriptors of the
    connections evicted to make room for them are given back only at the next: connections can reach
    the cap plus twice that batch. Both are lowered, with a warning, where the limit is smaller than
    ``wanted`` plus that; :func:`widen_listen_queue` then gives the kernel's queue its full length
    again, so a client waits its turn there rather than have its connection dropped."""
    try:
        import resource
    except ImportError:  # not a Unix: no such limit to keep under
        return wanted, UVICORN_BACKLOG
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or wanted + 2 * UVICORN_BACKLOG + FILES_RESERVED <= soft:
        return wanted, UVICORN_BACKLOG
    usable = max(3, soft - FILES_RESERVED)
    batch = min(UVICORN_BACKLOG, max(1, usable // 8))
    cap = max(1, min(wanted, usable - 2 * batch))
    logger.warning(
        "max_connections %d lowered to %d, connections accepted at once to %d: the open-file limit "
        "(ulimit -n) is %d",
        wanted,
        cap,
        batch,
        soft,
    )
    return cap, batch


def widen_listen_queue(listeners: Iterable[int], length: int = UVICORN_BACKLOG) -> None:
    """Give each listening socket (by descriptor) a kernel queue of ``length``. uvicorn's ``backlog``
    is both asyncio's batch of accepts and the listen queue; where the batch was lowered to keep
    descriptors, a queue that short overflows under a flood of reconnecting clients, and Linux then
    drops a new client's connection attempt, which it retries only a second or more later. Queued
    connections cost the process no descriptor, and they are accepted in the order they came."""
    for fd in listeners:
        with socket.socket(fileno=os.dup(fd)) as listener:
            listener.listen(length)
