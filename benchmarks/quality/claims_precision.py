"""How precise the claims signal's contradictions are, per kind, against RAGTruth's span annotations.

    python -m benchmarks.quality.claims_precision [--data ../shared/data] [--per-task 300] [--show 40]

Scores the first ``--per-task`` rows of each RAGTruth task (QA, Summary, Data2txt) in
``ragtruth/test.jsonl`` with the claims signal alone (one sample at a time, one context parsed once
for its six answers) and reports, per task and contradiction kind:

- **contradictions**: how many the signal marked, and in how many rows;
- **span precision**: the share of contradicted spans that overlap a span the annotators marked
  hallucinated (a contradiction there is a true one);
- **row precision**: the share of rows with a contradiction of that kind that are hallucinated,
  beside the task's base rate (the share of all its rows that are);
- **recall**: the share of the annotated "Evident Conflict" spans that a contradiction of that kind
  overlaps (the annotators' label for a statement the context says otherwise).

Then the contrast set (``examples/contrast_set.jsonl``, 225 rows written for this project: nine
answers to each of 25 invented contexts): per phenomenon, the share of rows with a contradiction (the
changed number, date, name and negation rows should have one; the verbatim, paraphrase and addition
rows none).

``--show N`` prints N contradictions that overlap no annotated span, spread over the tasks, to be read
by hand: each is a checker error (a wrong slot, another subject...) or a label the annotators missed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
TASKS = ("QA", "Summary", "Data2txt")
CONFLICT = "Evident Conflict"


@dataclass
class Tally:
    """The counts behind one table row (one task and contradiction kind)."""

    contradictions: int = 0
    inside: int = 0
    rows: set[str] = field(default_factory=set)
    hallucinated_rows: set[str] = field(default_factory=set)
    conflicts_hit: set[tuple[str, int]] = field(default_factory=set)


def read_rows(data: Path, per_task: int) -> list[dict[str, Any]]:
    path = data / "ragtruth" / "test.jsonl"
    if not path.exists():
        sys.exit(f"no RAGTruth test set at {path}: pass --data with the folder holding ragtruth/")
    taken: dict[str, int] = defaultdict(int)
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if taken[row["task"]] < per_task:
            taken[row["task"]] += 1
            rows.append(row)
    return rows


def overlaps(start: int, end: int, spans: list[dict[str, Any]]) -> bool:
    return any(start < s["end"] and s["start"] < end for s in spans)


def measure(
    check: Any, rows: list[dict[str, Any]]
) -> tuple[dict[tuple[str, str], Tally], list[dict[str, Any]]]:
    """Per (task, kind) tallies (kind "all" pools the kinds) and the contradictions outside every span."""
    from trustscore._types import Sample

    tallies: dict[tuple[str, str], Tally] = defaultdict(Tally)
    outside: list[dict[str, Any]] = []
    for row in rows:
        sample = Sample(question=row["question"], context=row["context"], response=row["response"])
        signal = check.score(sample)
        conflicts = [s for s in row["spans"] if s.get("label_type") == CONFLICT]
        for span in signal.spans:
            label = span.label or ""
            if not label.startswith("contradicted "):
                continue
            kind = label.split(":", 1)[0].removeprefix("contradicted ")
            inside = overlaps(span.start, span.end, row["spans"])
            for key in ((row["task"], kind), (row["task"], "all")):
                tally = tallies[key]
                tally.contradictions += 1
                tally.inside += inside
                tally.rows.add(row["id"])
                if row["hallucinated"]:
                    tally.hallucinated_rows.add(row["id"])
                tally.conflicts_hit.update(
                    (row["id"], i) for i, c in enumerate(conflicts) if overlaps(span.start, span.end, [c])
                )
            if not inside:
                outside.append({"task": row["task"], "id": row["id"], "label": label, "text": span.text})
    return tallies, outside


def table(rows: list[dict[str, Any]], tallies: dict[tuple[str, str], Tally]) -> list[str]:
    lines = [
        "| task | kind | contradictions (rows) | span precision | row precision (base) "
        "| recall of Evident Conflict spans |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for task in TASKS:
        of_task = [r for r in rows if r["task"] == task]
        if not of_task:
            continue
        base = sum(r["hallucinated"] for r in of_task) / len(of_task)
        conflicts = sum(s.get("label_type") == CONFLICT for r in of_task for s in r["spans"])
        kinds = [*sorted(k for t, k in tallies if t == task and k != "all"), "all"]
        for kind in kinds:
            t = tallies.get((task, kind), Tally())
            span_p = t.inside / t.contradictions if t.contradictions else float("nan")
            row_p = len(t.hallucinated_rows) / len(t.rows) if t.rows else float("nan")
            recall = len(t.conflicts_hit) / conflicts if conflicts else float("nan")
            lines.append(
                f"| {task} | {kind} | {t.contradictions} ({len(t.rows)}) | {span_p:.2f} | "
                f"{row_p:.2f} ({base:.2f}) | {recall:.2f} of {conflicts} |"
            )
    return lines


def contrast_table(check: Any) -> list[str]:
    """Per phenomenon of the contrast set, how many rows the claims signal finds a contradiction in."""
    from trustscore._types import Sample

    path = REPO / "examples" / "contrast_set.jsonl"
    if not path.exists():
        return [f"(no contrast set at {path})"]
    hit: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        sample = Sample(question=row["question"], context=row["context"], response=row["response"])
        raw = check.score(sample).raw
        hit[row["phenomenon"]][0] += 1
        hit[row["phenomenon"]][1] += isinstance(raw, dict) and bool(raw.get("contradicted"))
    lines = ["| contrast-set phenomenon | rows | rows with a contradiction |", "| --- | --- | --- |"]
    lines += [f"| {name} | {n} | {k} |" for name, (n, k) in hit.items()]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--per-task", type=int, default=300)
    parser.add_argument("--show", type=int, default=0, help="contradictions outside every span to print")
    args = parser.parse_args(argv)
    from trustscore.grounding.claims._signal import ClaimsCheck

    check = ClaimsCheck()
    rows = read_rows(args.data, args.per_task)
    tallies, outside = measure(check, rows)
    print(f"claims contradictions on {len(rows)} RAGTruth test rows ({args.per_task} a task at most)\n")
    print("\n".join(table(rows, tallies)))
    print()
    print("\n".join(contrast_table(check)))
    if args.show:
        print(f"\n{len(outside)} contradictions outside every annotated span; {args.show} of them:")
        step = max(1, len(outside) // args.show)
        for item in outside[::step][: args.show]:
            print(f"- {item['task']} {item['id']}: {item['label'][:200]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
