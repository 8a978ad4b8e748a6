"""Cooperative cancellation for blocking work: how a time budget reaches a worker thread.

A local signal runs its CPU work in a worker thread, which no event loop can interrupt. The Scorer
binds a :class:`Deadline` to the context the thread inherits (anyio copies context variables into
worker threads); the work calls :func:`checkpoint` between chunks, which raises
:class:`BudgetExceeded` once the deadline has passed or the Scorer cancelled the call. Outside a
bound context ``checkpoint`` costs one context-variable read and never raises.

A deadline measures its holder's own work: while the holder waits on work it did not cause (queued
behind other callers on a lane, or for a model another caller is loading) its clock stops
(:func:`clock_stopped`, :meth:`Deadline.hold`). So that nothing waits forever, a deadline is over in
any case at its ceiling: twice its seconds after it was made.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import anyio

from trustscore._errors import BudgetExceeded

__all__ = [
    "Deadline",
    "bound",
    "check_in_every_leaf",
    "checkpoint",
    "clock_stopped",
    "current_deadline",
    "watch_deadline",
]


class Deadline:
    """A ``time.monotonic()`` deadline whose clock can be stopped while its holder waits on others,
    up to a ceiling of twice ``seconds``, and that can be cancelled early (thread-safe)."""

    def __init__(self, seconds: float) -> None:
        now = time.monotonic()
        self.at = now + seconds
        """When it is over if its clock is not stopped again (moved later by every stop)."""
        self.ceiling = now + 2 * max(seconds, 0.0)
        self._cancelled = threading.Event()
        self._lock = threading.Lock()
        self._wakes: list[threading.Event] = []
        self._holds = 0
        self._held_since = 0.0

    def hold(self) -> None:
        """Stop the clock until the matching :meth:`release` (holds nest: it runs again after the last)."""
        with self._lock:
            if self._holds == 0:
                self._held_since = time.monotonic()
            self._holds += 1

    def release(self) -> None:
        with self._lock:
            self._holds -= 1
            if self._holds == 0 and self.at > self._held_since:  # one already over stays over
                self.at += time.monotonic() - self._held_since

    def seconds_left(self) -> float:
        """Seconds until it is over if nothing changes (<= 0 once over): while the clock is stopped,
        the least it can be, as if the clock ran again now."""
        if self._cancelled.is_set():
            return 0.0
        now = time.monotonic()
        with self._lock:
            left = self.at - (self._held_since if self._holds else now)
        return min(left, self.ceiling - now)

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
        return self.seconds_left() <= 0


_current: ContextVar[Deadline | None] = ContextVar("trustscore_deadline", default=None)


@contextmanager
def bound(deadline: Deadline) -> Iterator[Deadline]:
    """Make ``deadline`` the one :func:`checkpoint` checks, in this context and threads started from it."""
    token = _current.set(deadline)
    try:
        yield deadline
    finally:
        _current.reset(token)


@contextmanager
def clock_stopped() -> Iterator[None]:
    """Stop the bound deadline's clock (if any) for the block: wrap waits on work the caller did not
    cause, such as a model another caller is loading."""
    deadline = _current.get()
    if deadline is None:
        yield
        return
    deadline.hold()
    try:
        yield
    finally:
        deadline.release()


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


async def watch_deadline(deadline: Deadline, scope: anyio.CancelScope) -> None:
    """Cancel ``scope`` when ``deadline`` is over (its clock stops while the sample waits on others'
    work, so the end moves); cancel ``deadline`` when the scope is cancelled for any reason."""
    try:
        while (left := deadline.seconds_left()) > 0:
            await anyio.sleep(left)
        scope.cancel()
    finally:
        deadline.cancel()
