"""Score a Ray Dataset: prepare rows with tasks, score them with an actor pool of Scorers.

    import ray, trustscore.ray
    ds = ray.data.read_parquet("s3://bucket/rag-logs/")
    scored = trustscore.ray.score_dataset(ds, "trustscore.toml", actors=8)
    scored.write_parquet("s3://bucket/scored/")

Ray Data streams: blocks flow read -> prepare -> score -> write with backpressure, so memory stays
bounded whatever the input size. Each actor holds one Scorer (models, calibrator, LLM clients,
loaded once) and runs ``score_many`` on up to ``CALLS_PER_ACTOR`` batches at once; within a batch
the Scorer's own limits (``limits.max_concurrent_samples``) apply, and every batch of an actor
shares its endpoints' concurrency limits.

Fault tolerance is Ray's: an actor that dies mid-batch is restarted and the batch is run again on
it (Ray Data's default ``max_restarts=-1``; each batch at most ``BATCH_RETRIES`` more times, then
the run fails and a rerun resumes). A sample that raises inside ``score_many`` is not a batch
failure: it is written with its reason.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from trustscore.config import Config
from trustscore.ray.actor import ScoreBatches
from trustscore.ray.command import DEFAULT_BATCH_SIZE
from trustscore.ray.rows import PreparedRow, prepare_line, prepare_record

if TYPE_CHECKING:
    import ray.data

__all__ = [
    "BATCH_RETRIES",
    "CALLS_PER_ACTOR",
    "prepare_lines",
    "prepare_records",
    "score_dataset",
    "score_prepared",
]

BATCH_RETRIES = 3
"""Re-runs of one batch after its actor died, before the run fails (Ray's default is unlimited: a
batch that kills every actor it lands on would loop forever)."""

CALLS_PER_ACTOR = 4
"""Batches one actor scores at once (threads calling into its one event loop and Scorer, which serves
concurrent calls). With one call at a time an actor idles at the tail of every batch, and its
in-flight samples can never exceed one batch."""

PREPARED_SCHEMA = pa.schema([("id", pa.string()), ("sample", pa.string()), ("error", pa.string())])


def score_dataset(
    ds: ray.data.Dataset,
    config: Config | str | Path | None = None,
    *,
    actors: int = 1,
    batch_size: int = DEFAULT_BATCH_SIZE,
    concurrency: int | None = None,
    budget_s: float | None = None,
    no_cache: bool = False,
    skip_ids: Collection[str] = (),
) -> ray.data.Dataset:
    """Score every row of ``ds`` (columns question, response, optional context and id; any other
    column is carried through) and return the result rows, one per input row.

    Columns out: ``id``, ``score``, ``calibrated``, ``fusion``, ``complete``, ``seconds``, ``error``
    (why a row has no score: invalid input, or scoring raised) and ``result``, the whole row as JSON
    exactly as ``trustscore score`` writes it. Rows whose id is in ``skip_ids`` are left out.
    """
    prepared = ds.map_batches(
        prepare_records, batch_format="pyarrow", fn_kwargs={"skip": frozenset(skip_ids)}
    )
    return score_prepared(
        prepared,
        config,
        actors=actors,
        batch_size=batch_size,
        concurrency=concurrency,
        budget_s=budget_s,
        no_cache=no_cache,
    )


def score_prepared(
    prepared: ray.data.Dataset,
    config: Config | str | Path | None,
    *,
    actors: int,
    batch_size: int = DEFAULT_BATCH_SIZE,
    concurrency: int | None = None,
    budget_s: float | None = None,
    no_cache: bool = False,
) -> ray.data.Dataset:
    """The actor-pool stage over rows made by :func:`prepare_lines` / :func:`prepare_records`."""
    if actors < 1:
        raise ValueError(f"actors must be at least 1 (got {actors})")
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1 (got {batch_size})")
    if budget_s is not None and not budget_s > 0:
        raise ValueError(f"budget_s must be a positive number of seconds (got {budget_s})")
    cfg = config if isinstance(config, Config) else (Config.from_toml(config) if config else Config())
    with warnings.catch_warnings():
        # Ray 2.60 has no named parameter for max_task_retries yet; its default (-1) retries forever.
        warnings.filterwarnings(
            "ignore", message="`ray_remote_args` is deprecated", category=DeprecationWarning
        )
        return _score_stage(prepared, cfg, actors, batch_size, concurrency, budget_s, no_cache)


def _score_stage(
    prepared: ray.data.Dataset,
    cfg: Config,
    actors: int,
    batch_size: int,
    concurrency: int | None,
    budget_s: float | None,
    no_cache: bool,
) -> ray.data.Dataset:
    import ray.data

    return prepared.map_batches(
        ScoreBatches,
        fn_constructor_kwargs={
            # Plain JSON data crosses to the actors; each rebuilds and validates its own Config.
            "config": cfg.model_dump(mode="json"),
            "no_cache": no_cache,
            "concurrency": concurrency,
            "budget_s": budget_s,
        },
        batch_size=batch_size,
        batch_format="pyarrow",
        compute=ray.data.ActorPoolStrategy(
            size=actors, max_concurrent_calls_per_actor=CALLS_PER_ACTOR, enable_true_multi_threading=True
        ),
        num_cpus=1,
        max_task_retries=BATCH_RETRIES,
    )


def prepare_lines(batch: pa.Table, skip: Collection[str] = frozenset()) -> pa.Table:
    """``read_text`` rows (one JSONL line each, column ``text``) -> prepared rows, done ids left out."""
    return _prepare(batch.column("text").to_pylist(), prepare_line, skip)


def prepare_records(batch: pa.Table, skip: Collection[str] = frozenset()) -> pa.Table:
    """Structured rows (Parquet, or any Dataset) -> prepared rows, done ids left out."""
    return _prepare(batch.to_pylist(), prepare_record, skip)


def _prepare(items: list[Any], parse: Callable[[Any, str], PreparedRow], skip: Collection[str]) -> pa.Table:
    # The output row carries the id; the error names what is wrong with the input row.
    rows = [parse(item, "input row") for item in items]
    return pa.Table.from_pylist([r for r in rows if r["id"] not in skip], schema=PREPARED_SCHEMA)
