"""Blocking calls into trustscore's async API, safe inside a running event loop (Jupyter, web apps).

With no event loop running in the calling thread, a call is simply ``anyio.run``. Inside a running
loop ``anyio.run`` would fail ("Already running asyncio in this thread"), so the call goes to one
long-lived background thread that hosts its own event loop (an anyio blocking portal), started on
first need and stopped at interpreter exit. The caller's loop is blocked while it waits, which is
what a *sync* call means; in a notebook, prefer ``await trustscore.score(...)``. No nest_asyncio.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from functools import partial
from typing import Any, TypeVar

import anyio
import anyio.lowlevel
from anyio.from_thread import BlockingPortal, start_blocking_portal

__all__ = ["run_sync", "run_sync_releasing"]

T = TypeVar("T")


def _event_loop_running() -> bool:
    try:
        anyio.lowlevel.current_token()
    except anyio.NoEventLoopError:
        return False
    return True


class _BackgroundLoop:
    """One event loop in a worker thread, shared by every sync call made from inside a running loop."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._context: AbstractContextManager[BlockingPortal] | None = None
        self._portal: BlockingPortal | None = None

    def portal(self) -> BlockingPortal:
        with self._lock:
            if self._portal is None:
                self._context = start_blocking_portal()
                self._portal = self._context.__enter__()
                atexit.register(self.stop)
            return self._portal

    def stop(self) -> None:
        with self._lock:
            context, self._context, self._portal = self._context, None, None
        if context is not None:
            context.__exit__(None, None, None)


_background = _BackgroundLoop()


def run_sync(fn: Callable[..., Awaitable[T]], /, *args: Any, **kwargs: Any) -> T:
    """Run ``await fn(*args, **kwargs)`` to completion from synchronous code and return its result."""
    return run_sync_releasing(fn, None, *args, **kwargs)


def run_sync_releasing(
    fn: Callable[..., Awaitable[T]],
    release: Callable[[], Awaitable[None]] | None,
    /,
    *args: Any,
    **kwargs: Any,
) -> T:
    """:func:`run_sync`, then ``await release()`` before a temporary event loop ends.

    With no loop running, the call gets a loop of its own that dies with it. Anything the call
    opened in that loop (pooled HTTP connections) must be closed there: otherwise each call leaves
    a client and its sockets behind, kept alive by the dead loop they reference. The long-lived
    background loop keeps its clients for the next call, so ``release`` is not run there.
    """
    call = partial(fn, *args, **kwargs)
    if _event_loop_running():
        return _background.portal().call(call)
    if release is None:
        return anyio.run(call)

    async def call_then_release() -> T:
        try:
            return await call()
        finally:
            with anyio.CancelScope(shield=True):
                await release()

    return anyio.run(call_then_release)
