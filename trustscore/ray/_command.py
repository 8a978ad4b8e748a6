"""``trustscore score IN -o OUT --ray``: the local command's flags, run on a Ray cluster.

    trustscore score logs.parquet -o scored.parquet --ray --address auto --actors 16

IN is a JSONL file or a Parquet file (or a directory of them, named ``*.jsonl`` / ``*.parquet``),
local or on any filesystem Ray reads (``s3://``, ``gs://``, ...). OUT is a directory of part
files in the format its name says. Without ``--address`` a local Ray is started on this machine,
listening on 127.0.0.1 only (Ray's own default for a local start is every interface, with no
authentication: anyone on the network could run code in it); on
a cluster of several nodes IN and OUT must be storage every node sees (Ray reads and writes part
files on whichever node runs the task).
The Ray path parses rows exactly as the local command does (JSONL lines split as it splits them, see
``lines.py``), but it streams: an invalid row is written as the local command's error row (``error`` set,
no score, its ``line``) and the summary and exit status are the local command's (the actors count their
batches, :mod:`trustscore.ray._collector`): 3 when some rows of the run are error rows, 2 when none
could be scored, 1 when every judge failed on every row it ran on (``--on-error stop`` stops at an
invalid row before scoring, with one more pass over the input). ``--carry`` copies sample fields into
the rows as locally. Ids must be unique as in the local command: a first pass over the input checks
it (8 bytes a row on the driver, see ``unique.py``).
Resume follows the local command: ids already in OUT are skipped, incomplete rows included, unless
``--retry-incomplete``, which removes the incomplete rows from OUT and scores those samples again, the
actors replacing cache entries trustscore did not write (as the local command does). The rows kept must
have been scored the way this run scores (its ``fusion`` and its signals at their versions); when they
were not (another config or calibrator) the run is refused before Ray starts, before anything is scored
or dropped (exit 2), naming what differs and the first such row's part file: score into a new directory,
or delete OUT. The driver learns the run's setup from a Scorer it builds from the config as each actor
does, only when OUT holds rows to compare (see :func:`_refuse_another_setup` for the cost).
``--gpus-per-actor`` reserves GPUs for each actor (local signals that run a model on the GPU).
SIGTERM stops the run: Ray is shut down and the command exits 143 within :data:`SIGTERM_GRACE_S`
seconds (at the latest the process ends itself then); the actors on this machine stop with it.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from trustscore.core._extras import install_extra
from trustscore.core._flag_values import positive_int
from trustscore.ray._batch_size import DEFAULT_BATCH_SIZE

if TYPE_CHECKING:
    from pathlib import Path

    from trustscore._config import Config
    from trustscore.ray._files import Format
    from trustscore.ray._part_files import PartFileDirectory
    from trustscore.rows import IdIndex, ScoreRunSummary

__all__ = ["SIGTERM_GRACE_S", "add_arguments", "keep_local_ray_on_loopback", "run_ray"]

SIGTERM_GRACE_S = 5.0
"""Seconds a ``score --ray`` sent SIGTERM has to shut Ray down before it ends itself (exit 143)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("Ray (the [ray] extra)")
    group.add_argument(
        "--ray", action="store_true", help="score on a Ray cluster (OUT is a directory of part files)"
    )
    group.add_argument(
        "--address", help="Ray cluster to join (default: start a local one; 'auto': this node's)"
    )
    group.add_argument("--actors", type=positive_int, help="scoring actors, one CPU each (default: CPUs - 1)")
    group.add_argument(
        "--gpus-per-actor",
        type=_gpus,
        metavar="N",
        help="GPUs Ray reserves for each actor, for GPU-bound local signals (e.g. 1 or 0.5; default none)",
    )
    group.add_argument(
        "--batch-size",
        type=positive_int,
        help=f"samples per actor call, the unit Ray retries (default {DEFAULT_BATCH_SIZE})",
    )


def _gpus(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a number of GPUs such as 1 or 0.5 (got {text!r})"
        ) from None
    if not 0 < value < 1e6:
        raise argparse.ArgumentTypeError(f"must be a positive number of GPUs (got {text})")
    if value > 1 and value != int(value):
        raise argparse.ArgumentTypeError(f"above 1 must be a whole number of GPUs (got {text})")
    return value


