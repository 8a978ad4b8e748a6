"""``trustscore score IN.jsonl -o OUT.jsonl``: score a file of samples, resumably.

Input: one JSON object a line with ``question``, ``response``, optional ``context`` (a string or a
list of passages) and optional ``id``. Every other field (label, task, source_id, ...) is carried
through untouched into the output row, so ``trustscore eval`` can read labels later. A row without
``id`` gets the hash of its question, context and response as its id.

The whole input is checked before anything is scored: a bad line stops the run with its line
number (nothing is silently skipped, so an evaluation never quietly loses rows). The file is then
read again a row at a time into ``Scorer.stream``, so memory does not grow with it (only the ids
are kept, compactly: duplicates and resume need them). IN may be a pipe or ``-`` (standard input):
it is read once. What each odd input gets: docs/limits.md.

Output: one JSON object a line, appended and flushed as each sample finishes (completion order):
``id``, ``trustscore`` (the format marker, ``"result/1"``: see trustscore/rows/output.py), ``score``,
``calibrated``, ``not_calibrated_reason``, ``fusion``, ``used_signals``, ``signals`` ({name: Signal}),
``usage``, ``complete``, ``incomplete_signals``, ``seconds``, ``domain`` (whether the row lies inside
the calibration domain, and why not), ``cascade`` (the stage a row stopped at and the signals it
skipped, with a ``[cascade]``), then the carried-through fields.

Resume: re-running with the same output file skips the ids whose row is complete, so an
interrupted run resumes where it stopped. A row is complete only when no signal is missing for a
reason a rerun may fix (cut by the budget; judge server unreachable, overloaded or slow; API key
unset or refused). Incomplete rows are kept and counted; ``--retry-incomplete`` drops them from the
output and scores those samples again. When every judge failed on every row for such a reason the
run exits with status 1 and says why. The output may not be the input file; it must be new, empty
or a trustscore output (anything else is refused untouched), and one run at a time writes it.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import anyio

from trustscore.cli.cascade_spend import CascadeSpend
from trustscore.cli.help_text import plain
from trustscore.errors import UnsafeCacheEntry, UsageError
from trustscore.ray.command import add_arguments as add_ray_arguments
from trustscore.ray.command import run_ray
from trustscore.rows import IdIndex, InputFile, InputRow, OutputFile, result_row
from trustscore.scoring.batch import ProgressBar
from trustscore.scoring.scorer import OUTSIDE_DOMAIN, Scorer
from trustscore.types import Sample, TrustScore, Usage

__all__ = [
    "ScoreRunSummary",
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
    parser.add_argument("--concurrency", type=_positive_int, help="samples in flight (default: from config)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the response cache")
    parser.add_argument("--budget", type=float, metavar="SECONDS", help="time budget per sample")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--retry-incomplete",
        action="store_true",
        help="score again the samples whose earlier row is incomplete (replacing those rows)",
    )
    add_ray_arguments(parser)
    parser.set_defaults(run=run)
    return parser


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (got {value})")
    return value


def build_scorer(config: Path | None, *, no_cache: bool) -> Scorer:
    """The Scorer a run uses (a seam: tests replace it with one made of fakes)."""
    return Scorer.from_config(config, no_cache=no_cache)


def run(args: argparse.Namespace) -> int:
    if args.ray:
        return run_ray(args)
    ray_only = (args.address, args.actors, args.batch_size, args.gpus_per_actor)
    if any(value is not None for value in ray_only):
        raise UsageError("--address, --actors, --batch-size and --gpus-per-actor only apply with --ray")
    check_output_path(args.input, args.output)
    rows = InputFile.check(args.input)
    if args.budget is not None and not args.budget > 0:
        raise UsageError(f"--budget must be a positive number of seconds (got {args.budget})")
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
            )

    summary = anyio.run(go)
    summary.print()
    if summary.judges_down():
        print(
            f"trustscore: error: every judge failed on all {summary.scored} scored row(s) for a transport "
            f"or credential reason, e.g. {summary.judge_failure}; the rows are kept as incomplete: start "
            "the server (or export the API key), then rerun with --retry-incomplete",
            file=sys.stderr,
        )
        return 1
    return 0


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
    """Every row of a checked input file, in a list (for small files; the CLI streams them)."""
    return list(InputFile.check(path))


@dataclass
class _SignalTally:
    n: int = 0
    missing: int = 0
    total: float = 0.0


@dataclass
class ScoreRunSummary:
    """What one run did: rows scored and skipped, per-signal coverage, cost."""

    output: Path
    skipped: int = 0
    scored: int = 0
    incomplete: int = 0
    no_score: int = 0
    score_total: float = 0.0
    signals: dict[str, _SignalTally] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0
    fusions: dict[str, int] = field(default_factory=dict)
    """How many scores each fusion produced ("calibrator:local_multidomain@...", "default:logodds")."""
    kept_incomplete: int = 0
    """Incomplete rows of an earlier run left as they are (no --retry-incomplete)."""
    judges: list[str] = field(default_factory=list)
    judges_down_rows: int = 0
    """Scored rows on which every judge failed for a transport or credential reason."""
    judge_failure: str = ""
    """One such failure's reason, for the message."""
    unsafe_cache_rows: int = 0
    """Rows with a signal missing because a cache entry on its key was not written by trustscore."""

    def judges_down(self) -> bool:
        """Whether every judge failed on every scored row for a reason a rerun may fix."""
        return bool(self.judges) and self.scored > 0 and self.judges_down_rows == self.scored

    calibrated: int = 0
    """Rows whose score claims to be a calibrated probability."""
    not_calibrated_reasons: dict[str, int] = field(default_factory=dict)
    """How often each reason not to claim calibrated came up (outside-the-domain reasons aside: they
    are counted by dimension below)."""
    domain_checked: int = 0
    outside_domain: int = 0
    outside_reasons: dict[str, int] = field(default_factory=dict)
    """How often each checked dimension put a row outside the calibration domain."""
    cascade: CascadeSpend = field(default_factory=CascadeSpend)
    """Where rows left the cascade, and its spend against the full ensemble's (rows of a [cascade])."""

    def add(self, result: TrustScore) -> None:
        if self.judges and all(j in result.incomplete_signals for j in self.judges):
            self.judges_down_rows += 1
            self.judge_failure = self.judge_failure or (result.signals[self.judges[0]].error or "")
        self.scored += 1
        self.fusions[result.fusion] = self.fusions.get(result.fusion, 0) + 1
        self.incomplete += not result.complete
        self.unsafe_cache_rows += any(
            (s.error or "").startswith(UnsafeCacheEntry.__name__) for s in result.signals.values()
        )
        self.calibrated += result.calibrated
        reason = result.not_calibrated_reason
        if reason is not None and not reason.startswith(OUTSIDE_DOMAIN):
            self.not_calibrated_reasons[reason] = self.not_calibrated_reasons.get(reason, 0) + 1
        if result.domain is not None:
            self.domain_checked += 1
            if not result.domain.inside:
                self.outside_domain += 1
                for reason in result.domain.reasons:
                    what = reason.split(";")[0].rsplit(" is ", 1)[0].rsplit(" has ", 1)[0]
                    self.outside_reasons[what] = self.outside_reasons.get(what, 0) + 1
        if result.score is None:
            self.no_score += 1
        else:
            self.score_total += result.score
        self.usage = self.usage + result.usage
        self.cascade.add(result)
        for name, signal in result.signals.items():
            tally = self.signals.setdefault(name, _SignalTally())
            tally.n += 1
            if signal.value is None:
                tally.missing += 1
            else:
                tally.total += signal.value

    def print(self, file: IO[str] | None = None) -> None:
        from rich import box
        from rich.console import Console
        from rich.table import Table

        console = Console(file=file)
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
        table.add_column("signal")
        table.add_column("n", justify="right")
        table.add_column("missing", justify="right")
        table.add_column("mean value", justify="right")
        for name, t in self.signals.items():
            present = t.n - t.missing
            table.add_row(name, str(t.n), str(t.missing), f"{t.total / present:.3f}" if present else "-")
        scored_with_value = self.scored - self.no_score
        mean = f"{self.score_total / scored_with_value:.3f}" if scored_with_value else "-"
        table.add_section()
        table.add_row("score (fused)", str(self.scored), str(self.no_score), mean)
        # Plain lines are never wrapped (soft_wrap): a redirected log keeps one line per fact.
        console.print(f"trustscore score -> {self.output}", soft_wrap=True, highlight=False)
        console.print(table)
        for fusion, n in self.fusions.items():
            console.print(f"fusion: {fusion} for {n} row(s)", soft_wrap=True)
        console.print(
            f"calibrated P(trustworthy): {self.calibrated} of {scored_with_value} scored row(s)",
            soft_wrap=True,
        )
        for reason, n in sorted(self.not_calibrated_reasons.items(), key=lambda kv: -kv[1]):
            console.print(f"not calibrated, {n} row(s): {reason}", soft_wrap=True)
        if self.domain_checked:
            share = self.outside_domain / self.domain_checked
            counts = sorted(self.outside_reasons.items(), key=lambda kv: -kv[1])
            why = ", ".join(f"{k} in {v} row(s)" for k, v in counts)
            beyond = f"; beyond the calibration data's range: {why} (see each row's domain.reasons)"
            console.print(
                f"outside the calibration domain: {self.outside_domain} of {self.domain_checked} row(s) "
                f"({share:.1%}; scored but not claimed calibrated)" + (beyond if why else ""),
                soft_wrap=True,
            )
        u = self.usage
        if self.kept_incomplete:
            console.print(
                f"kept {self.kept_incomplete} incomplete row(s) of an earlier run; "
                "rerun with --retry-incomplete to score them again",
                soft_wrap=True,
            )
        if self.unsafe_cache_rows:
            console.print(
                f"cache: {self.unsafe_cache_rows} row(s) hit a cache entry trustscore did not write "
                "(UnsafeCacheEntry; the row is kept incomplete); rerun with --retry-incomplete to replace "
                "those entries",
                soft_wrap=True,
            )
        console.print(
            f"scored {self.scored}, skipped {self.skipped} already done, incomplete {self.incomplete}; "
            f"requests {u.requests}, tokens {u.prompt_tokens} prompt + {u.completion_tokens} completion, "
            f"cache hits {u.cache_hits}; {self.seconds:.1f}s",
            soft_wrap=True,
        )
        if self.cascade.rows:
            console.print(self.cascade.describe(self.usage), soft_wrap=True, highlight=False)


