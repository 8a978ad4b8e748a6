"""A lane: one daemon thread that serves queued requests in rounds, so work of many callers is batched.

Both local encoder lanes use it (the embedder's in :mod:`trustscore.textmodels._lane`, the encoder
signals' in :mod:`trustscore.encoders._common`). Running a model in whichever worker thread a sample got
made each thread keep its own allocator arena at its own peak; one thread per model does not.
Requests that queue while a round runs are served together in the next one.

The score budget still binds: each request carries its caller's
:class:`~trustscore.compute._deadline.Deadline`. Its clock is stopped from submit until a round takes
the request: time queued behind other callers' work is not charged to the caller (the deadline's
ceiling still bounds it). A request whose caller gave up (budget over, or
cancelled) before its round is dropped, and a round's work is bound to :class:`AllGaveUp`, which is
over only when *every* caller it serves has given up, so one caller's budget never cuts the others'.

At interpreter exit every lane is closed (:meth:`Lane.close`, registered with :mod:`atexit`): requests
still queued fail, the round in progress is stopped at its next budget check, and the thread is joined.
A daemon thread left inside torch while the interpreter finalises aborts the process ("terminate
called without an active exception"), as exiting right after a budget cut did.
"""

from __future__ import annotations

import atexit
import threading
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from trustscore._errors import BudgetExceeded, LaneClosed
from trustscore.compute._deadline import Deadline

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

    def hold(self) -> None:
        """Stop the clock of every caller served (a model loading inside the round)."""
        for r in self._requests:
            if r.deadline is not None:
                r.deadline.hold()

    def release(self) -> None:
        _resume_clocks(self._requests)


class Lane(Generic[R]):
    """A daemon thread (started on first use) that hands every round of live requests to ``serve``.

    ``serve`` runs on the lane thread and must settle each request's future (result or exception).
    """

    def __init__(self, serve: Callable[[list[R]], None], name: str) -> None:
        self._serve = serve
        self._name = name
        self._pending: list[R] = []
        self._serving: list[R] = []
        self._closed = False
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        _open_lanes.add(self)

    def submit(self, request: R) -> None:
        with self._wake:
            if self._closed:
                request.fail_waiting(LaneClosed(f"{self._name} is closed: the process is exiting"))
                return
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
                self._thread.start()
            if request.deadline is not None:
                request.deadline.hold()
            self._pending.append(request)
            self._wake.notify()

    def close(self) -> None:
        """Fail the queued requests, stop the round in progress at its next budget check (its callers
        count as gone) and wait for the thread to end. Later submits fail with :class:`LaneClosed`."""
        with self._wake:
            self._closed = True
            queued, self._pending = self._pending, []
            for request in self._serving:
                request.abandoned.set()
            self._wake.notify()
            thread = self._thread
        _resume_clocks(queued)
        for request in queued:
            request.fail_waiting(LaneClosed(f"{self._name} is closed: the process is exiting"))
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _loop(self) -> None:
        while True:
            with self._wake:
                while not self._pending and not self._closed:
                    self._wake.wait()
                if self._closed:
                    return
                taken, self._pending = self._pending, []
                self._serving = taken
            _resume_clocks(taken)
            try:
                self._serve_round(taken)
            finally:
                with self._wake:
                    self._serving = []

    def _serve_round(self, taken: list[R]) -> None:
        live = [r for r in taken if r.future.set_running_or_notify_cancel()]
        for r in live:
            if r.gave_up:
                r.future.set_exception(BudgetExceeded("the caller gave up before its turn"))
        waiting = [r for r in live if not r.future.done()]
        if waiting:
            self._serve(waiting)


def _resume_clocks(requests: Sequence[LaneRequest]) -> None:
    """Restart the clocks :meth:`Lane.submit` stopped: the requests left the queue."""
    for request in requests:
        if request.deadline is not None:
            request.deadline.release()


_open_lanes: weakref.WeakSet[Lane[Any]] = weakref.WeakSet()


@atexit.register
def _close_lanes() -> None:
    for lane in list(_open_lanes):
        lane.close()
