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
and why not; an input row's own ``domain`` names the adaptation it belongs to), ``cascade`` (the stage a
row stopped at and the signals it skipped, with a ``[cascade]``), then the sample fields ``--carry``
names (``question``, ``context``, ``response``: a row reads without a join to the input), then the
carried-through fields.

Resume: re-running with the same output file skips the ids whose row is complete, so an
interrupted run resumes where it stopped. A row is complete only when no signal is missing for a
reason a rerun may fix (cut by the budget; judge server unreachable, overloaded or slow; API key
unset or refused). Incomplete rows are kept and counted; ``--retry-incomplete`` drops them from the
output and scores those samples again. When every judge failed on every row it ran on the run
exits with status 1 and says why. The output may not be the input file; it must be new, empty
or a trustscore output (anything else is refused untouched), and one run at a time writes it.

Exit status: 0 every row scored; 1 failed (every judge failed on every row it ran on); 2 bad input,
flag or config (nothing scored), or no row could be scored (every row invalid, or no signal gave a value on
any row: the reason is named); 3 the run finished but some rows are error rows.
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

from trustscore._errors import DegradedScoreError, UnsafeCacheEntry, UsageError
from trustscore._types import Sample, TrustScore, Usage
from trustscore.cli._cascade_spend import CascadeSpend
from trustscore.cli._help_text import plain
from trustscore.ray._command import add_arguments as add_ray_arguments
from trustscore.ray._command import run_ray
from trustscore.rows import IdIndex, InputFile, InputRow, OnError, OutputFile, RowError, error_row, result_row
from trustscore.scoring._batch import ProgressBar
from trustscore.scoring._scorer import OUTSIDE_DOMAIN, Scorer

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
    rows = InputFile.check(args.input, on_error=args.on_error)
    for warning in rows.warnings():
        print(f"trustscore: warning: {warning}", file=sys.stderr)
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
                on_error=args.on_error,
                carry=args.carry,
            )

    summary = anyio.run(go)
    summary.print()
    hints = "".join(f"; rows have {k!r}: did you mean {t.suggestion!r}?" for k, t in rows.lookalikes.items())
    if summary.judges_down():
        if summary.judges_down_transient:
            fix = (
                "for a transport or credential reason, e.g. {}; the rows are kept as incomplete: start "
                "the server (or export the API key), then rerun with --retry-incomplete"
            )
        else:
            fix = "e.g. {}; the scores stand on the other signals only (degraded): fix the judges' config"
        print(
            f"trustscore: error: every judge failed on all {summary.judge_rows} scored row(s) it ran on, "
            + fix.format(summary.judge_failure)
            + hints,
            file=sys.stderr,
        )
        return 1
    if summary.nothing_scored():
        why = summary.why_nothing_scored()
        print(f"trustscore: error: no row could be scored: {why}{hints}", file=sys.stderr)
        return 2
    if summary.errors:
        print(
            f"trustscore: {summary.errors} row(s) could not be scored and are error rows in {args.output} "
            f"(error says why), e.g. {summary.first_error}",
            file=sys.stderr,
        )
        return 3
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
    """Every row of a checked input file, in a list (for small files; the CLI streams them); an
    invalid row raises InputError naming its line."""
    return [row for row in InputFile.check(path, on_error="stop") if isinstance(row, InputRow)]


