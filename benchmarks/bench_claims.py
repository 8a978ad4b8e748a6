"""Cost of the claims signal per sample: time and memory.

    .venv/bin/python -m benchmarks.bench_claims [--corpus .cache-data/corpus/corpus.jsonl] [--rows 100]

Loads the signal (the spaCy pipeline) and reports the load time and the process's resident memory
before and after; then scores, one sample at a time in this thread, the contrast set's 225 rows (short
contexts) and ``--rows`` rows of the multi-domain corpus (RAGTruth / news contexts, 100-900 words),
three times each: the first pass parses every context, the later ones find it in the signal's context
cache (a response to a context seen before). Per-sample milliseconds, min / median / max over samples,
per pass.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from benchmarks.contrast import read_set
from trustscore._types import Sample

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO / ".cache-data" / "corpus" / "corpus.jsonl"


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def passes(check: object, samples: list[Sample], repeats: int = 3) -> list[list[float]]:
    out = []
    for _ in range(repeats):
        times = []
        for s in samples:
            began = time.perf_counter()
            check.score(s)  # type: ignore[attr-defined]
            times.append((time.perf_counter() - began) * 1000)
        out.append(times)
    return out


def line(name: str, runs: list[list[float]]) -> str:
    cells = [f"{min(r):.1f} / {statistics.median(r):.1f} / {max(r):.1f}" for r in runs]
    return f"| {name} | {len(runs[0])} | " + " | ".join(cells) + " |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rows", type=int, default=100)
    args = parser.parse_args(argv)
    from trustscore.grounding.claims._signal import ClaimsCheck

    before = rss_mib()
    began = time.perf_counter()
    check = ClaimsCheck()
    load_s = time.perf_counter() - began
    check.score(Sample(question="q", context=["It opened in 2011."], response="It opened in 2011."))
    after = rss_mib()
    print(
        f"load {load_s:.1f} s; resident memory {before:.0f} MiB before, {after:.0f} MiB after "
        f"(+{after - before:.0f})"
    )
    contrast = [
        Sample(question=r["question"], context=r["context"], response=r["response"]) for r in read_set()
    ]
    rows = []
    if args.corpus.exists():
        lines = args.corpus.read_text(encoding="utf-8").splitlines()[: args.rows]
        for raw in lines:
            r = json.loads(raw)
            rows.append(
                Sample(question=r.get("question") or "", context=r["context"], response=r["response"])
            )
    print(
        "\n| samples | n | pass 1 (contexts parsed) ms min / median / max | pass 2 | pass 3 |"
        "\n|---|---|---|---|---|"
    )
    print(line("contrast set", passes(check, contrast)))
    if rows:
        print(line(f"corpus, first {len(rows)} rows", passes(check, rows)))
    print(f"\nresident memory after: {rss_mib():.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
