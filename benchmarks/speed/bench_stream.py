"""Streaming batches: peak memory of scoring N tiny samples, for N = 1,000 and 100,000.

    .venv/bin/python -m benchmarks.speed.bench_stream [--sizes 1000,100000] [--repeats 3]
        [--baseline OLD_TREE] [--out out/bench_stream.json]

Each measurement is a fresh process (this file run with ``--child``) that scores N samples generated
on the fly and prints its own peak resident memory (VmHWM) and wall time. The signal is one tiny
in-process local signal (no model, no thread, no LLM), so what is measured is the scoring machinery
and the batch path, not a model. Arms:

- ``stream``: ``async with scorer.stream(generator)`` over the samples, results dropped as they come.
- ``cli``: ``trustscore score IN.jsonl -o OUT.jsonl`` (in the child, through ``trustscore.cli._main``)
  on a JSONL file of the N samples written beforehand.
- ``score_many``: ``score_many(list)``, which returns every result by design: the contrast.

``--tree`` measures another source tree instead of this one; ``--baseline`` names the source tree
of another trustscore (e.g. ``git archive`` of an older commit) whose ``score_many`` and ``cli``
arms are measured too, interleaved with this tree's. The target is a flat peak: the 100,000-sample
peak within 1.2x of the 1,000-sample one.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
ARMS = ("stream", "cli", "score_many")
BASELINE_ARMS = ("score_many", "cli")  # the old tree has no stream


def samples(n: int) -> Iterator[dict[str, Any]]:
    for i in range(n):
        yield {
            "id": f"s{i}",
            "question": f"What is item {i}?",
            "context": [f"Item {i} is a small red box."],
            "response": f"Item {i} is a red box.",
        }


def _peak_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError("no VmHWM in /proc/self/status")


def child(arm: str, n: int, work: Path) -> dict[str, Any]:
    """One measurement, in this (fresh) process."""
    import anyio

    import trustscore.cli._score as cli_score
    from trustscore import Config, Scorer, Signal

    class Tiny:
        name = "tiny"
        version = "tiny@1"

        async def run(self, sample: Any) -> Signal:
            return Signal(name=self.name, value=0.5)

    def build(config: Any = None, *, no_cache: bool = False) -> Scorer:
        return Scorer(Config(), judges=[], local_signals=[Tiny()])

    seen = 0
    started = time.perf_counter()
    if arm == "stream":

        async def go() -> None:
            nonlocal seen
            async with build().stream(samples(n)) as results:
                async for _ in results:
                    seen += 1

        anyio.run(go)
    elif arm == "score_many":
        seen = len(anyio.run(build().score_many, list(samples(n))))
    elif arm == "cli":
        from trustscore.cli import main

        cli_score.build_scorer = build  # the CLI's seam for the scorer it uses
        source, output = work / f"in-{n}.jsonl", work / f"out-{os.getpid()}.jsonl"
        code = main(["score", str(source), "-o", str(output), "--no-progress"])
        with output.open("rb") as f:
            seen = sum(1 for _ in f) if code == 0 else -1
        output.unlink()
    else:
        raise SystemExit(f"unknown arm {arm!r}")
    wall_s = time.perf_counter() - started
    return {"arm": arm, "n": n, "seen": seen, "wall_s": wall_s, "peak_kib": _peak_kib()}


def measure(arm: str, n: int, work: Path, tree: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", arm, str(n), str(work)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False, cwd=work)
    if done.returncode != 0:
        raise RuntimeError(f"{arm} {n} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if result["seen"] != n:
        raise RuntimeError(f"{arm} {n}: {result['seen']} results for {n} samples")
    return result


def _spread(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def run_stream(
    sizes: list[int], repeats: int, arms: list[str], trees: list[tuple[str, Path]]
) -> list[dict[str, Any]]:
    """Every (tree, arm, size), ``repeats`` times interleaved (the box's load drifts): one run each."""
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench_stream-") as tmp:
        work = Path(tmp)
        for n in sizes:
            with (work / f"in-{n}.jsonl").open("w", encoding="utf-8") as f:
                for row in samples(n):
                    f.write(json.dumps(row) + "\n")
        for repeat in range(repeats):
            for n in sizes:
                for label, tree in trees:
                    for arm in arms:
                        if label == "baseline" and arm not in BASELINE_ARMS:
                            continue
                        print(f"  repeat {repeat + 1}: {label} {arm} {n}", file=sys.stderr, flush=True)
                        runs.append({"tree": label, "repeat": repeat, **measure(arm, n, work, tree)})
    return runs


def peak_table(runs: list[dict[str, Any]], sizes: list[int]) -> list[dict[str, Any]]:
    """Per (tree, arm, size): peak MiB, each run's peak over the first size's median peak, us/sample."""
    table = []
    for label in dict.fromkeys(r["tree"] for r in runs):
        for arm in dict.fromkeys(r["arm"] for r in runs if r["tree"] == label):
            mine = [r for r in runs if r["tree"] == label and r["arm"] == arm]
            ref = [r["peak_kib"] for r in mine if r["n"] == sizes[0]]
            for n in sizes:
                peaks = [r["peak_kib"] for r in mine if r["n"] == n]
                walls = [r["wall_s"] for r in mine if r["n"] == n]
                table.append(
                    {
                        "tree": label,
                        "arm": arm,
                        "n": n,
                        "peak_mib": _spread([p / 1024 for p in peaks]),
                        "peak_vs_first_size": _spread([p / statistics.median(ref) for p in peaks]),
                        "us_per_sample": _spread([w / n * 1e6 for w in walls]),
                    }
                )
    return table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,100000", help="numbers of samples (the first is the reference)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--arms", default=",".join(ARMS), help=f"of {', '.join(ARMS)}")
    ap.add_argument("--tree", type=Path, default=REPO, help="the trustscore source tree to measure")
    ap.add_argument("--baseline", type=Path, help="source tree of another trustscore to measure beside")
    ap.add_argument("--out", type=Path, help="write the results as JSON here too")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    main_tree = args.tree.resolve()
    trees = [("this" if main_tree == REPO else main_tree.name, main_tree)]
    trees += [("baseline", args.baseline.resolve())] if args.baseline else []
    runs = run_stream(sizes, args.repeats, args.arms.split(","), trees)
    table = peak_table(runs, sizes)
    for row in table:
        print(
            f"{row['tree']:8} {row['arm']:10} n={row['n']:>7}  peak MiB {_fmt(row['peak_mib'])}  "
            f"x{sizes[0]}: {_fmt(row['peak_vs_first_size'], 2)}  "
            f"us/sample {_fmt(row['us_per_sample'], 0)}"
        )
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"runs": runs, "table": table}, indent=1) + "\n", encoding="utf-8")


def _fmt(spread: dict[str, float], digits: int = 1) -> str:
    return "/".join(f"{spread[k]:.{digits}f}" for k in ("min", "median", "max"))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        print(json.dumps(child(sys.argv[2], int(sys.argv[3]), Path(sys.argv[4]))))
    else:
        main()
