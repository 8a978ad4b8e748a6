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

Fault tolerance: an actor that dies mid-batch is restarted by Ray and the batch is run again on it
(Ray Data's defaults, ``max_restarts=-1`` and ``max_task_retries=-1``). A batch that keeps killing
its actor is not retried forever and does not fail the run: after ``BATCH_DEATHS`` deaths its samples
are scored one at a time, and a sample that still kills its actor is written with an ``error`` saying
so (see ``actor.py``; the counts live in a :class:`~trustscore.ray._ledger.DeathLedger`). A sample
that raises inside ``score_many`` is not a batch failure either: it is written with its reason.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from trustscore._config import Config
from trustscore.ray._actor import ScoreBatches
from trustscore.ray._batch_size import DEFAULT_BATCH_SIZE
from trustscore.ray._driver_watch import this_driver
from trustscore.ray._ledger import DeathLedger
from trustscore.ray._rows import PreparedRow, prepare_line, prepare_record

if TYPE_CHECKING:
    import ray.data

__all__ = [
    "CALLS_PER_ACTOR",
    "check_gpus",
    "first_invalid",
    "prepare_lines",
    "prepare_records",
    "score_dataset",
    "score_prepared",
]

CALLS_PER_ACTOR = 4
"""Batches one actor scores at once (threads calling into its one event loop and Scorer, which serves
concurrent calls). With one call at a time an actor idles at the tail of every batch, and its
in-flight samples can never exceed one batch."""

PREPARED_SCHEMA = pa.schema(
    [("id", pa.string()), ("sample", pa.string()), ("error", pa.string()), ("line", pa.int64())]
)


def score_dataset(
    ds: ray.data.Dataset,
    config: Config | str | Path | None = None,
    *,
    actors: int = 1,
    batch_size: int = DEFAULT_BATCH_SIZE,
    concurrency: int | None = None,
    budget_s: float | None = None,
    no_cache: bool = False,
    num_gpus: float | None = None,
    skip_ids: Collection[str] = (),
) -> ray.data.Dataset:
    """Score every row of ``ds`` (columns question, response, optional context and id; any other
    column is carried through) and return the result rows, one per input row.

    Columns out: ``id``, ``score``, ``calibrated``, ``fusion``, ``complete``, ``seconds``, ``error``
    (why a row has no score: invalid input, scoring raised, or the sample kept killing its worker)
    and ``result``, the whole row as JSON exactly as ``trustscore score`` writes it. Rows whose id is
    in ``skip_ids`` are left out. ``num_gpus``: GPUs Ray reserves for each actor, for local signals
    that run a model on the GPU (white-box, encoders); None reserves none. Ids are not checked for
    repeats here (that is a pass over the whole input): ``trustscore score --ray`` checks them with
    :func:`trustscore.ray._unique.duplicate_ids`, which takes any Dataset with an ``id`` column.
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
        num_gpus=num_gpus,
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
    num_gpus: float | None = None,
    carry: Sequence[str] = (),
    replace_unsafe_cache_entries: bool = False,
    collector: Any = None,
) -> ray.data.Dataset:
    """The actor-pool stage over rows made by :func:`prepare_lines` / :func:`prepare_records`.

    ``carry`` names sample fields (question, context, response) copied into each result row, as the
    local CLI's ``--carry``; ``replace_unsafe_cache_entries`` makes each actor's Scorer replace the
    cache entries trustscore did not write instead of refusing them (``--retry-incomplete``);
    ``collector``, a :class:`~trustscore.ray._collector.RunCollector` actor, gathers the on-by-default
    signals the actors skip for the caller to say once (each actor warns itself without one) and each
    batch's share of the run summary."""
    import ray
    import ray.data

    if actors < 1:
        raise ValueError(f"actors must be at least 1 (got {actors})")
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1 (got {batch_size})")
    if budget_s is not None and not budget_s > 0:
        raise ValueError(f"budget_s must be a positive number of seconds (got {budget_s})")
    check_gpus(num_gpus, actors, ray.cluster_resources() if ray.is_initialized() else None, name="num_gpus")
    cfg = config if isinstance(config, Config) else (Config.from_toml(config) if config else Config())
    ledger = ray.remote(num_cpus=0)(DeathLedger).remote()
    return prepared.map_batches(
        ScoreBatches,
        fn_constructor_kwargs={
            # Plain JSON data crosses to the actors; each rebuilds and validates its own Config.
            "config": cfg.model_dump(mode="json"),
            "ledger": ledger,
            "no_cache": no_cache,
            "concurrency": concurrency,
            "budget_s": budget_s,
            "carry": tuple(carry),
            "replace_unsafe_cache_entries": replace_unsafe_cache_entries,
            "driver": this_driver(),  # actors on this machine stop when this process is gone
            "collector": collector,
        },
        batch_size=batch_size,
        batch_format="pyarrow",
        compute=ray.data.ActorPoolStrategy(
            size=actors, max_concurrent_calls_per_actor=CALLS_PER_ACTOR, enable_true_multi_threading=True
        ),
        num_cpus=1,
        num_gpus=num_gpus,
    )


def cpus_short(actors: int, resources: dict[str, float], *, name: str) -> str | None:
    """Why ``actors`` cannot all run beside Ray Data's read and write tasks on a cluster of
    ``resources``, or None when they can. Each actor holds one CPU for its life and the tasks need one
    more; on a cluster that cannot add CPUs the read task then waits for one without end."""
    have = resources.get("CPU", 0.0)
    if have >= actors + 1:
        return None
    fewer = f"use at most {int(have) - 1} actor(s) or " if have >= 2 else ""
    return (
        f"{name}={actors} needs {actors + 1} CPUs (one per actor and one for Ray Data's read and write "
        f"tasks) but the Ray cluster has {have:g}: {fewer}start Ray with more CPUs (ray start --num-cpus N)"
    )


def check_gpus(num_gpus: float | None, actors: int, resources: dict[str, float] | None, *, name: str) -> None:
    """A GPU count per actor must be a positive number (whole above 1, as Ray requires); with the
    cluster's resources known, a pool needing more GPUs than the cluster has is refused now (Ray
    would wait for them without end)."""
    if num_gpus is None:
        return
    if isinstance(num_gpus, bool) or not isinstance(num_gpus, int | float) or not 0 < num_gpus < 1e6:
        raise ValueError(
            f"{name} must be a positive number of GPUs per actor, e.g. 1 or 0.5 (got {num_gpus!r})"
        )
    if num_gpus > 1 and num_gpus != int(num_gpus):
        raise ValueError(f"{name} above 1 must be a whole number of GPUs (got {num_gpus})")
    have, need = (resources or {}).get("GPU", 0.0), num_gpus * actors
    if resources is not None and have < need:
        raise ValueError(
            f"{name}={num_gpus:g} for {actors} actor(s) needs {need:g} GPU(s) but the Ray cluster has "
            f"{have:g}: start Ray on GPU nodes (ray start --num-gpus N), use fewer actors, or leave "
            f"{name} out to score on CPUs"
        )


def prepare_lines(batch: pa.Table, skip: Collection[str] = frozenset()) -> pa.Table:
    """:class:`~trustscore.ray._lines.JsonlLines` rows (columns ``text`` and ``line``) -> prepared rows,
    done ids left out."""
    items = zip(batch.column("text").to_pylist(), batch.column("line").to_pylist(), strict=True)
    return _prepare(list(items), lambda item, where: prepare_line(item[0], where, item[1]), skip)


def prepare_records(batch: pa.Table, skip: Collection[str] = frozenset()) -> pa.Table:
    """Structured rows (Parquet, or any Dataset) -> prepared rows, done ids left out."""
    return _prepare(batch.to_pylist(), prepare_record, skip)


def _prepare(items: list[Any], parse: Callable[[Any, str], PreparedRow], skip: Collection[str]) -> pa.Table:
    # The output row carries the id; the error names what is wrong with the input row.
    rows = [parse(item, "input row") for item in items]
    return pa.Table.from_pylist([r for r in rows if r["id"] not in skip], schema=PREPARED_SCHEMA)


def first_invalid(prepared: ray.data.Dataset) -> dict[str, Any] | None:
    """An invalid row of ``prepared`` (its ``id``, ``error`` and ``line``), or None when every row is a
    sample: what ``--on-error stop`` stops at before anything is scored."""
    invalid = prepared.map_batches(_invalid_rows, batch_format="pyarrow")
    found = invalid.take(1)
    return dict(found[0]) if found else None


def _invalid_rows(batch: pa.Table) -> pa.Table:
    import pyarrow.compute as pc

    return batch.filter(pc.is_valid(batch.column("error"))).select(["id", "error", "line"])