_MAX_REASONS = 1000
"""Distinct missing reasons a summary counts (a reason quoting each row's numbers must not grow it
without bound); later new ones are not counted."""


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
    skipped_signals: dict[str, str] = field(default_factory=dict)
    """On-by-default signals that did not run because their extra is not installed, and how to add each."""
    abstained: int = 0
    """Rows whose response declines to answer (``abstained``): counted apart from degraded ones."""
    judge_rows: int = 0
    """Scored rows on which at least one judge ran (a cascade may skip them all)."""
    judges_down_rows: int = 0
    """Scored rows on which every judge that ran failed."""
    judges_down_transient: bool = True
    """Whether every such failure was for a transport or credential reason (a rerun may fix it)."""
    judge_failure: str = ""
    """One such failure's reason, for the message."""
    unsafe_cache_rows: int = 0
    """Rows with a signal missing because a cache entry on its key was not written by trustscore."""

    degraded: int = 0
    """Rows on which a signal that ran gave no value."""
    missing_reasons: dict[str, int] = field(default_factory=dict)
    """How often each "signal: reason" left a signal without a value."""

    errors: int = 0
    """Input rows written as error rows (invalid, or refused by ``fusion.on_missing = "raise"``)."""
    first_error: str = ""
    """The first error row's line and reason, for the message."""

    def nothing_scored(self) -> bool:
        """Whether the run read the whole input afresh (nothing done before) and not one row got a score."""
        fresh = not self.skipped and not self.kept_incomplete
        return fresh and self.scored + self.errors > 0 and self.scored == self.no_score

    def why_nothing_scored(self) -> str:
        """The reason for :meth:`nothing_scored`."""
        if not self.scored:
            return f"all {self.errors} row(s) are invalid, e.g. {self.first_error}"
        why = f"no signal gave a value on any of {self.scored} row(s)"
        if self.missing_reasons:
            common = max(self.missing_reasons.items(), key=lambda kv: kv[1])
            why += f"; most common reason, {common[1]} time(s): {common[0]}"
        if self.errors:
            why += f"; {self.errors} more row(s) are invalid, e.g. {self.first_error}"
        return why

    def add_error(self, line: int, reason: str) -> None:
        self.errors += 1
        self.first_error = self.first_error or f"line {line}: {reason}"

    def judges_down(self) -> bool:
        """Whether every judge failed on every scored row that ran one."""
        return self.judge_rows > 0 and self.judges_down_rows == self.judge_rows

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
        ran = [j for j in self.judges if j in result.signals]
        if ran:
            self.judge_rows += 1
            if all(result.signals[j].missing for j in ran):
                self.judges_down_rows += 1
                self.judges_down_transient &= all(j in result.incomplete_signals for j in ran)
                self.judge_failure = self.judge_failure or f"{ran[0]}: {result.signals[ran[0]].error}"
        self.degraded += result.degraded
        self.abstained += result.abstained
        for name, why in result.missing.items():
            if result.signals[name].abstention:
                continue
            key = f"{name}: {why}"
            if key in self.missing_reasons or len(self.missing_reasons) < _MAX_REASONS:
                self.missing_reasons[key] = self.missing_reasons.get(key, 0) + 1
        self.scored += 1
        self.fusions[result.fusion] = self.fusions.get(result.fusion, 0) + 1
        self.incomplete += not result.complete
        # Anywhere in the reason: a signal of several calls says "2 parallel calls failed: UnsafeCacheEntry".
        self.unsafe_cache_rows += any(
            UnsafeCacheEntry.__name__ in (result.signals[n].error or "") for n in result.incomplete_signals
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
        from rich.markup import escape
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
            console.print(f"not calibrated, {n} row(s): {escape(reason)}", soft_wrap=True)
        if self.domain_checked:
            share = self.outside_domain / self.domain_checked
            counts = sorted(self.outside_reasons.items(), key=lambda kv: -kv[1])
            why = ", ".join(f"{k} in {v} row(s)" for k, v in counts)
            beyond = f"; unlike the calibration data: {why} (see each row's domain.reasons)"
            console.print(
                f"outside the calibration domain: {self.outside_domain} of {self.domain_checked} row(s) "
                f"({share:.1%}; scored but not claimed calibrated)" + (beyond if why else ""),
                soft_wrap=True,
            )
        if self.degraded:
            common = max(self.missing_reasons.items(), key=lambda kv: kv[1])
            console.print(
                f"degraded: {self.degraded} of {self.scored} row(s) scored without every signal "
                f"(each row's degraded and signals say which); most common missing reason, "
                f"{common[1]} time(s): {escape(common[0])}",
                soft_wrap=True,
                highlight=False,
            )
        if self.abstained:
            console.print(
                f"abstained: {self.abstained} of {self.scored} row(s) decline to answer (each row's "
                "abstained; not degraded: the signals that check words have nothing to check there)",
                soft_wrap=True,
                highlight=False,
            )
        for reason in self.skipped_signals.values():
            console.print(f"not run: {escape(reason)}", soft_wrap=True, highlight=False)
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
        if self.errors:
            console.print(
                f"error rows: {self.errors} input row(s) could not be scored (error says why), "
                f"e.g. {escape(self.first_error)}",
                soft_wrap=True,
                highlight=False,
            )
        errors = f", errors {self.errors}" if self.errors else ""
        console.print(
            f"scored {self.scored}, skipped {self.skipped} already done, "
            f"incomplete {self.incomplete}{errors}; "
            f"requests {u.requests}, tokens {u.prompt_tokens} prompt + {u.completion_tokens} completion, "
            f"cache hits {u.cache_hits}; {self.seconds:.1f}s",
            soft_wrap=True,
        )
        if self.cascade.rows:
            console.print(self.cascade.describe(self.usage), soft_wrap=True, highlight=False)


async def score_file(
    rows: Iterable[InputRow | RowError],
    output: Path,
    scorer: Scorer,
    *,
    concurrency: int | None = None,
    budget_s: float | None = None,
    progress: bool = True,
    retry_incomplete: bool = False,
    on_error: OnError = "stop",
    carry: Sequence[str] = (),
) -> ScoreRunSummary:
    """Score the rows that have no complete row in ``output`` yet, appending one flushed line per result
    (completion order).

    A :class:`RowError` among ``rows`` is written as an error row as it is read. A sample the Scorer
    refuses (``fusion.on_missing = "raise"``) is an error row too with ``on_error="record"``, and
    stops the run with "stop". ``carry`` names sample fields (question, context, response) to copy into
    each result row. Incomplete earlier rows are kept (and their samples skipped) unless
    ``retry_incomplete``, which removes them from ``output`` first and scores those samples again.
    ``rows`` is read once, lazily (an :class:`InputFile` streams its file): memory holds the earlier
    ids and the rows in flight.
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
        summary = await _score_into(out, rows, scorer, concurrency, budget_s, progress, on_error, carry)
    summary.seconds = time.perf_counter() - started
    return summary


async def _score_into(
    out: OutputFile,
    rows: Iterable[InputRow | RowError],
    scorer: Scorer,
    concurrency: int | None,
    budget_s: float | None,
    progress: bool,
    on_error: OnError,
    carry: Sequence[str],
) -> ScoreRunSummary:
    previous = out.rows
    summary = ScoreRunSummary(
        output=out.path, judges=scorer.judge_names, skipped_signals=dict(scorer.skipped)
    )
    in_flight: dict[int, InputRow] = {}
    """The rows handed to the stream whose result is not written yet, by their index in it."""

    def todo() -> Iterator[Sample]:
        index = 0
        for row in rows:
            done = previous.get(row.id if isinstance(row, RowError) else row.sample.id or "")
            if done is None and isinstance(row, RowError):
                # Written as it is read (the stream's consumer writes between awaits, never inside one).
                out.write(error_row(row.id, row.line, row.reason))
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
                    out.write(error_row(row.sample.id or "", row.line, str(result)))
                    summary.add_error(row.line, str(result))
                    continue
                texts = {name: getattr(row.sample, name) for name in carry}
                out.write(result_row(row.sample.id or "", result, {**texts, **row.carried}))
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
