"""Run a coroutine function on another thread's event loop (asyncio or trio), to close what was
opened there: pooled connections must be closed by the loop that opened them."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.to_thread

__all__ = ["close_on_loop"]


async def close_on_loop(
    native_token: object, close: Callable[[], Awaitable[Any]], *, timeout_s: float
) -> bool:
    """``await close()`` on the loop ``native_token`` names (an asyncio loop or a TrioToken), waiting
    in a worker thread so the calling loop keeps running. False when that loop has ended (nothing can
    run there any more) or did not finish within ``timeout_s`` (e.g. it is blocked waiting for us)."""
    with anyio.move_on_after(timeout_s):
        return await anyio.to_thread.run_sync(_close_blocking, native_token, close, abandon_on_cancel=True)
    return False


def _close_blocking(native_token: object, close: Callable[[], Awaitable[Any]]) -> bool:
    if isinstance(native_token, asyncio.AbstractEventLoop):
        if native_token.is_closed() or not native_token.is_running():
            return False

        async def run() -> None:
            await close()

        try:
            asyncio.run_coroutine_threadsafe(run(), native_token).result()
        except RuntimeError:  # the loop stopped while the call was queued
            return False
        return True
    import trio  # not asyncio: the token is a TrioToken, so trio is installed

    assert isinstance(native_token, trio.lowlevel.TrioToken)  # anyio runs on asyncio or trio only

    try:
        trio.from_thread.run(close, trio_token=native_token)
    except trio.RunFinishedError:
        return False
    return True
