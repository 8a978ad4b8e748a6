"""Run an anyio program on a virtual clock: whenever every task waits, time jumps to the next timer,
so sleeps, timeouts, Retry-After waits and time budgets take no wall time, and how fast a loaded box
runs the code between them changes nothing. For programs that work on the event loop only (an
in-process MockTransport server): a worker thread's work takes no virtual time either.

asyncio: an event loop whose ``time()`` is virtual and whose selector, finding nothing ready, moves
that time to the next timer instead of waiting. trio: its own ``MockClock(autojump_threshold=0)``.
The trustscore modules that read the clock themselves (the deadline, the Scorer's seconds, the
limiter's windows) get the same virtual time in place of their ``time`` module.
"""

from __future__ import annotations

import asyncio
import selectors
import time
from collections.abc import Awaitable, Callable
from types import ModuleType, SimpleNamespace
from typing import Any, TypeVar

import anyio
import pytest

T = TypeVar("T")


class _JumpingSelector(selectors.DefaultSelector):  # type: ignore[misc, valid-type]
    def __init__(self, loop: VirtualTimeLoop) -> None:
        super().__init__()
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[Any]:
        ready = super().select(0)
        if ready or timeout == 0:
            return ready
        if timeout is None:  # no timer at all: only another thread can wake the loop
            return super().select(None)
        self._loop.now += timeout
        return []


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        self.now = 0.0
        super().__init__(_JumpingSelector(self))

    def time(self) -> float:
        return self.now


def run_on_virtual_time(
    main: Callable[[], Awaitable[T]], backend: str, monkeypatch: pytest.MonkeyPatch, clocked: list[ModuleType]
) -> T:
    """``anyio.run(main)`` on ``backend`` with a virtual clock, also seen by the ``clocked`` modules."""
    options: dict[str, Any]
    if backend == "trio":
        from trio.testing import MockClock

        clock = MockClock(autojump_threshold=0)
        now: Callable[[], float] = clock.current_time
        options = {"clock": clock}
    else:
        loop = VirtualTimeLoop()
        now = loop.time
        options = {"loop_factory": lambda: loop}
    stand_in = SimpleNamespace(monotonic=now, perf_counter=now, time=time.time)
    for module in clocked:
        monkeypatch.setattr(module, "time", stand_in)
    return anyio.run(main, backend=backend, backend_options=options)