async def score_file(
    rows: Iterable[InputRow],
    output: Path,
    scorer: Scorer,
    *,
    concurrency: int | None = None,
    budget_s: float | None = None,
    progress: bool = True,
    retry_incomplete: bool = False,
) -> ScoreRunSummary:
    """Score the rows that have no complete row in ``output`` yet, appending one flushed line per result
    (completion order).

    Incomplete earlier rows are kept (and their samples skipped) unless ``retry_incomplete``, which
    removes them from ``output`` first and scores those samples again. ``rows`` is read once, lazily
    (an :class:`InputFile` streams its file): memory holds the earlier ids and the rows in flight.
    """
    started = time.perf_counter()
    with OutputFile.open(output) as out:
        if retry_incomplete:
            scorer.replace_unsafe_cache_entries()
            incomplete = IdIndex()
            for i, complete in out.rows.items():
                if not complete:
                    incomplete.add(i, 0)
            if incomplete:
                out.drop(incomplete)
        summary = await _score_into(out, rows, scorer, concurrency, budget_s, progress)
    summary.seconds = time.perf_counter() - started
    return summary


async def _score_into(
    out: OutputFile,
    rows: Iterable[InputRow],
    scorer: Scorer,
    concurrency: int | None,
    budget_s: float | None,
    progress: bool,
) -> ScoreRunSummary:
    previous = out.rows
    summary = ScoreRunSummary(output=out.path, judges=scorer.judge_names)
    in_flight: dict[int, InputRow] = {}
    """The rows handed to the stream whose result is not written yet, by their index in it."""

    def todo() -> Iterator[Sample]:
        index = 0
        for row in rows:
            done = previous.get(row.sample.id or "")
            if done is None:
                in_flight[index] = row
                index += 1
                yield row.sample
            elif done:
                summary.skipped += 1
            else:
                summary.kept_incomplete += 1

    bar = ProgressBar(_count_todo(rows, previous)) if progress else None
    try:
        async with scorer.stream(todo(), concurrency=concurrency, budget_s=budget_s) as results:
            async for index, result in results:
                assert isinstance(result, TrustScore)  # without return_exceptions, errors raise
                row = in_flight.pop(index)
                out.write(result_row(row.sample.id or "", result, row.carried))
                summary.add(result)
                if bar is not None:
                    bar.advance()
    finally:
        if bar is not None:
            bar.stop()
    return summary


def _count_todo(rows: Iterable[InputRow], previous: IdIndex) -> int | None:
    """How many rows a run will score, for the progress bar (None when it is not known ahead)."""
    if isinstance(rows, InputFile):
        return sum(1 for i in rows.ids if i not in previous)
    if isinstance(rows, Sequence):
        return sum(1 for r in rows if (r.sample.id or "") not in previous)
    return None