def keep_local_ray_on_loopback() -> None:
    """Make a Ray started by this process (not one joined with ``--address``) listen on 127.0.0.1.

    Ray gives its processes the node's address and they listen on every interface unless that
    address is loopback; it uses loopback when clusters are off (RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0,
    read when ray is first imported). A value the user set is kept."""
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


def keep_local_ray_from_reporting() -> None:
    """Start a Ray of this process's own with its usage reports to its makers off
    (``RAY_USAGE_STATS_ENABLED=0``, Ray's opt-out, read when a cluster starts). A value the user set
    is kept; a cluster joined with ``--address`` keeps its own setting."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")


def run_ray(args: argparse.Namespace) -> int:
    from pathlib import Path

    from trustscore._errors import UsageError

    source_text, output_text = str(args.input), str(args.output)
    local = "://" not in source_text and "://" not in output_text
    if source_text == output_text or (local and Path(source_text).resolve() == Path(output_text).resolve()):
        raise UsageError(f"-o {output_text} is the input; write the results to a new directory")
    if args.address is None:
        keep_local_ray_on_loopback()
        keep_local_ray_from_reporting()
    try:
        import ray.data  # noqa: F401 (checked here, used in the locked run)
    except ImportError:
        raise UsageError(
            f"--ray needs Ray Data: {install_extra('ray')}; in a checkout's .venv: bash scripts/setup --ray"
        ) from None
    from trustscore._config import Config
    from trustscore.ray._files import as_location, format_of, locked_output

    source, output = as_location(args.input), as_location(args.output)
    in_format = format_of(source, role="input")
    out_format = format_of(output, role="output")
    if "://" not in source and not Path(source).exists():
        raise UsageError(f"input {source} does not exist")
    config = Config.from_toml(args.config) if args.config else Config()

    started = time.perf_counter()
    with locked_output(output) as lock:
        return _run_locked(args, config, source, output, in_format, out_format, started, lock)


def _run_locked(
    args: argparse.Namespace,
    config: Config,
    source: str,
    output: str,
    in_format: Format,
    out_format: Format,
    started: float,
    lock: Path | None,
) -> int:
    """The run, while it holds the output directory (``lock``: its lock file, None when remote)."""
    import anyio
    import ray

    from trustscore.ray._leftovers import RUN_ENV, mark_run, record_run, stop_leftovers
    from trustscore.ray._part_files import PartFileDirectory

    if lock is not None and (stopped := stop_leftovers(lock)):
        print(
            f"trustscore score --ray: stopped {stopped} process(es) an earlier, killed run into {output} "
            "left running",
            file=sys.stderr,
        )

    sink = PartFileDirectory(output, out_format)
    previous = anyio.run(sink.open)
    _refuse_another_setup(config, sink, keep_incomplete=not args.retry_incomplete)
    own_ray = not ray.is_initialized()
    marked = own_ray and args.address is None and lock is not None
    if own_ray:
        run = mark_run() if marked else ""
        ray.init(address=args.address, log_to_driver=False)
        if marked and lock is not None:
            record_run(lock, run)  # what a later run stops if this one is killed
    try:
        with _sigterm_within_grace():
            formats = (in_format, out_format)
            return _run_on_ray(args, config, source, formats, started, sink, previous, own_ray)
    finally:
        if marked:
            os.environ.pop(RUN_ENV, None)


def _refuse_another_setup(config: Config, sink: PartFileDirectory, *, keep_incomplete: bool) -> None:
    """Refuse (UsageError) to add rows beside earlier rows the run keeps that were scored with another
    ``fusion`` or other signals: the output would mix two ways of scoring. The run's setup is that of
    a Scorer built here from ``config`` as each actor builds its own, so it is what the actors' rows
    will record (the signals that run with the extras installed, the calibrator with its signals'
    versions), given the driver has the actors' install, as it already needs to read a plug-in's
    config section; rows that record a signal whose extra the driver lacks are refused for that
    (:func:`_refuse_what_the_driver_cannot_build`). That costs what building one costs: the signals'
    imports, the calibrator's load and the local models its signals start loading in the background
    (the default config's embedding model and spaCy pipeline: about two CPU seconds and 300 MB, let
    go once loaded); no cache is opened (it changes neither). An output with no row that records a
    setup builds none."""
    import anyio

    from trustscore._errors import UsageError
    from trustscore.rows import setup_mismatch
    from trustscore.scoring._scorer import Scorer

    if not sink.setups.items():
        return
    scorer = Scorer.from_config(config, no_cache=True, warn_skipped=False)
    fusions, signals, unbuilt = scorer.fusions, scorer.signal_versions, scorer.skipped
    anyio.run(scorer.aclose)
    _refuse_what_the_driver_cannot_build(sink, unbuilt, keep_incomplete=keep_incomplete)
    why = setup_mismatch(sink.setups, fusions, signals, keep_incomplete=keep_incomplete)
    if why is not None:
        raise UsageError(
            f"-o {sink.location}: {why}; resuming would mix rows scored two ways: score into a new output "
            f"directory, or delete {sink.location} to score every row again with this setup"
        )


def _refuse_what_the_driver_cannot_build(
    sink: PartFileDirectory, unbuilt: dict[str, str], *, keep_incomplete: bool
) -> None:
    """Refuse (UsageError) when rows the run keeps record a signal the driver's Scorer skipped
    (``unbuilt``: on by default, its extra not installed here, with why and the install): the actors,
    with the extra, may run it, so the driver cannot tell the run's setup (its fusion, a shipped
    calibrator chosen by the signals installed, included). It is not a signal "this run does not run"."""
    from trustscore._errors import UsageError
    from trustscore.scoring._wiring import SKIPPED_NOTE

    for setup, where, complete, incomplete in sink.setups.items():
        missing = sorted(setup.signals & unbuilt.keys())
        kept = complete + (incomplete if keep_incomplete else 0)
        if missing and kept:
            why = "; ".join(unbuilt[name].removesuffix(SKIPPED_NOTE) for name in missing)
            raise UsageError(
                f"-o {sink.location}: {kept} earlier row(s), the first on {where}, were scored with "
                f"signal(s) {', '.join(missing)}, which this driver cannot build, so it cannot compare "
                f"their setup with the run's ({why}): install the extra where the command runs, as on "
                "the actors, or score into a new output directory"
            )


def _run_on_ray(
    args: argparse.Namespace,
    config: Config,
    source: str,
    formats: tuple[Format, Format],
    started: float,
    sink: PartFileDirectory,
    previous: IdIndex,
    own_ray: bool,
) -> int:
    """The run once Ray is up, into the open ``sink``. ``previous``: its resume state (the ids in the
    output, 1 when the row is complete); ``own_ray``: whether this process started Ray (it shuts it
    down at the end)."""
    import anyio
    import ray.data

    from trustscore.ray._collector import RunCollector
    from trustscore.ray._dataset import prepare_lines, prepare_records, score_prepared
    from trustscore.ray._datasink import PartFileDatasink
    from trustscore.ray._lines import JsonlLines
    from trustscore.rows import ScoreRunSummary

    output, (in_format, out_format) = sink.location, formats
    incomplete = _incomplete(previous)
    try:
        ray.data.DataContext.get_current().enable_progress_bars = not args.no_progress
        actors = _actor_count(args, local=own_ray and args.address is None)
        prepare = prepare_lines if in_format == "jsonl" else prepare_records

        def prepared(skip: frozenset[str]) -> ray.data.Dataset:
            read = (
                ray.data.read_datasource(JsonlLines(source))
                if in_format == "jsonl"
                else ray.data.read_parquet(source)
            )
            return read.map_batches(prepare, batch_format="pyarrow", fn_kwargs={"skip": skip})

        _check_input(args, source, lambda: prepared(frozenset()))
        if args.retry_incomplete and incomplete:
            anyio.run(sink.drop, incomplete)
        retried = sink.dropped
        skip = frozenset(i for i, complete in previous.items() if complete or not args.retry_incomplete)
        before, kept_incomplete = len(skip), 0 if args.retry_incomplete else len(incomplete)
        del previous, incomplete
        collector: Any = ray.remote(num_cpus=0)(RunCollector).remote()
        scored = score_prepared(
            prepared(skip),
            config,
            actors=actors,
            batch_size=args.batch_size or DEFAULT_BATCH_SIZE,
            concurrency=args.concurrency,
            budget_s=args.budget,
            no_cache=args.no_cache,
            num_gpus=args.gpus_per_actor,
            carry=args.carry,
            replace_unsafe_cache_entries=args.retry_incomplete,
            collector=collector,
        )
        del skip
        scored.write_datasink(PartFileDatasink(output, out_format))
        run = ScoreRunSummary(
            output=output, skipped=before - kept_incomplete, kept_incomplete=kept_incomplete
        )
        summary: ScoreRunSummary = ray.get(collector.summary.remote(run))
    finally:
        if own_ray:
            ray.shutdown()
    summary.seconds = time.perf_counter() - started
    return _finish(summary, retried=retried, fresh=not before, actors=actors)


def _finish(summary: ScoreRunSummary, *, retried: int, fresh: bool, actors: int) -> int:
    """The local command's summary (the actors' shares of it, merged), the run's own line, and the
    exit status by the local command's rules."""
    summary.print()
    print(
        f"trustscore score --ray: {summary.scored} row(s) scored ({retried} of them incomplete before)"
        f"{f', {summary.errors} error row(s)' if summary.errors else ''}, {summary.skipped} already done, "
        f"{actors} actor(s), {summary.seconds:.1f}s -> {summary.output}",
        file=sys.stderr,
    )
    return summary.status(fresh=fresh, output=summary.output)


