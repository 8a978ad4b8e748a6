"""The Ray Data actor: one Scorer per actor process, loaded once, scoring the batches Ray hands it.

Ray calls ``__call__`` from plain threads (several at once, see ``CALLS_PER_ACTOR``), but the
Scorer's LLM clients hold pooled connections bound to the event loop they first ran on. So the
actor keeps one event loop alive for its whole life (an anyio blocking portal in a thread of its
own), builds the Scorer on it, and runs every batch's ``score_many`` there (the portal is
thread-safe; the Scorer serves concurrent calls): connections and the response cache are reused
across batches.

A sample whose scoring raises is returned as a row with its reason (``score_many`` with
``return_exceptions=True``); a failing signal was already a missing signal with its reason.

A sample that kills the actor process itself (a crash in native code, the OOM killer) is handled
with the run's :class:`~trustscore.ray._ledger.DeathLedger`. Ray restarts the actor and runs the
batch again; once a batch has been in flight ``BATCH_DEATHS`` times when its actor died, its
samples are scored one at a time, each alone in the actor (no other call runs meanwhile, so a
death is that sample's doing and its batch mates are not taken down with it). A sample whose
process died ``SAMPLE_DEATHS`` times while it was scored alone is written as a row with ``error``
saying so, and the run goes on.

An actor on the driver's machine stops with its driver: when the driver process is gone (killed
without shutting Ray down) the actor's process exits at once, so no judge is called for a run nobody
will write (:mod:`trustscore.ray._driver_watch`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import partial
from typing import Any

import pyarrow as pa
import ray
from anyio.from_thread import BlockingPortal, start_blocking_portal

from trustscore._config import Config
from trustscore._types import Sample, TrustScore
from trustscore.core._hashing import short_hash
from trustscore.ray._driver_watch import stop_actor, watch_driver
from trustscore.ray._rows import OUTPUT_SCHEMA, error_result, scored_result
from trustscore.rows import ScoreRunSummary
from trustscore.scoring._scorer import Scorer

__all__ = ["BATCH_DEATHS", "SAMPLE_DEATHS", "ScoreBatches", "died_reason"]

BATCH_DEATHS = 3
"""Deaths of the actor with a batch in flight, after which its samples are scored one at a time."""

SAMPLE_DEATHS = 2
"""Deaths of the actor while a sample was scored alone, after which it is written with an error."""


def died_reason(deaths: int) -> str:
    """The ``error`` of a sample that killed its worker. Ray's restarted actor is not told why its
    process died; Ray's worker log on that node says (the exit detail), so the row points there."""
    return (
        f"the worker died while scoring this sample {deaths} times: its process exited before the call "
        "returned (killed by a signal, out of memory, or a crash in native code; the Ray worker log of "
        "that node gives the exit detail); it was scored alone each time, so its batch mates were kept"
    )


