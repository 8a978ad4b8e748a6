"""``trustscore score IN.jsonl -o OUT.jsonl``: score a file of samples, resumably.

Input: one JSON object a line with ``question``, ``response``, optional ``context`` (a string or a
list of passages) and optional ``id``. Every other field (label, task, source_id, ...) is carried
through untouched into the output row, so ``trustscore eval`` can read labels later. A row without
``id`` gets the hash of its question, context and response as its id.

The whole input is checked before anything is scored. An invalid row (bad JSON, a missing or empty
field, a wrong type) is written as an error row (``id``, ``score`` null, no signals, ``complete`` false,
``error``: the reason, and ``line``: its input line) and the others are scored (``--on-error record``, the
default); ``--on-error stop`` stops the run at it instead, before anything is scored. A field that
looks like a sample field (``contexts``, ``answer``) is named with a did-you-mean. The file is then
read again a row at a time into ``Scorer.stream``, so memory does not grow with it (only the ids
are kept, compactly: duplicates and resume need them). IN may be a pipe or ``-`` (standard input):
it is read once. What each odd input gets: docs/limits.md.

Output: one JSON object a line, appended and flushed as each sample finishes (completion order):
``id``, ``trustscore`` (the format marker, ``"result/1"``: see trustscore/rows/_output.py), ``score``,
``reason`` (the strongest finding behind the score, in one line), ``degraded`` (true when a signal
that ran gave no value: its reason is in ``signals``; ``[fusion] on_missing`` says what such a row's
score is), ``abstained`` (true when the response declines to answer: an outcome of its own, not
degraded), ``calibrated``, ``not_calibrated_reason``, ``interval``
(90% interval of the score left by an adapted calibrator's few labels; null otherwise), ``fusion``,
``used_signals``, ``signals`` ({name: Signal}), ``usage``, ``complete``, ``incomplete_signals``,
``seconds``, ``domain`` (whether the row lies inside what its calibrator or adaptation was calibrated on,
and why not), ``cascade`` (the stage a row stopped at and the signals it skipped, with a ``[cascade]``),
then the sample fields ``--carry`` names (``question``, ``context``, ``response``: a row reads without a
join to the input), then the carried-through fields. An input row's own ``domain`` names the adaptation
it belongs to (an adapted calibrator scores it with that one; any other fusion does not read it) and is
carried as ``sample_domain``, since ``domain`` is the check above.

Resume: re-running with the same output file skips the ids whose row is complete, so an interrupted run
resumes where it stopped. A row is complete only when no signal is missing for a reason a rerun may fix
(cut by the budget; judge server unreachable, overloaded or slow; API key unset or refused). Incomplete
rows are kept and counted; ``--retry-incomplete`` drops them from the output and scores those samples
again. The rows kept must have been scored the way this run scores: with its ``fusion`` (its calibrator,
by name and version) and its signals at their versions; when they were not (another config or
calibrator) the run is refused before anything is scored or dropped (exit 2), naming what differs: score
into a new output file, or delete the old one. When every judge failed on every row it ran on the run
exits with status 1 and says why. The output may not be the input file; it must be new, empty or a
trustscore output (anything else is refused untouched), and one run at a time writes it.

Exit status: 0 every row scored; 1 failed (every judge failed on every row it ran on); 2 bad input,
flag or config (nothing scored), or no row could be scored (every row invalid, or no signal gave a value on
any row: the reason is named); 3 the run finished but some rows are error rows.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from pathlib import Path
from typing import Any

import anyio

from trustscore._errors import DegradedScoreError, UsageError
from trustscore._types import Sample
from trustscore.cli._help_text import plain
from trustscore.core._flag_values import positive_int, positive_seconds
from trustscore.ray._command import add_arguments as add_ray_arguments
from trustscore.ray._command import run_ray
from trustscore.rows import (
    IdIndex,
    InputFile,
    InputRow,
    JsonlFileSink,
    OnError,
    ResultSink,
    RetryableSink,
    RowError,
    ScoreRunSummary,
    SetupRecordingSink,
    error_row,
    result_row,
    setup_mismatch,
)
from trustscore.scoring._batch import ProgressBar
from trustscore.scoring._scorer import Scorer

__all__ = [
    "add_parser",
    "build_scorer",
    "check_output_path",
    "read_input",
    "score_file",
]


def add_parser(subcommands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "score",
        help="score a JSONL file of samples (resumable)",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "input", type=Path, help="JSONL: question, context, response[, id, any other fields]; - reads stdin"
    )
    parser.add_argument(
        "-o", "--output", type=Path, required=True, help="JSONL results, appended (resumable)"
    )
    parser.add_argument(
        "--config", type=Path, help="trustscore.toml (default: local signals only, no judges)"
    )
    parser.add_argument("--concurrency", type=positive_int, help="samples in flight (default: from config)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the response cache")
    parser.add_argument("--budget", type=positive_seconds, metavar="SECONDS", help="time budget per sample")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--retry-incomplete",
        action="store_true",
        help="score again the samples whose earlier row is incomplete (replacing those rows)",
    )
    parser.add_argument(
        "--carry",
        type=_carried_fields,
        default=(),
        metavar="FIELDS",
        help="sample fields to copy into each result row, comma-separated: question,context,response",
    )
    parser.add_argument(
        "--on-error",
        choices=("record", "stop"),
        default="record",
        help="an invalid input row: write it as an error row and go on (record, the default; exit 3), "
        "or stop the run before scoring (stop; exit 2)",
    )
    add_ray_arguments(parser)
    parser.set_defaults(run=run)
    return parser


CARRIABLE = ("question", "context", "response")
"""The sample fields ``--carry`` may copy into result rows."""


def _carried_fields(text: str) -> tuple[str, ...]:
    fields = tuple(dict.fromkeys(f.strip() for f in text.split(",") if f.strip()))
    unknown = [f for f in fields if f not in CARRIABLE]
    if unknown or not fields:
        raise argparse.ArgumentTypeError(
            f"{', '.join(unknown) or 'nothing'} cannot be carried; name some of {', '.join(CARRIABLE)}"
        )
    return fields


def build_scorer(config: Path | None, *, no_cache: bool) -> Scorer:
    """The Scorer a run uses (a seam: tests replace it with one made of fakes). The signals it skips
    for a missing extra are said once, by the run's summary (``not run:``), not also as a warning."""
    return Scorer.from_config(config, no_cache=no_cache, warn_skipped=False)


