"""Cooperative cancellation for blocking work: how a time budget reaches a worker thread.

A local signal runs its CPU work in a worker thread, which no event loop can interrupt. The Scorer
binds a :class:`Deadline` to the context the thread inherits (anyio copies context variables into
worker threads); the work calls :func:`checkpoint` between chunks, which raises
:class:`BudgetExceeded` once the deadline has passed or the Scorer cancelled the call. Outside a
bound context ``checkpoint`` costs one context-variable read and never raises.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from trustscore.errors import BudgetExceeded

__all__ = ["Deadline", "bound", "check_in_every_leaf", "checkpoint", "current_deadline"]


class Deadline:
    """An absolute ``time.monotonic()`` deadline that can also be cancelled early (thread-safe)."""

    def __init__(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds
        self._cancelled = threading.Event()
        self._lock = threading.Lock()
        self._wakes: list[threading.Event] = []

    def cancel(self) -> None:
        with self._lock:
            self._cancelled.set()
            wakes, self._wakes = self._wakes, []
        for wake in wakes:
            wake.set()

    def wake_on_cancel(self, wake: threading.Event) -> None:
        """Set ``wake`` when the deadline is cancelled (at once if it is already), so a thread blocked
        on ``wake`` notices a cancellation without polling."""
        with self._lock:
            if not self._cancelled.is_set():
                self._wakes.append(wake)
                return
        wake.set()

    @property
    def over(self) -> bool:
        return self._cancelled.is_set() or time.monotonic() >= self.at


_current: ContextVar[Deadline | None] = ContextVar("trustscore_deadline", default=None)


@contextmanager
def bound(deadline: Deadline) -> Iterator[Deadline]:
    """Make ``deadline`` the one :func:`checkpoint` checks, in this context and threads started from it."""
    token = _current.set(deadline)
    try:
        yield deadline
    finally:
        _current.reset(token)


def current_deadline() -> Deadline | None:
    """The deadline bound in this context (None outside a budget): work handed to another thread
    takes it along."""
    return _current.get()


def checkpoint() -> None:
    """Raise :class:`BudgetExceeded` if the bound deadline is over; call it between chunks of work."""
    deadline = _current.get()
    if deadline is not None and deadline.over:
        raise BudgetExceeded("time budget over")


def check_in_every_leaf(model: Any) -> None:
    """Make every leaf module of a torch ``model`` call :func:`checkpoint` before it runs, so the
    budget reaches inside one forward pass (a few microseconds per module; no-op when unbound)."""
    for module in model.modules():
        if next(module.children(), None) is None:
            module.register_forward_pre_hook(_checkpoint_hook)


def _checkpoint_hook(module: Any, args: Any) -> None:
    checkpoint()
