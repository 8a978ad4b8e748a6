"""How many samples a busy box cuts at a short budget: the budget should measure each sample's own work.

    .venv/bin/python -m benchmarks.speed.bench_budget_cuts [--rows 100] [--budget 20] [--busy 2]

Runs ``trustscore score`` (offline default: lexical + embedding grounding) once in a fresh process with
an empty cache directory on the first ``--rows`` RAGTruth rows, with ``--busy`` busy-looping processes
beside it (a shared box), and prints how many rows had a signal cut by the budget ("timed out after
... budget"), with the run's wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.speed.bench_offline import BUSY, DATA


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--budget", type=float, default=20.0)
    parser.add_argument("--busy", type=int, default=2, help="busy-looping processes beside the run")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    hogs = [subprocess.Popen([sys.executable, "-c", BUSY, str(os.getpid())]) for _ in range(args.busy)]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            rows_file, out = work / "rows.jsonl", work / "out.jsonl"
            rows_file.write_text("\n".join(args.data.read_text().splitlines()[: args.rows]) + "\n")
            env = {**os.environ, "TRUSTSCORE_CACHE_DIR": str(work / "cache")}
            cmd = [sys.executable, "-m", "trustscore.cli", "score", str(rows_file), "-o", str(out)]
            began = time.perf_counter()
            subprocess.run([*cmd, "--budget", f"{args.budget:g}", "--no-progress"], env=env, check=False)
            wall = time.perf_counter() - began
            rows = [json.loads(line) for line in out.read_text().splitlines()]
    finally:
        for hog in hogs:
            hog.kill()
    cut = sum(any("budget" in (s.get("error") or "") for s in row["signals"].values()) for row in rows)
    print(
        f"{len(rows)} rows, budget {args.budget:g} s, {args.busy} busy processes: "
        f"{cut} cut by the budget, wall {wall:.0f} s"
    )


if __name__ == "__main__":
    main()
