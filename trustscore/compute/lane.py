"""A lane: one daemon thread that serves queued requests in rounds, so work of many callers is batched.

Both local encoder lanes use it (the embedder's in :mod:`trustscore.grounding.lane`, the encoder
signals' in :mod:`trustscore.encoders.common`). Running a model in whichever worker thread a sample got
made each thread keep its own allocator arena at its own peak; one thread per model does not.
Requests that queue while a round runs are served together in the next one.

The score budget still binds: each request carries its caller's
:class:`~trustscore.compute.deadline.Deadline`. A request whose caller gave up (budget over, or
cancelled) before its round is dropped, and a round's work is bound to :class:`AllGaveUp`, which is
over only when *every* caller it serves has given up, so one caller's budget never cuts the others'.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from trustscore.compute.deadline import Deadline
from trustscore.errors import BudgetExceeded

__all__ = ["AllGaveUp", "Lane", "LaneRequest"]


@dataclass(eq=False, kw_only=True)
class LaneRequest:
    """One caller's work on a lane; ``abandoned`` is set when the caller stops waiting."""

    deadline: Deadline | None
    abandoned: threading.Event = field(default_factory=threading.Event)
    future: Future[Any] = field(default_factory=Future)

    @property
    def gave_up(self) -> bool:
        return self.abandoned.is_set() or (self.deadline is not None and self.deadline.over)

    def fail_waiting(self, error: BaseException) -> None:
        """Hand ``error`` to the caller if it still waits (the lane keeps serving others)."""
        if not self.future.done():
            self.future.set_exception(error if isinstance(error, Exception) else RuntimeError(str(error)))


R = TypeVar("R", bound=LaneRequest)


class AllGaveUp(Deadline):
    """Over only when every one of ``requests`` has given up (never, if one has no deadline and waits)."""

    def __init__(self, requests: Sequence[LaneRequest]) -> None:
        super().__init__(0.0)
        self._requests = list(requests)

    @property
    def over(self) -> bool:
        return all(r.gave_up for r in self._requests)


class Lane(Generic[R]):
    """A daemon thread (started on first use) that hands every round of live requests to ``serve``.

    ``serve`` runs on the lane thread and must settle each request's future (result or exception).
    """

    def __init__(self, serve: Callable[[list[R]], None], name: str) -> None:
        self._serve = serve
        self._name = name
        self._pending: list[R] = []
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    def submit(self, request: R) -> None:
        with self._wake:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
                self._thread.start()
            self._pending.append(request)
            self._wake.notify()

    def _loop(self) -> None:
        while True:
            with self._wake:
                while not self._pending:
                    self._wake.wait()
                taken, self._pending = self._pending, []
            live = [r for r in taken if r.future.set_running_or_notify_cancel()]
            for r in live:
                if r.gave_up:
                    r.future.set_exception(BudgetExceeded("the caller gave up before its turn"))
            waiting = [r for r in live if not r.future.done()]
            if waiting:
                self._serve(waiting)