def _actor_count(args: argparse.Namespace, *, local: bool) -> int:
    """``--actors``, else the default for the cluster, checked against the GPUs ``--gpus-per-actor``
    asks for and the cluster's CPUs (a UsageError when too few). ``local``: the Ray this process started,
    which cannot grow, so too few CPUs is an error; a cluster joined may add nodes (an autoscaler), so
    there it is a warning."""
    import ray

    from trustscore._errors import UsageError
    from trustscore.ray._dataset import check_gpus, cpus_short

    resources = ray.cluster_resources()
    actors: int = args.actors or _default_actors(resources)
    try:
        check_gpus(args.gpus_per_actor, actors, resources, name="--gpus-per-actor")
    except ValueError as e:
        raise UsageError(str(e)) from None
    short = cpus_short(actors, resources, name="--actors")
    if short is not None and local:
        raise UsageError(short)
    if short is not None:
        print(
            f"trustscore score --ray: warning: {short}; the run waits until the cluster has them",
            file=sys.stderr,
        )
    return actors


def _incomplete(previous: IdIndex) -> IdIndex:
    """The ids of ``previous`` whose rows are incomplete."""
    from trustscore.rows import IdIndex

    incomplete = IdIndex()
    for i, complete in previous.items():
        if not complete:
            incomplete.add(i, 0)
    return incomplete


