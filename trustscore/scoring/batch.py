"""Scoring many samples: bounded concurrency, results in input order, callbacks, a progress bar."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence

import anyio

from trustscore.llm.scheduling import Capacity, SampleAdmission, Ticket
from trustscore.types import Sample, TrustScore

__all__ = ["ResultCallback", "score_batch"]

ResultCallback = Callable[[int, TrustScore], Awaitable[None] | None]
"""Called as each sample of ``score_many`` finishes, in completion order, with its input index."""


async def score_batch(
    score_one: Callable[[Sample], Awaitable[TrustScore]],
    batch: Sequence[Sample],
    *,
    limiters: Sequence[Capacity],
    limit: int,
    progress: bool,
    return_exceptions: bool,
    on_result: ResultCallback | None,
) -> list[TrustScore] | list[TrustScore | Exception]:
    """``score_one`` on every sample, at most ``limit`` at a time and admitted as the LLMs' adaptive
    ``limiters`` have room (:class:`~trustscore.llm.scheduling.SampleAdmission`); see
    :meth:`Scorer.score_many`."""
    admission = SampleAdmission(limiters, limit)
    results: list[TrustScore | Exception | None] = [None] * len(batch)
    first_error: list[Exception] = []
    bar = _ProgressBar(len(batch)) if progress else None

    async def run_one(index: int, sample: Sample, ticket: Ticket, cancel: anyio.CancelScope) -> None:
        with ticket:
            try:
                result = await score_one(sample)
            except Exception as e:
                if not return_exceptions:
                    first_error.append(e)
                    cancel.cancel()
                    return
                results[index] = e
            else:
                results[index] = result
                try:
                    if on_result is not None:
                        maybe = on_result(index, result)
                        if inspect.isawaitable(maybe):
                            await maybe
                except Exception as e:
                    first_error.append(e)
                    cancel.cancel()
                    return
        if bar is not None:
            bar.advance()

    try:
        async with anyio.create_task_group() as tg:
            with admission.watching():
                for i, sample in enumerate(batch):
                    tg.start_soon(run_one, i, sample, await admission.next(), tg.cancel_scope)
    finally:
        if bar is not None:
            bar.stop()
    if first_error:
        raise first_error[0]
    if return_exceptions:
        return [r for r in results if r is not None]
    return [r for r in results if isinstance(r, TrustScore)]


class _ProgressBar:
    """A rich progress bar on stderr (rich is imported only when a bar is asked for)."""

    def __init__(self, total: int) -> None:
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
