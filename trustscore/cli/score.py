"""``trustscore score IN.jsonl -o OUT.jsonl``: score a file of samples, resumably.

Input: one JSON object a line with ``question``, ``response``, optional ``context`` (a string or a
list of passages) and optional ``id``. Every other field (label, task, source_id, ...) is carried
through untouched into the output row, so ``trustscore eval`` can read labels later. A row without
``id`` gets the hash of its question, context and response as its id.

The whole input is checked before anything is scored: a bad line stops the run with its line
number (nothing is silently skipped, so an evaluation never quietly loses rows). The file is then
read again a row at a time into ``Scorer.stream``, so memory does not grow with it (only the ids
are kept, compactly: duplicates and resume need them).

Output: one JSON object a line, appended and flushed as each sample finishes (completion order):
``id``, ``score``, ``calibrated``, ``fusion``, ``used_signals``, ``signals`` ({name: Signal}),
``usage``, ``complete``, ``incomplete_signals``, ``seconds``, then the carried-through fields.

Resume: re-running with the same output file skips the ids whose row is complete, so an
interrupted run resumes where it stopped. A row is complete only when no signal is missing for a
reason a rerun may fix (cut by the budget; judge server unreachable, overloaded or slow; API key
unset or refused). Incomplete rows are kept and counted; ``--retry-incomplete`` drops them from the
output and scores those samples again. When every judge failed on every row for such a reason the
run exits with status 1 and says why. The output may not be the input file.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import anyio

from trustscore.cli.help_text import plain
from trustscore.cli.ids import IdIndex
from trustscore.core.hashing import canonical_json, short_hash
from trustscore.errors import UsageError
from trustscore.ray.command import add_arguments as add_ray_arguments
from trustscore.ray.command import run_ray
from trustscore.scoring.batch import ProgressBar
from trustscore.scoring.scorer import OUTSIDE_DOMAIN, Scorer, validate_sample
from trustscore.types import Sample, TrustScore, Usage, find_bad_text, text_problem

__all__ = [
    "InputFile",
    "InputRow",
    "ScoreRunSummary",
    "add_parser",
    "build_scorer",
    "done_ids",
    "previous_rows",
    "read_input",
    "result_row",
    "score_file",
]

SAMPLE_FIELDS = ("question", "context", "response", "id")
RESULT_FIELDS = (
    "id",
    "score",
    "calibrated",
    "not_calibrated_reason",
    "fusion",
    "used_signals",
    "signals",
    "usage",
    "complete",
    "incomplete_signals",
    "seconds",
    "domain",
)


def add_parser(subcommands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "score",
        help="score a JSONL file of samples (resumable)",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input", type=Path, help="JSONL: question, context, response[, id, any other fields]")
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
    """Refuse an output that is a directory or the input file itself (resuming it would score nothing)."""
    if output.is_dir():
        raise UsageError(f"-o {output} is a directory; give the path of a JSONL file to write")
    same = output.resolve() == input_path.resolve()
    if not same and output.exists() and input_path.exists():
        same = output.samefile(input_path)
    if same:
        raise UsageError(f"-o {output} is the input file; write the results to another file")


# -- input ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InputRow:
    line: int
    sample: Sample
    carried: dict[str, Any]
    """Fields other than question/context/response/id, copied into the output row as they are."""


class InputFile:
    """A checked input file, read again lazily (one row at a time) each time it is iterated, so a
    run's memory does not grow with the file. Only the ids are kept (resume needs them), each with the
    line it is on."""

    def __init__(self, path: Path, ids: IdIndex) -> None:
        self.path = path
        self.ids = ids

    @classmethod
    def check(cls, path: Path) -> InputFile:
        """Validate every line; the first problem raises UsageError with its line number."""
        first_line_of = IdIndex()
        for number, row in _rows(path):
            previous = first_line_of.add(row.sample.id or "", number)
            if previous is not None:
                raise UsageError(
                    f"{path}:{number}: id {row.sample.id!r} already used on line {previous}; ids must be "
                    f"unique (they are how an interrupted run resumes)"
                )
        if not first_line_of:
            raise UsageError(f"input file {path} has no samples (expected one JSON object a line)")
        return cls(path, first_line_of)

    def __iter__(self) -> Iterator[InputRow]:
        for _, row in _rows(self.path):
            yield row


def read_input(path: Path) -> list[InputRow]:
    """Every row of a checked input file, in a list (for small files; the CLI streams them)."""
    return list(InputFile.check(path))


def _rows(path: Path) -> Iterator[tuple[int, InputRow]]:
    """(line number, row) for each non-blank line, parsed and validated as it is read."""
    try:
        with path.open(encoding="utf-8") as f:
            for number, line in enumerate(f, start=1):
                if line.strip():
                    yield number, _parse_row(path, number, line)
    except FileNotFoundError:
        raise UsageError(f"input file {path} does not exist") from None
    except UnicodeDecodeError as e:
        raise UsageError(f"input file {path} is not UTF-8 text ({e})") from None


def _parse_row(path: Path, number: int, line: str) -> InputRow:
    where = f"{path}:{number}"
    try:
        return _parse_object(where, number, line)
    except RecursionError:
        raise UsageError(f"{where}: JSON nested too deeply to be a sample") from None


def _parse_object(where: str, number: int, line: str) -> InputRow:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as e:
        raise UsageError(f"{where}: not valid JSON ({e.msg} at column {e.colno})") from None
    if not isinstance(data, dict):
        raise UsageError(f"{where}: expected a JSON object with question, context and response")
    clashes = [k for k in data if k in RESULT_FIELDS and k != "id"]
    if clashes:
        raise UsageError(f"{where}: field(s) {clashes} would be overwritten by the result; rename them")
    carried = {k: v for k, v in data.items() if k not in SAMPLE_FIELDS}
    # Checked here so the message names the JSONL field; a lone surrogate would otherwise abort
    # the output write of this row and of every resume after it.
    for key, value in carried.items():
        shown = key.encode("utf-8", "backslashreplace").decode()
        if problem := text_problem(key):
            raise UsageError(f"{where}: field name {shown!r} {problem}")
        if found := find_bad_text(value, f"field {shown!r}"):
            raise UsageError(f"{where}: {found}")
    fields = {k: data[k] for k in SAMPLE_FIELDS if k in data}
    if isinstance(fields.get("id"), int) and not isinstance(fields["id"], bool):
        fields["id"] = str(fields["id"])
    try:
        sample = validate_sample({**fields, "metadata": carried}, where="")
    except ValueError as e:
        raise UsageError(f"{where}: {e}") from None
    if sample.id is None:
        content = canonical_json(
            {"question": sample.question, "context": sample.context, "response": sample.response}
        )
        sample = sample.model_copy(update={"id": short_hash(content, 16)})
    return InputRow(line=number, sample=sample, carried=carried)


# -- output -----------------------------------------------------------------------------------


def done_ids(path: Path) -> set[str]:
    """Ids whose row in an earlier run's output is complete (see :func:`previous_rows`)."""
    return {i for i, complete in previous_rows(path).items() if complete}


