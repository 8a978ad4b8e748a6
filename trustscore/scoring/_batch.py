"""Scoring many samples as a stream: work started lazily within the concurrency bound, results
handed back as they finish, nothing held once handed back.

:class:`ResultStream` pulls the next input only when :class:`~trustscore.llm._scheduling.SampleAdmission`
admits another sample (at most ``limit`` in flight, and only as the LLMs' adaptive limiters have room),
and a finished sample waits, holding its place, until the consumer takes its result. So memory is
bounded by the concurrency, not by the number of samples: the input may be a generator reading a
huge file, and nobody keeps a list of every task or every result.

Why a context manager and not a bare async generator: the stream runs tasks, and a task group held
open across an async generator's ``yield`` is unsound on anyio (on trio, and on asyncio when the
consumer breaks out: the generator is then finalised later, in another task, outside the cancel
scopes it entered). ``async with`` gives the in-flight work one owner and one clean end.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from types import TracebackType
from typing import Any, NamedTuple

import anyio
import anyio.abc
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from trustscore._errors import InputError
from trustscore._types import Sample, TrustScore
from trustscore.llm._protocol import LLM, GatedLLM
from trustscore.llm._scheduling import Capacity, SampleAdmission, Ticket
from trustscore.scoring._inputs import coerce_sample

__all__ = ["ProgressBar", "ResultCallback", "ResultStream", "Scored", "admission_capacities", "call_back"]

ResultCallback = Callable[[int, TrustScore], Awaitable[None] | None]
"""Called as each sample of ``score_many`` finishes, in completion order, with its input index."""


class Scored(NamedTuple):
    """One finished sample of a stream: its position in the input, and its result (an exception in
    place of the result only with ``return_exceptions=True``)."""

    index: int  # type: ignore[assignment]  # shadows tuple.index on purpose: the input position
    result: TrustScore | Exception


class ResultStream:
    """Results of ``score_one`` over ``samples`` as they finish (see the module docstring).

    ::

        async with ResultStream(...) as results:
            async for index, result in results:
                ...

    Leaving the ``async with`` (also by ``break`` or an exception) or ``await results.aclose()``
    cancels the samples still in flight and waits for them to end. A sample that raises ends the
    stream with that error, unless ``return_exceptions`` (then it is yielded in the result's place).
    An invalid input stops the stream from taking more: the samples before it are scored and yielded,
    then InputError names its index; with ``return_exceptions`` its InputError is yielded in its
    place instead and the stream goes on. An error of the input's own iterator always ends the stream
    (after the samples before it).
    """

    def __init__(
        self,
        score_one: Callable[[Sample, Ticket], Awaitable[TrustScore]],
        samples: Iterable[Any] | AsyncIterable[Any],
        *,
        limiters: Sequence[Capacity],
        limit: int,
        return_exceptions: bool,
    ) -> None:
        self._score_one = score_one
        self._samples = samples
        self._limiters = limiters
        self._limit = limit
        self._return_exceptions = return_exceptions
        self._state = "new"
        self._outer: TaskGroup | None = None
        self._work: TaskGroup | None = None
        self._ended = anyio.Event()
        self._receive: MemoryObjectReceiveStream[Scored] | None = None
        self._input_error: Exception | None = None
        """Bad input, or the input's own iterator failed: raised once the samples before it are out."""

    async def __aenter__(self) -> ResultStream:
        if self._state != "new":
            raise RuntimeError("a result stream runs once; call stream() again for another pass")
        self._state = "open"
        send, self._receive = anyio.create_memory_object_stream[Scored](0)
        self._outer = anyio.create_task_group()
        await self._outer.__aenter__()
        await self._outer.start(self._supervise, send)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        await self.aclose()
        assert self._outer is not None
        try:
            return await self._outer.__aexit__(exc_type, exc, tb)
        except BaseExceptionGroup as group:
            # The work has ended, so the only error left is the consumer's own (or its cancellation):
            # it goes on as it is rather than wrapped in an exception group.
            if exc is None or any(leaf is not exc for leaf in _leaves(group)):
                raise
            return None

    async def aclose(self) -> None:
        """Cancel the samples in flight and wait until they have ended (idempotent)."""
        if self._state != "open":
            return
        self._state = "closed"
        assert self._work is not None
        self._work.cancel_scope.cancel()
        with anyio.CancelScope(shield=True):
            await self._ended.wait()
        assert self._receive is not None
        self._receive.close()

    def __aiter__(self) -> AsyncIterator[Scored]:
        return self

    async def __anext__(self) -> Scored:
        if self._state == "new":
            raise RuntimeError(
                "use the stream in an async with block: "
                "`async with scorer.stream(samples) as results: async for index, result in results: ...`"
            )
        if self._state == "closed":
            raise StopAsyncIteration
        assert self._receive is not None
        try:
            item = await self._receive.receive()
        except anyio.EndOfStream:
            await self.aclose()
            if self._input_error is not None:
                raise self._input_error from None
            raise StopAsyncIteration from None
        if isinstance(item.result, Exception) and not self._return_exceptions:
            await self.aclose()
            raise item.result
        return item

    async def _supervise(
        self,
        send: MemoryObjectSendStream[Scored],
        *,
        task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Owns the work: the feeder and every sample's task run in this task's group, so cancelling
        it stops the work without touching the consumer's task."""
        try:
            async with anyio.create_task_group() as work:
                self._work = work
                work.start_soon(self._feed, work, send)
                task_status.started()
        finally:
            self._ended.set()

    async def _feed(self, work: TaskGroup, send: MemoryObjectSendStream[Scored]) -> None:
        admission = SampleAdmission(self._limiters, self._limit)
        async with send:
            try:
                with admission.watching():
                    next_item = _puller(self._samples)
                    index = 0
                    while (item := await next_item()) is not _END:
                        try:
                            sample = coerce_sample(item, index)
                        except InputError as e:
                            if not self._return_exceptions:
                                raise
                            await send.send(Scored(index, e))  # an invalid row is its own result
                            index += 1
                            continue
                        ticket = await admission.next()
                        work.start_soon(self._run_one, index, sample, ticket, send.clone())
                        index += 1
            except Exception as e:  # bad input, or the caller's iterator raised: no more samples start
                self._input_error = e

    async def _run_one(
        self, index: int, sample: Sample, ticket: Ticket, send: MemoryObjectSendStream[Scored]
    ) -> None:
        async with send:
            with ticket:  # held until the consumer takes the result: a slow consumer slows admission
                try:
                    result: TrustScore | Exception = await self._score_one(sample, ticket)
                except Exception as e:
                    result = e
                await send.send(Scored(index, result))


def _leaves(group: BaseExceptionGroup[BaseException]) -> Iterator[BaseException]:
    for e in group.exceptions:
        if isinstance(e, BaseExceptionGroup):
            yield from _leaves(e)
        else:
            yield e


_END = object()


def _puller(samples: Iterable[Any] | AsyncIterable[Any]) -> Callable[[], Awaitable[Any]]:
    """A function giving the next input (``_END`` after the last), pulled only when asked for. Not an
    async generator: one left suspended by a cancelled feeder would be finalised later, elsewhere."""
    if isinstance(samples, AsyncIterable):
        async_items = aiter(samples)

        async def next_async() -> Any:
            return await anext(async_items, _END)

        return next_async
    items = iter(samples)

    async def next_sync() -> Any:
        return next(items, _END)

    return next_sync


async def call_back(on_result: ResultCallback, index: int, result: TrustScore) -> None:
    """``on_result(index, result)``, awaited when it is a coroutine function."""
    maybe = on_result(index, result)
    if inspect.isawaitable(maybe):
        await maybe


class ProgressBar:
    """A rich progress bar on stderr (rich is imported only when a bar is asked for); ``total`` None
    when the number of samples is not known ahead."""

    def __init__(self, total: int | None) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
        )
        self._task = self._progress.add_task("scoring", total=total)
        self._progress.start()

    def advance(self) -> None:
        self._progress.advance(self._task)

    def stop(self) -> None:
        self._progress.stop()


def admission_capacities(llms: Iterable[LLM]) -> list[Capacity]:
    """What admission watches behind these LLMs: each gated one's adaptive limiter, or its replica
    pool's combined gate (an LLM that is not a :class:`~trustscore.llm._protocol.GatedLLM`, such as a
    user's own, takes no part in admission)."""
    return [llm.capacity for llm in llms if isinstance(llm, GatedLLM)]
