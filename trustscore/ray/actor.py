"""The Ray Data actor: one Scorer per actor process, loaded once, scoring the batches Ray hands it.

Ray calls ``__call__`` from plain threads (several at once, see ``CALLS_PER_ACTOR``), but the
Scorer's LLM clients hold pooled connections bound to the event loop they first ran on. So the
actor keeps one event loop alive for its whole life (an anyio blocking portal in a thread of its
own), builds the Scorer on it, and runs every batch's ``score_many`` there (the portal is
thread-safe; the Scorer serves concurrent calls): connections and the response cache are reused
across batches.

A sample whose scoring raises is returned as a row with its reason (``score_many`` with
``return_exceptions=True``); a failing signal was already a missing signal with its reason. If the
actor process dies mid-batch, Ray restarts it and runs the batch again (see ``dataset.py``).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from functools import partial
from typing import Any

import pyarrow as pa
from anyio.from_thread import BlockingPortal, start_blocking_portal

from trustscore.config import Config
from trustscore.ray.rows import error_result, scored_result
from trustscore.scorer import Scorer
from trustscore.types import Sample, TrustScore

__all__ = ["OUTPUT_SCHEMA", "ScoreBatches"]

OUTPUT_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("score", pa.float64()),
        ("calibrated", pa.bool_()),
        ("fusion", pa.string()),
        ("complete", pa.bool_()),
        ("seconds", pa.float64()),
        ("error", pa.string()),
        ("result", pa.string()),
    ]
)
"""Typed columns to filter on in Ray, and ``result``: the whole row as the local CLI writes it."""


class ScoreBatches:
    """``map_batches`` callable class: prepared rows (id, sample, error) in, result rows out."""

    def __init__(
        self,
        config: dict[str, Any],
        *,
        no_cache: bool = False,
        concurrency: int | None = None,
        budget_s: float | None = None,
    ) -> None:
        self._concurrency = concurrency
        self._budget_s = budget_s
        self._portal_cm: AbstractContextManager[BlockingPortal] = start_blocking_portal(backend="asyncio")
        self._portal = self._portal_cm.__enter__()
        parsed = Config.model_validate(config)
        self._scorer: Scorer = self._portal.call(partial(_build, parsed, no_cache))

    def __call__(self, batch: pa.Table) -> pa.Table:
        rows = batch.to_pylist()
        samples = [Sample.model_validate_json(r["sample"]) for r in rows if r["error"] is None]
        results: list[TrustScore | Exception] = (
            self._portal.call(
                partial(
                    self._scorer.score_many,
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
                out.append(error_result(row["id"], row["error"], None))
                continue
            sample, result = next(scored)
            if isinstance(result, Exception):
                reason = f"scoring raised {type(result).__name__}: {result}"
                out.append(error_result(row["id"], reason, dict(sample.metadata)))
            else:
                out.append(scored_result(sample, result))
        return pa.Table.from_pylist(out, schema=OUTPUT_SCHEMA)

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


async def _build(config: Config, no_cache: bool) -> Scorer:
    """Built on the actor's loop, so whatever the Scorer binds to a loop binds to that one."""
    return Scorer.from_config(config, no_cache=no_cache)