def previous_rows(path: Path) -> IdIndex:
    """Id -> complete (1) or not (0), for each row of an earlier run's output, read a line at a time.
    A torn last line (the run was killed mid-write) is cut off. A row written before ``complete``
    existed counts as complete; of two rows with one id, the later one counts."""
    ids = IdIndex()
    if not path.exists():
        return ids
    _cut_torn_line(path)
    with path.open("rb") as f:
        offset = 0
        for number, raw in enumerate(f, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise UsageError(
                    f"{path}: byte {offset + e.start} is not UTF-8, so this is not a trustscore output; "
                    "write to a new file"
                ) from None
            offset += len(raw)
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                ids.set(str(row["id"]), int(row.get("complete", True) is True))
            except (json.JSONDecodeError, KeyError, TypeError, AttributeError, RecursionError):
                raise UsageError(
                    f"{path}:{number}: not a trustscore result row; "
                    "fix or remove that line, or write to a new file"
                ) from None
    return ids


def _cut_torn_line(path: Path) -> None:
    """Truncate ``path`` after its last newline, if anything follows it."""
    with path.open("rb") as f:
        end = f.seek(0, os.SEEK_END)
        if end == 0:
            return
        f.seek(end - 1)
        if f.read(1) == b"\n":
            return
        keep, block = end, 1 << 16
        while keep > 0:  # scan back for the last newline, a block at a time
            start = max(0, keep - block)
            f.seek(start)
            found = f.read(keep - start).rfind(b"\n")
            if found >= 0:
                keep = start + found + 1
                break
            keep = start
    print(f"trustscore: {path}: dropping an incomplete last line (interrupted write)", file=sys.stderr)
    with path.open("r+b") as f:
        f.truncate(keep)


def result_row(sample_id: str, result: TrustScore, carried: dict[str, Any]) -> dict[str, Any]:
    dumped = result.model_dump(mode="json")
    row = {"id": sample_id, **{k: dumped[k] for k in RESULT_FIELDS if k != "id"}}
    row.update(carried)
    return row


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

    def add(self, result: TrustScore) -> None:
        if self.judges and all(j in result.incomplete_signals for j in self.judges):
            self.judges_down_rows += 1
            self.judge_failure = self.judge_failure or (result.signals[self.judges[0]].error or "")
        self.scored += 1
        self.fusions[result.fusion] = self.fusions.get(result.fusion, 0) + 1
        self.incomplete += not result.complete
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
            why = ", ".join(f"{k}: {v}" for k, v in counts)
            console.print(
                f"outside the calibration domain: {self.outside_domain} of {self.domain_checked} row(s) "
                f"({share:.1%}; scored but not claimed calibrated)" + (f" - {why}" if why else ""),
                soft_wrap=True,
            )
        u = self.usage
        if self.kept_incomplete:
            console.print(
                f"kept {self.kept_incomplete} incomplete row(s) of an earlier run; "
                "rerun with --retry-incomplete to score them again",
                soft_wrap=True,
            )
        console.print(
            f"scored {self.scored}, skipped {self.skipped} already done, incomplete {self.incomplete}; "
            f"requests {u.requests}, tokens {u.prompt_tokens} prompt + {u.completion_tokens} completion, "
            f"cache hits {u.cache_hits}; {self.seconds:.1f}s",
            soft_wrap=True,
        )


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
    previous = previous_rows(output)
    incomplete = IdIndex()
    for i, complete in previous.items():
        if not complete:
            incomplete.add(i, 0)
    if retry_incomplete and incomplete:
        _drop_rows(output, incomplete)
        previous = previous_rows(output)
    summary = ScoreRunSummary(output=output, judges=scorer.judge_names)
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

    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        out = output.open("a", encoding="utf-8")
    except OSError as e:
        raise _write_error(output, e) from None
    bar = ProgressBar(_count_todo(rows, previous)) if progress else None
    try:
        with out:
            async with scorer.stream(todo(), concurrency=concurrency, budget_s=budget_s) as results:
                async for index, result in results:
                    assert isinstance(result, TrustScore)  # without return_exceptions, errors raise
                    row = in_flight.pop(index)
                    dumped = result_row(row.sample.id or "", result, row.carried)
                    line = json.dumps(dumped, ensure_ascii=False)
                    try:
                        out.write(line + "\n")
                        out.flush()
                    except OSError as e:
                        raise _write_error(output, e) from None
                    summary.add(result)
                    if bar is not None:
                        bar.advance()
    finally:
        if bar is not None:
            bar.stop()
    summary.seconds = time.perf_counter() - started
    return summary


def _count_todo(rows: Iterable[InputRow], previous: IdIndex) -> int | None:
    """How many rows a run will score, for the progress bar (None when it is not known ahead)."""
    if isinstance(rows, InputFile):
        return sum(1 for i in rows.ids if i not in previous)
    if isinstance(rows, Sequence):
        return sum(1 for r in rows if (r.sample.id or "") not in previous)
    return None


def _write_error(path: Path, error: OSError) -> OSError:
    """The error as one line naming the output file (disk full and read-only have no filename)."""
    return OSError(error.errno, f"cannot write the results: {error.strerror or error}", str(path))


def _drop_rows(path: Path, ids: IdIndex) -> None:
    """Rewrite ``path`` without the rows of ``ids``, a line at a time (atomically: a crash leaves the
    old file)."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with path.open(encoding="utf-8") as src, tmp.open("w", encoding="utf-8") as dst:
            for line in src:
                if line.strip() and str(json.loads(line)["id"]) not in ids:
                    dst.write(line)
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise _write_error(path, e) from None