def run(args: argparse.Namespace) -> int:
    if args.ray:
        return run_ray(args)
    ray_only = (args.address, args.actors, args.batch_size, args.gpus_per_actor)
    if any(value is not None for value in ray_only):
        raise UsageError("--address, --actors, --batch-size and --gpus-per-actor only apply with --ray")
    check_output_path(args.input, args.output)
    rows = InputFile.check(args.input, on_error=args.on_error)
    for warning in rows.warnings():
        print(f"trustscore: warning: {warning}", file=sys.stderr)
    scorer = build_scorer(args.config, no_cache=args.no_cache)

    async def go() -> ScoreRunSummary:
        async with scorer:
            return await score_file(
                rows,
                args.output,
                scorer,
                concurrency=args.concurrency,
                budget_s=args.budget,
                progress=not args.no_progress,
                retry_incomplete=args.retry_incomplete,
                on_error=args.on_error,
                carry=args.carry,
            )

    summary = anyio.run(go)
    summary.print()
    hints = "".join(f"; rows have {k!r}: did you mean {t.suggestion!r}?" for k, t in rows.lookalikes.items())
    fresh = not summary.skipped and not summary.kept_incomplete
    return summary.status(fresh=fresh, output=args.output, hints=hints)


def check_output_path(input_path: Path, output: Path) -> None:
    """Refuse an output that is the input file itself (resuming it would score nothing)."""
    if str(input_path) == "-":
        return
    try:
        same = output.resolve() == input_path.resolve()
        if not same and output.exists() and input_path.exists():
            same = output.samefile(input_path)
    except (OSError, RuntimeError):  # a symlink loop: reading or opening it says so
        return
    if same:
        raise UsageError(f"-o {output} is the input file; write the results to another file")


def read_input(path: Path) -> list[InputRow]:
    """Every row of a checked input file, in a list (for small files; the CLI streams them); an
    invalid row raises InputError naming its line."""
    return [row for row in InputFile.check(path, on_error="stop") if isinstance(row, InputRow)]


