"""The embedder's lane: every forward pass of the embedding model runs on one dedicated thread
(:class:`trustscore.compute._lane.Lane`, which says why and how the budget binds). Texts of the requests
served in one round are de-duplicated and encoded together (the embedder batches them by token count, see
:func:`trustscore.textmodels._embedder.length_batches`); a waiting caller checks its own deadline while
it waits.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from trustscore._errors import BudgetExceeded
from trustscore.compute._deadline import bound, checkpoint, current_deadline
from trustscore.compute._lane import AllGaveUp, Lane, LaneRequest

__all__ = ["EncoderLane"]

_POLL_S = 0.05  # the shortest sleep of a waiting caller between looks at its own deadline

Encode = Callable[[list[str], int], np.ndarray]
"""``encode(texts, batch_size)``: vectors of unique texts in the order given (on the lane thread only)."""


@dataclass(eq=False, kw_only=True)
class _Request(LaneRequest):
    texts: list[str]
    batch_size: int


class EncoderLane:
    """A dedicated daemon thread (started on first use) that runs ``encode`` for all callers."""

    def __init__(self, encode: Encode, name: str) -> None:
        self._encode = encode
        self._lane: Lane[_Request] = Lane(self._serve, name)
        self._last_round: dict[str, np.ndarray] = {}
        """The previous round's vectors (lane thread only). A caller that missed the embedder's cache
        while that round was computing its texts (another sample of the same context) is served from
        here instead of encoding them again."""

    def run(self, texts: list[str], batch_size: int) -> np.ndarray:
        """Vectors of ``texts`` (unique, non-blank), computed on the lane; blocks the calling thread.

        Raises BudgetExceeded when the caller's bound deadline runs out first.
        """
        deadline = current_deadline()
        request = _Request(texts=list(texts), batch_size=batch_size, deadline=deadline)
        # Sleep until the result, a cancellation or the deadline, whichever comes first: waking every
        # few ms to look at the budget cost ~40 waiting threads GIL time the lane's forward needs.
        woken = threading.Event()
        request.future.add_done_callback(lambda _: woken.set())
        if deadline is not None:
            deadline.wake_on_cancel(woken)
        self._lane.submit(request)
        while not request.future.done():
            # A deadline whose clock is stopped (queued) moves later; one that is not over at its
            # time (one bound by a lane round) is looked at every _POLL_S, as every waiter once was.
            woken.wait(None if deadline is None else max(deadline.seconds_left(), _POLL_S))
            if request.future.done():
                break
            try:
                checkpoint()
            except BudgetExceeded:
                request.abandoned.set()
                request.future.cancel()  # the lane skips it if it has not started it yet
                raise
        return request.future.result()  # type: ignore[no-any-return]

    def _serve(self, requests: list[_Request]) -> None:
        wanted = {t for r in requests for t in r.texts}
        fresh = sorted(wanted - self._last_round.keys())  # a set's order varies: fix it
        table: dict[str, np.ndarray] = {}
        if fresh:
            try:
                with bound(AllGaveUp(requests)):
                    vectors = self._encode(fresh, min(r.batch_size for r in requests))
            except BaseException as e:  # handed to every waiting caller; the lane keeps serving
                for r in requests:
                    r.fail_waiting(e)
                return
            table = dict(zip(fresh, vectors, strict=True))
        table.update((t, self._last_round[t]) for t in wanted - table.keys())
        self._last_round = table
        for r in requests:
            if not r.future.done():
                r.future.set_result(np.stack([table[t] for t in r.texts]))
