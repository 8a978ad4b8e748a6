"""Calls on one local model that arrive while it is busy run together, as one batch.

A model forward in a worker thread holds the model; the calls that arrive meanwhile (the other concepts
of a question, the concepts of other samples in flight) wait, and the next worker-thread hop runs all
of them at once: one batched ``generate`` instead of one per call. The first waiting caller leads the
next batch; the others wait for it. The batch runs shielded from the leader's cancellation, so a caller
cut off (its budget over) never fails the calls batched with it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

import anyio

__all__ = ["MicroBatcher"]

In = TypeVar("In")
Out = TypeVar("Out")


class _Call(Generic[In, Out]):
    def __init__(self, item: In) -> None:
        self.item = item
        self.done = False
        self.result: Out | None = None
        self.error: BaseException | None = None


class MicroBatcher(Generic[In, Out]):
    """``await submit(item)`` runs ``run_batch(items)`` (blocking; in a worker thread behind
    ``limiter``) on the calls waiting together, at most ``max_batch`` at a time. ``run_batch`` returns
    one output per item, in order; if it raises, every call of its batch raises that error.

    One batcher serves one event loop (its limiter belongs to that loop)."""

    def __init__(
        self,
        run_batch: Callable[[list[In]], list[Out]],
        limiter: Callable[[], anyio.CapacityLimiter],
        max_batch: int,
    ) -> None:
        self._run_batch = run_batch
        self._limiter = limiter
        self._max_batch = max_batch
        self._pending: list[_Call[In, Out]] = []
        self._busy = False
        self._batch_done = anyio.Event()

    async def submit(self, item: In) -> Out:
        call: _Call[In, Out] = _Call(item)
        self._pending.append(call)
        try:
            while not call.done:
                if self._busy:
                    await self._batch_done.wait()
                else:
                    await self._lead()
        finally:
            if not call.done and call in self._pending:
                self._pending.remove(call)  # cancelled while waiting: not run
        if call.error is not None:
            raise call.error
        return call.result  # type: ignore[return-value]

    async def _lead(self) -> None:
        self._busy = True
        batch, self._pending = self._pending[: self._max_batch], self._pending[self._max_batch :]
        try:
            with anyio.CancelScope(shield=True):
                try:
                    outputs = await anyio.to_thread.run_sync(
                        self._run_batch, [c.item for c in batch], limiter=self._limiter()
                    )
                except Exception as e:
                    for c in batch:
                        c.error = e
                else:
                    for c, out in zip(batch, outputs, strict=True):
                        c.result = out
                for c in batch:
                    c.done = True
        finally:
            self._busy = False
            finished, self._batch_done = self._batch_done, anyio.Event()
            finished.set()
