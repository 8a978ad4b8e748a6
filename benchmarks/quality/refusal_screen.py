"""How much of real data the refusal screen reads as declining: the responses it would leave unchecked.

    .venv/bin/python -m benchmarks.quality.refusal_screen [--data ../shared/data] [FILE.jsonl ...]

Reads RAGTruth's test and extra training rows (``ragtruth/test.jsonl``, ``ragtruth/train_extra.jsonl``
under ``--data``) and any other JSONL files of rows with a ``response``, and prints per file how many
responses there are, how many are short enough to be screened at all (``MAX_WORDS``), how many the
screen reads as refusals, and those responses with their label where the row has one. A response the
screen takes is never checked word by word, so every one it takes should decline and nothing else.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from trustscore.grounding._abstention import MAX_WORDS, abstention

REPO = Path(__file__).resolve().parents[2]


def screened(path: Path) -> tuple[int, int, list[tuple[str, object]]]:
    """(responses, short enough to screen, [(response, hallucinated label or None) read as refusals])."""
    total = short = 0
    taken: list[tuple[str, object]] = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            response = str(row.get("response", ""))
            total += 1
            short += len(response.split()) <= MAX_WORDS
            if abstention(response) is not None:
                taken.append((response, row.get("hallucinated")))
    return total, short, taken


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("files", type=Path, nargs="*", help="more JSONL files of rows with a response")
    args = parser.parse_args(argv)
    files = [args.data / "ragtruth" / name for name in ("test.jsonl", "train_extra.jsonl")] + args.files
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        print(f"error: not found: {', '.join(missing)} (pass --data DIR holding ragtruth/)", file=sys.stderr)
        return 2
    print(f"| file | responses | {MAX_WORDS} words or fewer | read as refusals |\n|---|---|---|---|")
    found: list[tuple[str, str, object]] = []
    for path in files:
        total, short, taken = screened(path)
        print(f"| {path.name} | {total} | {short} | {len(taken)} |")
        found.extend((path.name, response, label) for response, label in taken)
    for name, response, label in found:
        print(f"- {name} (hallucinated: {label}): {' '.join(response.split())[:200]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
