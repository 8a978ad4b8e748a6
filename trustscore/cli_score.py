"""``trustscore score IN.jsonl -o OUT.jsonl``: score a file of samples, resumably.

Input: one JSON object a line with ``question``, ``response``, optional ``context`` (a string or a
list of passages) and optional ``id``. Every other field (label, task, source_id, ...) is carried
through untouched into the output row, so ``trustscore eval`` can read labels later. A row without
``id`` gets the hash of its question, context and response as its id.

The whole input is checked before anything is scored: a bad line stops the run with its line
number (nothing is silently skipped, so an evaluation never quietly loses rows).

Output: one JSON object a line, appended and flushed as each sample finishes (completion order):
``id``, ``score``, ``calibrated``, ``fusion``, ``used_signals``, ``signals`` ({name: Signal}),
``usage``, ``complete``, ``seconds``, then the carried-through fields. Re-running with the same
output file skips the ids already in it, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import anyio

from trustscore.cli import UsageError
from trustscore.hashing import canonical_json, short_hash
from trustscore.ray.command import add_arguments as add_ray_arguments
from trustscore.ray.command import run_ray
from trustscore.scorer import Scorer, validate_sample
from trustscore.types import Sample, TrustScore, Usage

__all__ = [
    "InputRow",
    "ScoreRunSummary",
    "add_parser",
    "build_scorer",
    "done_ids",
    "read_input",
    "result_row",
    "score_file",
]

SAMPLE_FIELDS = ("question", "context", "response", "id")
RESULT_FIELDS = (
    "id",
    "score",
    "calibrated",
    "fusion",
    "used_signals",
    "signals",
    "usage",
    "complete",
    "seconds",
)


def add_parser(subcommands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "score",
        help="score a JSONL file of samples (resumable)",
        description=__doc__,
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
    if args.address is not None or args.actors is not None or args.batch_size is not None:
        raise UsageError("--address, --actors and --batch-size only apply with --ray")
    rows = read_input(args.input)
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
            )

    summary = anyio.run(go)
    summary.print()
    return 0


# -- input ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InputRow:
    line: int
    sample: Sample
    carried: dict[str, Any]
    """Fields other than question/context/response/id, copied into the output row as they are."""


def read_input(path: Path) -> list[InputRow]:
    """Read and validate every line; the first problem raises UsageError with its line number."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"input file {path} does not exist") from None
    except UnicodeDecodeError as e:
        raise UsageError(f"input file {path} is not UTF-8 text ({e})") from None
    rows: list[InputRow] = []
    first_line_of: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        row = _parse_row(path, number, line)
        previous = first_line_of.setdefault(row.sample.id or "", number)
        if previous != number:
            raise UsageError(
                f"{path}:{number}: id {row.sample.id!r} already used on line {previous}; ids must be unique "
                f"(they are how an interrupted run resumes)"
            )
        rows.append(row)
    if not rows:
        raise UsageError(f"input file {path} has no samples (expected one JSON object a line)")
    return rows


def _parse_row(path: Path, number: int, line: str) -> InputRow:
    where = f"{path}:{number}"
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
    """Ids already in an earlier run's output. A torn last line (the run was killed mid-write) is cut off."""
    if not path.exists():
        return set()
    raw = path.read_bytes()
    if raw and not raw.endswith(b"\n"):
        keep = raw.rfind(b"\n") + 1
        print(f"trustscore: {path}: dropping an incomplete last line (interrupted write)", file=sys.stderr)
        with path.open("r+b") as f:
            f.truncate(keep)
        raw = raw[:keep]
    ids: set[str] = set()
    for number, line in enumerate(raw.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            ids.add(str(row["id"]))
        except (json.JSONDecodeError, KeyError, TypeError):
            raise UsageError(
                f"{path}:{number}: not a trustscore result row; "
                "fix or remove that line, or write to a new file"
            ) from None
    return ids


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
    """How many scores each fusion produced ("calibrator:ragtruth_local@...", "default:mean")."""

    def add(self, result: TrustScore) -> None:
        self.scored += 1
        self.fusions[result.fusion] = self.fusions.get(result.fusion, 0) + 1
        self.incomplete += not result.complete
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
        from rich.console import Console
        from rich.table import Table

        console = Console(file=file)
        table = Table(title=f"trustscore score -> {self.output}")
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
        console.print(table)
        for fusion, n in self.fusions.items():
            kind = "calibrated P(trustworthy)" if fusion.startswith("calibrator:") else "uncalibrated"
            console.print(f"fusion: {fusion} ({kind}) for {n} row(s)")
        u = self.usage
        console.print(
            f"scored {self.scored}, skipped {self.skipped} already done, incomplete {self.incomplete}; "
            f"requests {u.requests}, tokens {u.prompt_tokens} prompt + {u.completion_tokens} completion, "
            f"cache hits {u.cache_hits}; {self.seconds:.1f}s"
        )


async def score_file(
    rows: list[InputRow],
    output: Path,
    scorer: Scorer,
    *,
    concurrency: int | None = None,
    budget_s: float | None = None,
    progress: bool = True,
) -> ScoreRunSummary:
    """Score the rows whose id is not in ``output`` yet, appending one flushed line per result."""
    started = time.perf_counter()
    done = done_ids(output)
    todo = [r for r in rows if r.sample.id not in done]
    summary = ScoreRunSummary(output=output, skipped=len(rows) - len(todo))
    output.parent.mkdir(parents=True, exist_ok=True)
    with output.open("a", encoding="utf-8") as out:

        def write(index: int, result: TrustScore) -> None:
            row = todo[index]
            out.write(
                json.dumps(result_row(row.sample.id or "", result, row.carried), ensure_ascii=False) + "\n"
            )
            out.flush()
            summary.add(result)

        await scorer.score_many(
            [r.sample for r in todo],
            progress=progress,
            concurrency=concurrency,
            budget_s=budget_s,
            on_result=write,
        )
    summary.seconds = time.perf_counter() - started
    return summary
