"""Sampled online monitoring: score a fraction of live traffic in the background.

::

    async with Monitor(scorer, sample_rate=0.05, sink="scores.jsonl") as monitor:
        ...
        answer = await generate(question, passages)
        monitor.submit(question=question, context=passages, response=answer)   # returns at once

``submit`` never waits: a sample not drawn by ``sample_rate``, or drawn while ``max_queued`` samples
already wait, is counted (:attr:`Monitor.stats`; with telemetry on, the ``trustscore.monitor.dropped``
counter by reason, beside a ``trustscore.monitor.queue.depth`` gauge) and dropped. ``concurrency``
workers score what is queued; each result goes to the ``sink`` (result rows, the JSONL ``trustscore
score`` writes) and, when telemetry is on, becomes a score span parented to the span that was current
at ``submit`` (the request that produced the answer). Leaving the block scores what is queued, then
closes the sink. ``submit`` must be called from the event loop that entered the Monitor.

The sink is a path (a :class:`~trustscore.rows.RowSink`) or any :class:`~trustscore.rows.ResultSink`
(a database, a queue: one class). It never harms the host: a path is opened and written in a worker
thread, must be a regular file (a FIFO or a device is refused) and gets a newline first if its last
row was torn; a fault of any sink (refused, disk full, I/O error, a sink's own exception) is counted
in ``stats.sink_failed`` with its reason in ``stats.sink_fault`` and logged once; the application's
code inside the block never sees it.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from trustscore._errors import InputError
from trustscore._types import Sample
from trustscore.rows import ResultSink, RowSink, carried_fields
from trustscore.rows._output import result_row
from trustscore.scoring._inputs import make_sample
from trustscore.scoring._scorer import Scorer
from trustscore.telemetry import attached, capture
from trustscore.telemetry._monitoring import count_drop, watch_queue

__all__ = ["Monitor", "MonitorStats"]

logger = logging.getLogger("trustscore.monitor")


@dataclass
class MonitorStats:
    submitted: int = 0
    """Calls to submit."""
    sampled: int = 0
    """Drawn by ``sample_rate`` and queued."""
    sampled_out: int = 0
    """Not drawn by ``sample_rate``."""
    dropped: int = 0
    """Drawn, but the queue was full."""
    scored: int = 0
    failed: int = 0
    """Raised unexpectedly while scored (logged; signal failures are not failures here)."""
    sink_failed: int = 0
    """Scored, but not written: the sink was refused or failed (disk full, I/O error; logged once)."""
    sink_fault: str | None = None
    """Why the sink first failed, as one line (None while it has not)."""


_Item = tuple[Sample, dict[str, Any], object | None]


class Monitor:
    def __init__(
        self,
        scorer: Scorer,
        *,
        sample_rate: float = 1.0,
        max_queued: int = 1000,
        concurrency: int = 4,
        sink: str | Path | ResultSink | None = None,
        budget_s: float | None = None,
        seed: int | None = None,
    ) -> None:
        if not isinstance(sample_rate, int | float) or not 0.0 <= sample_rate <= 1.0:
            raise InputError(f"sample_rate must be a fraction in [0, 1] (got {sample_rate!r})")
        if not isinstance(max_queued, int) or max_queued < 1:
            raise InputError(f"max_queued must be a positive integer (got {max_queued!r})")
        if not isinstance(concurrency, int) or concurrency < 1:
            raise InputError(f"concurrency must be a positive integer (got {concurrency!r})")
        self.scorer = scorer
        self.sample_rate = float(sample_rate)
        self.concurrency = concurrency
        self.budget_s = budget_s
        self.stats = MonitorStats()
        self._max_queued = max_queued
        if sink is not None and not isinstance(sink, str | Path | ResultSink):
            raise InputError(f"sink must be a file path or a ResultSink (got {type(sink).__name__})")
        self._sink_given = RowSink(Path(sink)) if isinstance(sink, str | Path) else sink
        self._sink: ResultSink | None = None
        self._draw = random.Random(seed)
        self._queue: MemoryObjectSendStream[_Item] | None = None
        self._tasks: TaskGroup | None = None
        self._unwatch: Callable[[], None] | None = None

    def submit(
        self,
        *,
        question: str,
        response: str,
        context: str | Sequence[str] | None = None,
        id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        domain: str | None = None,
    ) -> bool:
        """Queue this answer for scoring if drawn; True when queued. Never waits. Bad input raises
        InputError naming the field, as does a metadata key the sink's row gives to the result
        (``score``, ``id``, ...: :func:`~trustscore.rows.carried_fields`). ``domain`` names the
        sample's domain (an adapted calibrator's adaptation); the row carries it as ``sample_domain``."""
        if self._queue is None:
            raise InputError("Monitor.submit outside its block: use 'async with Monitor(...) as monitor'")
        sample = make_sample(
            question=question, context=context, response=response, id=id, metadata=metadata, domain=domain
        )
        carried = carried_fields(sample, where="invalid sample: metadata")
        self.stats.submitted += 1
        if self._draw.random() >= self.sample_rate:
            self.stats.sampled_out += 1
            count_drop("sampled_out")
            return False
        try:
            self._queue.send_nowait((sample, carried, capture()))
        except anyio.WouldBlock:
            self.stats.dropped += 1
            count_drop("queue_full")
            return False
        self.stats.sampled += 1
        return True

    async def _work(self, queue: MemoryObjectReceiveStream[_Item]) -> None:
        async for sample, carried, trace_context in queue:
            try:
                with attached(trace_context):
                    result = await self.scorer.score_sample(sample, budget_s=self.budget_s)
            except Exception:
                self.stats.failed += 1
                logger.exception("monitoring: scoring sample %s failed", sample.id)
                continue
            self.stats.scored += 1
            if self._sink is not None:
                await self._write(result_row(sample.id or "", result, carried))

    async def _write(self, row: dict[str, Any]) -> None:
        """One row to the sink; whatever it raises is counted, logged once, and never reaches the host."""
        assert self._sink is not None
        try:
            await self._sink.write(row)
        except Exception as e:
            self._sink_fault(e.strerror if isinstance(e, OSError) and e.strerror else repr(e))

    def _sink_fault(self, why: str) -> None:
        self.stats.sink_failed += 1
        if self.stats.sink_fault is None:
            self.stats.sink_fault = why
            assert self._sink is not None
            logger.warning(
                "monitoring: the sink %s cannot be written (%s); rows go unwritten and are counted in "
                "Monitor.stats.sink_failed",
                self._sink.name,
                why,
            )

    async def __aenter__(self) -> Monitor:
        if self._sink_given is not None:
            self._sink = self._sink_given  # a path's RowSink opens with its first write, off the loop
            try:
                await self._sink.open()
            except Exception as e:
                self._sink_fault(repr(e))
        send, receive = anyio.create_memory_object_stream[_Item](self._max_queued)
        self._queue = send
        self._unwatch = watch_queue(self, lambda: send.statistics().current_buffer_used)
        self._tasks = await anyio.create_task_group().__aenter__()
        for _ in range(self.concurrency):
            self._tasks.start_soon(self._work, receive.clone())
        receive.close()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        """Score what is queued (flush), then close the sink."""
        assert self._queue is not None and self._tasks is not None
        self._queue.close()
        self._queue = None
        try:
            return await self._tasks.__aexit__(exc_type, exc, tb)
        finally:
            if self._unwatch is not None:
                self._unwatch()
                self._unwatch = None
            if self._sink is not None:
                with anyio.CancelScope(shield=True):
                    try:
                        await self._sink.close()
                    except Exception as e:
                        self._sink_fault(repr(e))
                self._sink = None
