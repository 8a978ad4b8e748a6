"""Calls on one local model that arrive while it is busy run together, as one batch.

A model forward in a worker thread holds the model; the calls that arrive meanwhile (the other concepts
of a question, the samples in flight) wait, and the next worker-thread hop runs all of them at once:
one batched ``generate`` or forward instead of one per call. The first waiting caller leads the next
batch; the others wait for it.

One caller never costs the others their results. The batch runs shielded from the leader's
cancellation, and bound to :class:`~trustscore.compute._lane.AllGaveUp`: the budget checks inside the
model stop it only once *every* caller in it has given up (budget over or cancelled), never on the
leader's budget alone. ``run_batch`` may answer one item with an exception, which fails that call alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import anyio
import anyio.lowlevel
from anyio.lowlevel import RunVar

from trustscore.compute._deadline import bound, current_deadline
from trustscore.compute._lane import AllGaveUp, LaneRequest

__all__ = ["MicroBatcher", "loop_batcher"]

In = TypeVar("In")
Out = TypeVar("Out")


@dataclass(eq=False, kw_only=True)
class _Call(LaneRequest, Generic[In]):
    """One caller's item; its outcome is settled on ``future``."""

    item: In


class MicroBatcher(Generic[In, Out]):
    """``await submit(item)`` runs ``run_batch(items)`` (blocking; in a worker thread behind
    ``limiter``) on the calls waiting together, at most ``max_batch`` at a time. ``run_batch`` returns
    one outcome per item, in order: an output, or an exception that fails that item's call alone; if
    ``run_batch`` raises, every call of its batch raises that error.

    One batcher serves one event loop (its limiter belongs to that loop)."""

    def __init__(
        self,
        run_batch: Callable[[list[In]], Sequence[Out | Exception]],
        limiter: Callable[[], anyio.CapacityLimiter],
        max_batch: int,
    ) -> None:
        self._run_batch = run_batch
        self._limiter = limiter
        self._max_batch = max_batch
        self._pending: list[_Call[In]] = []
        self._busy = False
        self._batch_done = anyio.Event()

    async def submit(self, item: In) -> Out:
        call: _Call[In] = _Call(item=item, deadline=current_deadline())
        self._pending.append(call)
        try:
            while not call.future.done():
                if self._busy:
                    await self._batch_done.wait()
                else:
                    await anyio.lowlevel.checkpoint_if_cancelled()  # a caller cut off leads no batch
                    await self._lead()
            await anyio.lowlevel.checkpoint_if_cancelled()  # cut off during its (shielded) batch
        finally:
            if not call.future.done():
                call.abandoned.set()  # the batch running it stops once every caller in it gave up
                if call in self._pending:
                    self._pending.remove(call)  # cancelled while waiting: not run
        return call.future.result()  # type: ignore[no-any-return]

    def _run(self, batch: list[_Call[In]]) -> Sequence[Out | Exception]:
        with bound(AllGaveUp(batch)):
            return self._run_batch([c.item for c in batch])

    async def _lead(self) -> None:
        self._busy = True
        batch, self._pending = self._pending[: self._max_batch], self._pending[self._max_batch :]
        try:
            with anyio.CancelScope(shield=True):
                try:
                    outcomes = await anyio.to_thread.run_sync(self._run, batch, limiter=self._limiter())
                except Exception as e:
                    for c in batch:
                        c.fail_waiting(e)
                else:
                    for c, outcome in zip(batch, outcomes, strict=True):
                        if isinstance(outcome, Exception):
                            c.fail_waiting(outcome)
                        else:
                            c.future.set_result(outcome)
        finally:
            self._busy = False
            finished, self._batch_done = self._batch_done, anyio.Event()
            finished.set()


_batchers: RunVar[dict[tuple[object, str], MicroBatcher[Any, Any]]] = RunVar("trustscore_whitebox_batchers")


def loop_batcher(
    owner: object,
    name: str,
    run_batch: Callable[[list[In]], Sequence[Out | Exception]],
    limiter: Callable[[], anyio.CapacityLimiter],
    max_batch: int,
) -> MicroBatcher[In, Out]:
    """``owner``'s batcher called ``name`` in the running event loop, made on first use."""
    try:
        batchers = _batchers.get()
    except LookupError:
        batchers = {}
        _batchers.set(batchers)
    key = (owner, name)
    if key not in batchers:
        batchers[key] = MicroBatcher(run_batch, limiter, max_batch)
    return batchers[key]
