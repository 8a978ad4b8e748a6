"""uvicorn's h11 protocol with the two bounds uvicorn does not offer: a deadline for a request's head,
and a cap on open connections.

uvicorn's own ``timeout_keep_alive`` closes a connection idle *between* requests, but a byte received
resets it, so a client trickling a request head one byte at a time holds its connection for ever (the
head needs no key: it is read before any route runs). Here each request head must be complete within
``header_timeout_s`` of its first byte (of the connection, for the first request), or the connection
is closed. uvicorn's ``limit_concurrency`` answers 503 only once a full head has arrived, so it never
reaches such a client either; here a connection beyond ``max_connections`` makes room by closing
the connection that has waited longest for a request head, or is closed as it is accepted when every
connection is busy with a request; this keeps the process's open files well below its limit. And a
connection answered before its request's body was read is closed, rather than left to a client that
keeps sending it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["BoundedH11Protocol", "accept_limits", "bounded_protocol"]

logger = logging.getLogger("trustscore.api")


class BoundedH11Protocol(H11Protocol):
    def __init__(self, *args: Any, header_timeout_s: float, max_connections: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timeout_s = header_timeout_s
        self.max_connections = max_connections
        self.head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if len(self.connections) >= self.max_connections and not self._evict_a_waiting_head():
            transport.abort()  # its file descriptor is given back at once; nothing was read
            return
        super().connection_made(transport)
        self._arm_head_timer()

    def _evict_a_waiting_head(self) -> bool:
        """At the cap, close the connection that has waited longest for a request head (a trickler,
        or an idle keep-alive) to make room; False when every connection is busy with a request.
        A real client sends its head at once, so tricklers cannot crowd it out."""
        waiting = [
            c
            for c in self.connections
            if isinstance(c, BoundedH11Protocol) and c.head_timer is not None and not c.transport.is_closing()
        ]
        if not waiting:
            return False
        oldest = min(waiting, key=lambda c: c.head_timer.when() if c.head_timer is not None else 0.0)
        oldest.transport.close()
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_timer()
        if self.transport is not None:  # None: closed in connection_made, never served
            super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE:
            self._arm_head_timer()  # a new request head starts (or goes on) arriving
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm_head_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.conn.their_state is h11.SEND_BODY and not self.transport.is_closing():
            # Answered before its body was read (401, 413, 429, a GET with a body): a client still
            # sending it would hold the connection with no deadline, each byte resetting keep-alive.
            self.transport.close()

    def head_timed_out(self) -> None:
        """The head did not arrive in time: close the connection (nothing was handed to the app)."""
        self.head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            logger.debug("closing a connection whose request head took over %g s", self.header_timeout_s)
            self.transport.close()

    def _arm_head_timer(self) -> None:
        if self.head_timer is None:
            self.head_timer = self.loop.call_later(self.header_timeout_s, self.head_timed_out)

    def _disarm_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None


def bounded_protocol(header_timeout_s: float, max_connections: int) -> Any:
    """The protocol factory to give ``uvicorn.Config(http=...)``."""
    return functools.partial(
        BoundedH11Protocol, header_timeout_s=header_timeout_s, max_connections=max_connections
    )


FILES_RESERVED = 64
"""File descriptors kept for everything but connections: listeners, caches, model files, imports."""

UVICORN_BACKLOG = 2048


def accept_limits(wanted: int) -> tuple[int, int]:
    """The connection cap and the listen backlog that keep the process under its open-file limit
    (RLIMIT_NOFILE). asyncio accepts up to a backlog's worth of connections at each wake-up before
    any reaches the protocol, so connections can reach the cap plus the backlog: both are lowered,
    with a warning, where the limit is smaller than ``wanted`` plus uvicorn's backlog."""
    try:
        import resource
    except ImportError:  # not a Unix: no such limit to keep under
        return wanted, UVICORN_BACKLOG
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or wanted + UVICORN_BACKLOG + FILES_RESERVED <= soft:
        return wanted, UVICORN_BACKLOG
    usable = max(2, soft - FILES_RESERVED)
    backlog = min(UVICORN_BACKLOG, max(1, usable // 4))
    cap = max(1, min(wanted, usable - backlog))
    logger.warning(
        "max_connections %d lowered to %d, listen backlog to %d: the open-file limit (ulimit -n) is %d",
        wanted,
        cap,
        backlog,
        soft,
    )
    return cap, backlog
