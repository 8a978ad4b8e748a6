"""Put one signal, scored on its own, into a scored corpus (by row id).

    .venv/bin/python -m calibration.merge_signal --signal claims \\
        --into .cache-data/corpus/scored.jsonl --source .cache-data/corpus/claims_scored.jsonl \\
        -o .cache-data/corpus/scored_claims.jsonl

For a signal added or changed after the corpus was scored: score the corpus with only that signal on
(a config turning the others off), then merge, instead of rescoring every signal. Every row of
``--into`` must have its row in ``--source``; ``score`` is dropped from the merged rows (it fused the
old set of signals).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


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
    for line in args.into.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if row["id"] not in source:
            print(f"error: row {row['id']!r} has no {args.signal} signal in {args.source}", file=sys.stderr)
            return 2
        row["signals"][args.signal] = source[row["id"]]
        row["score"] = None
        out.append(json.dumps(row, ensure_ascii=False))
    args.output.write_text("\n".join(out) + "\n", encoding="utf-8")
    print(f"wrote {len(out)} rows with {args.signal} from {args.source} to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