async def score_file(
    rows: Iterable[InputRow | RowError],
    output: Path | ResultSink,
    scorer: Scorer,
    *,
    concurrency: int | None = None,
    budget_s: float | None = None,
    progress: bool = True,
    retry_incomplete: bool = False,
    on_error: OnError = "stop",
    carry: Sequence[str] = (),
) -> ScoreRunSummary:
    """Score the rows that have no complete row in ``output`` yet, writing one row per result
    (completion order): ``output`` is the result file (a :class:`~trustscore.rows.JsonlFileSink`,
    each row appended and flushed) or any :class:`~trustscore.rows.ResultSink`.

    A :class:`RowError` among ``rows`` is written as an error row as it is read. A sample the Scorer
    refuses (``fusion.on_missing = "raise"``) is an error row too with ``on_error="record"``, and
    stops the run with "stop". ``carry`` names sample fields (question, context, response) to copy into
    each result row. Incomplete earlier rows are kept (and their samples skipped) unless
    ``retry_incomplete``, which removes them from the sink first (it must be a
    :class:`~trustscore.rows.RetryableSink`) and scores those samples again. ``rows`` is read once,
    lazily (an :class:`InputFile` streams its file): memory holds the earlier ids and the rows in flight.
    """
    started = time.perf_counter()
    sink = JsonlFileSink(output) if isinstance(output, Path) else output
    previous = await sink.open()
    try:
        _refuse_another_setup(sink, scorer, keep_incomplete=not retry_incomplete)
        if retry_incomplete:
            if not isinstance(sink, RetryableSink):
                raise UsageError(f"--retry-incomplete needs a sink that can drop rows; {sink.name} cannot")
            scorer.replace_unsafe_cache_entries()
            incomplete = IdIndex()
            for i, complete in previous.items():
                if not complete:
                    incomplete.add(i, 0)
            if incomplete:
                await sink.drop(incomplete)
                previous = _complete_only(previous)
        summary = await _score_into(
            sink, previous, rows, scorer, concurrency, budget_s, progress, on_error, carry
        )
        await sink.flush()
    finally:
        await sink.close()
    summary.seconds = time.perf_counter() - started
    return summary


def _refuse_another_setup(sink: ResultSink, scorer: Scorer, *, keep_incomplete: bool) -> None:
    """Refuse (UsageError) to add rows beside earlier rows the run keeps that were scored with another
    ``fusion`` or other signals: the output would mix two ways of scoring."""
    if not isinstance(sink, SetupRecordingSink):
        return
    why = setup_mismatch(sink.setups, scorer.fusions, scorer.signal_versions, keep_incomplete=keep_incomplete)
    if why is not None:
        raise UsageError(
            f"-o {sink.name}: {why}; resuming would mix rows scored two ways: score into a new output "
            f"file, or delete {sink.name} to score every row again with this setup"
        )


def _complete_only(rows: IdIndex) -> IdIndex:
    kept = IdIndex()
    for i, complete in rows.items():
        if complete:
            kept.add(i, complete)
    return kept


async def _score_into(
    out: ResultSink,
    previous: IdIndex,
    rows: Iterable[InputRow | RowError],
    scorer: Scorer,
    concurrency: int | None,
    budget_s: float | None,
    progress: bool,
    on_error: OnError,
    carry: Sequence[str],
) -> ScoreRunSummary:
    summary = ScoreRunSummary(
        output=out.name, judges=scorer.judge_names, skipped_signals=dict(scorer.skipped)
    )
    in_flight: dict[int, InputRow] = {}
    """The rows handed to the stream whose result is not written yet, by their index in it."""
    writing = anyio.Lock()
    """The feeder (error rows, as read) and the consumer (results) write: one row at a time."""

    async def write(row: dict[str, Any]) -> None:
        async with writing:
            await out.write(row)

    async def todo() -> AsyncIterator[Sample]:
        index = 0
        for row in rows:
            done = previous.get(row.id if isinstance(row, RowError) else row.sample.id or "")
            if done is None and isinstance(row, RowError):
                await write(error_row(row.id, row.line, row.reason))  # written as it is read
                summary.add_error(row.line, row.reason)
            elif done is None and isinstance(row, InputRow):
                in_flight[index] = row
                index += 1
                yield row.sample
            elif done:
                summary.skipped += 1
            else:
                summary.kept_incomplete += 1

    bar = ProgressBar(_count_todo(rows, previous)) if progress else None
    try:
        stream = scorer.stream(todo(), concurrency=concurrency, budget_s=budget_s, return_exceptions=True)
        async with stream as results:
            async for index, result in results:
                row = in_flight.pop(index)
                if isinstance(result, Exception):
                    # A refusal of the sample (fusion.on_missing = "raise") is its row's error; a bug is not.
                    if on_error == "stop" or not isinstance(result, DegradedScoreError):
                        raise result
                    await write(error_row(row.sample.id or "", row.line, str(result)))
                    summary.add_error(row.line, str(result))
                    continue
                texts = {name: getattr(row.sample, name) for name in carry}
                await write(result_row(row.sample.id or "", result, {**texts, **row.carried}))
                summary.add(result)
                if bar is not None:
                    bar.advance()
    finally:
        if bar is not None:
            bar.stop()
    return summary


def _count_todo(rows: Iterable[InputRow | RowError], previous: IdIndex) -> int | None:
    """How many rows a run will score, for the progress bar (None when it is not known ahead)."""
    if isinstance(rows, InputFile):
        return sum(1 for i in rows.ids if i not in previous)
    if isinstance(rows, Sequence):
        return sum(1 for r in rows if isinstance(r, InputRow) and (r.sample.id or "") not in previous)
    return None