class ScoreBatches:
    """``map_batches`` callable class: prepared rows (id, sample, error) in, result rows out.
    ``collector``: a :class:`~trustscore.ray._collector.RunCollector` actor told the on-by-default
    signals this actor skips (the caller says them once; without one the actor warns itself) and each
    batch's share of the run summary."""

    def __init__(
        self,
        config: dict[str, Any],
        ledger: Any,
        *,
        no_cache: bool = False,
        concurrency: int | None = None,
        budget_s: float | None = None,
        carry: tuple[str, ...] = (),
        replace_unsafe_cache_entries: bool = False,
        driver: dict[str, object] | None = None,
        collector: Any = None,
    ) -> None:
        watch_driver(driver, stop_actor)
        self._ledger = ledger
        self._carry = carry
        self._concurrency = concurrency
        self._budget_s = budget_s
        self._calls = _SharedOrAlone()
        self._portal_cm: AbstractContextManager[BlockingPortal] = start_blocking_portal(backend="asyncio")
        self._portal = self._portal_cm.__enter__()
        parsed = Config.model_validate(config)
        build = partial(_build, parsed, no_cache, quiet_skips=collector is not None)
        self._scorer: Scorer = self._portal.call(build)
        self._collector = collector
        if collector is not None and self._scorer.skipped:
            ray.get(collector.note.remote(dict(self._scorer.skipped)))
        if replace_unsafe_cache_entries:
            self._scorer.replace_unsafe_cache_entries()

    def __call__(self, batch: pa.Table) -> pa.Table:
        rows = batch.to_pylist()
        key = "batch:" + short_hash("\n".join(r["id"] for r in rows), 32)
        summary = ScoreRunSummary(output="", judges=self._scorer.judge_names)
        with self._calls.shared():
            deaths = ray.get(self._ledger.begin.remote(key))
            if deaths < BATCH_DEATHS:
                out = self._score_rows(rows, summary)
                return self._done(key, out, summary)
        out = [self._score_alone(row, summary) for row in rows]
        return self._done(key, out, summary)

    def _done(self, key: str, out: list[dict[str, Any]], summary: ScoreRunSummary) -> pa.Table:
        """The batch's result table, once its share of the summary is reported and the ledger told."""
        if self._collector is not None:
            ray.get(self._collector.add.remote(key, summary))
        ray.get(self._ledger.end.remote(key))
        return pa.Table.from_pylist(out, schema=OUTPUT_SCHEMA)

    def _score_rows(self, rows: list[dict[str, Any]], summary: ScoreRunSummary) -> list[dict[str, Any]]:
        samples = [Sample.model_validate_json(r["sample"]) for r in rows if r["error"] is None]
        results: list[TrustScore | Exception] = (
            self._portal.call(
                lambda: self._scorer.score_many(
                    samples,
                    concurrency=self._concurrency,
                    budget_s=self._budget_s,
                    return_exceptions=True,
                )
            )
            if samples
            else []
        )
        scored = iter(zip(samples, results, strict=True))
        out = []
        for row in rows:
            if row["error"] is not None:
                out.append(_error(summary, row["id"], row["error"], None, row["line"]))
                continue
            sample, result = next(scored)
            if isinstance(result, BaseException):
                reason = f"scoring raised {type(result).__name__}: {result}"
                out.append(_error(summary, row["id"], reason, dict(sample.metadata)))
            else:
                out.append(scored_result(sample, result, self._carry))
                summary.add(result)
        return out

    def _score_alone(self, row: dict[str, Any], summary: ScoreRunSummary) -> dict[str, Any]:
        """One row of a batch that kept killing its actor, with no other call running in the actor."""
        if row["error"] is not None:
            return _error(summary, row["id"], row["error"], None, row["line"])
        key = "sample:" + row["id"]
        with self._calls.alone():
            deaths = ray.get(self._ledger.begin.remote(key))
            if deaths >= SAMPLE_DEATHS:
                sample = Sample.model_validate_json(row["sample"])
                out = _error(summary, row["id"], died_reason(deaths), dict(sample.metadata))
            else:
                (out,) = self._score_rows([row], summary)
            ray.get(self._ledger.end.remote(key))
        return out

    def __del__(self) -> None:
        portal_cm = getattr(self, "_portal_cm", None)
        scorer = getattr(self, "_scorer", None)
        if portal_cm is None:
            return
        try:
            if scorer is not None:
                self._portal.call(scorer.aclose)
        finally:
            portal_cm.__exit__(None, None, None)


def _error(
    summary: ScoreRunSummary,
    row_id: str,
    reason: str,
    carried: dict[str, Any] | None,
    line: int | None = None,
) -> dict[str, Any]:
    """The error row's columns (:func:`~trustscore.ray._rows.error_result`), counted in ``summary``."""
    summary.add_error(line, reason, row_id=row_id)
    return error_result(row_id, reason, carried, line)


class _SharedOrAlone:
    """Ordinary batches share the actor; a sample scored alone waits for them to finish and keeps
    new ones out until it is done (a waiting sample goes first, so a steady stream of batches cannot
    starve it)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._shared = 0
        self._alone = False
        self._waiting_alone = 0

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._alone and not self._waiting_alone)
            self._shared += 1
        try:
            yield
        finally:
            with self._cond:
                self._shared -= 1
                self._cond.notify_all()

    @contextmanager
    def alone(self) -> Iterator[None]:
        with self._cond:
            self._waiting_alone += 1
            self._cond.wait_for(lambda: not self._alone and not self._shared)
            self._waiting_alone -= 1
            self._alone = True
        try:
            yield
        finally:
            with self._cond:
                self._alone = False
                self._cond.notify_all()


async def _build(config: Config, no_cache: bool, *, quiet_skips: bool) -> Scorer:
    """Built on the actor's loop, so whatever the Scorer binds to a loop binds to that one.
    ``quiet_skips``: the on-by-default signals it skips are said by the run (``collector``), not
    warned about by this actor."""
    return Scorer.from_config(config, no_cache=no_cache, warn_skipped=not quiet_skips)
