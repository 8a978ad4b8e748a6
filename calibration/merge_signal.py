"""Put one signal, scored on its own, into a scored corpus (by row id).

    .venv/bin/python -m calibration.merge_signal --signal claims \\
        --into .cache-data/corpus/scored.jsonl --source .cache-data/corpus/claims_scored.jsonl \\
        -o .cache-data/corpus/scored_claims.jsonl

For a signal added or changed after the corpus was scored: score the corpus with only that signal on
(a config turning the others off), then merge, instead of rescoring every signal. Every row of
``--into`` must have its row in ``--source``; ``score`` is dropped from the merged rows (it fused the
old set of signals). It prints what the merge changes: how many rows' values of the signal differ, per
data set, and, where the signal counts contradicted and unsupported findings (``raw.contradicted``,
``raw.unsupported``: the claims signal), how many rows gain a contradiction or an unsupported finding,
by their ``hallucinated`` label.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--signal", required=True)
    parser.add_argument("--into", type=Path, required=True)
    parser.add_argument("--source", type=Path, required=True)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)
    source = {}
    for line in args.source.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            source[row["id"]] = row["signals"][args.signal]
    out = []
    changes: Counter[str] = Counter()
    for line in args.into.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if row["id"] not in source:
            print(f"error: row {row['id']!r} has no {args.signal} signal in {args.source}", file=sys.stderr)
            return 2
        changes.update(_changes(row, row["signals"].get(args.signal), source[row["id"]]))
        row["signals"][args.signal] = source[row["id"]]
        row["score"] = None
        out.append(json.dumps(row, ensure_ascii=False))
    args.output.write_text("\n".join(out) + "\n", encoding="utf-8")
    print(f"wrote {len(out)} rows with {args.signal} from {args.source} to {args.output}")
    for change, rows in sorted(changes.items()):
        print(f"  {change}: {rows} rows")
    return 0


def _changes(row: dict[str, Any], old: dict[str, Any] | None, new: dict[str, Any]) -> list[str]:
    """What the merge changes in one row: its value, and whether it gains a contradicted or an
    unsupported finding (with its label)."""
    before = old or {}
    out = []
    if before.get("value") != new.get("value"):
        out.append(f"value changed in {row.get('dataset', 'rows without a data set')}")
    hallucinated = row.get("hallucinated")
    label = (
        "unlabeled" if not isinstance(hallucinated, bool) else "hallucinated" if hallucinated else "faithful"
    )
    for count in ("contradicted", "unsupported"):
        had, has = _count(before, count), _count(new, count)
        if has > had:
            out.append(f"more {count} ({label})")
        if had == 0 < has and count == "contradicted":
            out.append(f"a first contradiction ({label})")
    return out


def _count(signal: dict[str, Any], name: str) -> int:
    raw = signal.get("raw")
    value = raw.get(name) if isinstance(raw, dict) else None
    return value if isinstance(value, int) else 0


if __name__ == "__main__":
    sys.exit(main())