def _check_input(args: argparse.Namespace, source: str, prepared: Callable[[], Any]) -> None:
    """Before anything is scored: with ``--on-error stop`` the first invalid row stops the run
    (InputError naming it); ids that occur more than once stop it in any case (UsageError)."""
    from trustscore._errors import InputError, UsageError
    from trustscore.ray._dataset import first_invalid
    from trustscore.ray._input_errors import unwrap_input_error
    from trustscore.ray._unique import duplicate_ids

    if args.on_error == "stop":
        first = unwrap_input_error(lambda: first_invalid(prepared()))
        if first is not None:
            line = first["line"]
            where = f"{source}:{line}" if line is not None else f"{source}: id {first['id']!r}"
            raise InputError(f"{where}: {first['error']}")
    repeated = unwrap_input_error(lambda: duplicate_ids(prepared()))
    if repeated:
        raise UsageError(
            f"input {source}: id(s) {', '.join(map(repr, repeated))} occur more than once; ids must be "
            "unique (they are how an interrupted run resumes)"
        )


@contextmanager
def _sigterm_within_grace() -> Iterator[None]:
    """SIGTERM, in the block, ends the run: SystemExit(143) unwinds it (Ray is shut down on the way
    out) and, should that take longer than :data:`SIGTERM_GRACE_S`, the process ends itself then.
    Installed after ``ray.init`` (which sets its own handler); the previous handler comes back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        print(f"trustscore score --ray: SIGTERM, stopping (at most {SIGTERM_GRACE_S:g} s)", file=sys.stderr)
        deadline = threading.Timer(SIGTERM_GRACE_S, os._exit, args=(128 + signal.SIGTERM,))
        deadline.daemon = True
        deadline.start()
        raise SystemExit(128 + signal.SIGTERM)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _default_actors(resources: dict[str, Any]) -> int:
    """One CPU is left to Ray Data's read, prepare and write tasks."""
    return max(1, int(resources.get("CPU", 1)) - 1)
