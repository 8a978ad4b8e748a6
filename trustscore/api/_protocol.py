"""uvicorn's h11 protocol with the two bounds uvicorn does not offer: a deadline for a request's head,
and a cap on open connections.

uvicorn's own ``timeout_keep_alive`` closes a connection idle *between* requests, but a byte received
resets it, so a client trickling a request head one byte at a time holds its connection for ever (the
head needs no key: it is read before any route runs). Here each request head must be complete within
``header_timeout_s`` of its first byte (of the connection, for the first request), or the connection
is closed. uvicorn's ``limit_concurrency`` answers 503 only once a full head has arrived, so it never
reaches such a client either; here a connection beyond ``max_connections`` is closed as it is
accepted, which keeps the process's open files well below its limit. And a connection answered
before its request's body was read is closed, rather than left to a client that keeps sending it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["BoundedH11Protocol", "bounded_protocol", "connection_cap"]

logger = logging.getLogger("trustscore.api")


class BoundedH11Protocol(H11Protocol):
    def __init__(self, *args: Any, header_timeout_s: float, max_connections: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timeout_s = header_timeout_s
        self.max_connections = max_connections
        self.head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if len(self.connections) >= self.max_connections:
            transport.abort()  # its file descriptor is given back at once; nothing was read
            return
        super().connection_made(transport)
        self._arm_head_timer()

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


FD_HEADROOM = 128
"""File descriptors kept free beyond the connections: listeners, caches, model files, threads."""


def connection_cap(wanted: int) -> int:
    """``wanted``, lowered where needed so that connections stay :data:`FD_HEADROOM` below the
    process's open-file limit (RLIMIT_NOFILE), where that limit exists."""
    try:
        import resource
    except ImportError:  # not a Unix: no such limit to keep under
        return wanted
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or wanted <= soft - FD_HEADROOM:
        return wanted
    cap = max(1, soft - FD_HEADROOM)
    logger.warning(
        "max_connections %d lowered to %d: the open-file limit (ulimit -n) is %d", wanted, cap, soft
    )
    return cap
