"""Cost of the claims signal: a cold scoring run with and without it, and per sample.

    .venv/bin/python -m benchmarks.speed.bench_claims --cold-run [--data PATH] [--rows 300] [--repeats 2]
    .venv/bin/python -m benchmarks.speed.bench_claims [--corpus .cache-data/corpus/corpus.jsonl] [--rows 100]

``--cold-run``: the first ``--rows`` / 3 rows of each RAGTruth task of ``--data`` (default
``../shared/data/ragtruth/test.jsonl``; six answers a context) scored by ``trustscore score`` with the
default config, with and without ``[signals.claims]``, and with a claims signal that only parses
(``benchmarks.speed.claims_parse_only``: the floor no change to the checks goes below), each time in a
fresh process with an empty cache directory, the three alternating ``--repeats`` times: wall seconds,
CPU seconds (user and system, ``wait4``: above the wall time, the process kept more than one core busy)
and peak RSS min / median / max, the ratios of the medians to the run without claims, and the AUROC per
task (the score ranking faithful rows above hallucinated ones) of each configuration.

Without ``--cold-run``: loads the signal (the spaCy pipeline) and reports the load time and the
process's resident memory before and after; then scores, one sample at a time in this thread, the
contrast set's 225 rows (short contexts) and ``--rows`` rows of the multi-domain corpus (RAGTruth / news
contexts, 100-900 words), three times each: the first pass parses every context, the later ones find it
in the process's parse cache (a response to a context seen before). Per-sample milliseconds, min /
median / max over samples, per pass.
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
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

from benchmarks.quality.contrast import read_set
from trustscore._types import Sample

REPO = Path(__file__).resolve().parents[2]
DEFAULT_CORPUS = REPO / ".cache-data" / "corpus" / "corpus.jsonl"
DEFAULT_DATA = REPO.parent / "shared" / "data" / "ragtruth" / "test.jsonl"
CLI = "trustscore.cli"
CONFIGS = {
    "with claims": ("", CLI),
    "without claims": ("[signals.claims]\nenabled = false\n", CLI),
    "claims, parse only": ("", "benchmarks.speed.claims_parse_only"),
}
"""Each cold-run configuration: its ``trustscore.toml`` and the module that runs ``trustscore``."""
BASELINE = "without claims"


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


def task_rows(data: Path, rows: int) -> list[str]:
    """The first ``rows`` / 3 lines of each task, in file order (a context's answers stay together)."""
    by_task: dict[str, list[str]] = defaultdict(list)
    for line in data.read_text(encoding="utf-8").splitlines():
        by_task[json.loads(line)["task"]].append(line)
    return [line for lines in by_task.values() for line in lines[: rows // len(by_task)]]


class ColdRun(NamedTuple):
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    aurocs: dict[str, float]


def cold_run(rows_file: Path, config: str, module: str = CLI) -> ColdRun:
    """Wall and CPU seconds, peak RSS (MB) and AUROC per task of one fresh ``trustscore score`` run."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "trustscore.toml").write_text(config)
        env = {**os.environ, "TRUSTSCORE_CACHE_DIR": str(Path(tmp) / "cache")}
        if module != CLI:  # the benchmark's own module: importable from the repository root
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
        command = [sys.executable, "-m", module, "score", str(rows_file), "-o", "out.jsonl"]
        command += ["--config", "trustscore.toml", "--no-progress"]
        began = time.perf_counter()
        child = subprocess.Popen(command, cwd=tmp, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - began
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"trustscore score failed: {child.stderr.read().decode()[-3000:]}")  # type: ignore[union-attr]
        out = [json.loads(line) for line in (Path(tmp) / "out.jsonl").read_text().splitlines()]
    return ColdRun(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, aurocs(out))


def aurocs(rows: list[dict[str, object]]) -> dict[str, float]:
    from trustscore.stats._metrics import auroc

    by_task: dict[str, tuple[list[int], list[float]]] = defaultdict(lambda: ([], []))
    for row in rows:
        if isinstance(row.get("score"), float):
            labels, scores = by_task[str(row["task"])]
            labels.append(int(not row["hallucinated"]))
            scores.append(float(row["score"]))  # type: ignore[arg-type]
    return {task: auroc(labels, scores) for task, (labels, scores) in sorted(by_task.items())}


def spread(values: list[float]) -> str:
    return f"{min(values):.1f} / {statistics.median(values):.1f} / {max(values):.1f}"


def cold_runs(data: Path, rows: int, repeats: int) -> None:
    lines = task_rows(data, rows)
    print(f"{len(lines)} rows of {data}; load before: {os.getloadavg()}")
    results: dict[str, list[ColdRun]] = {name: [] for name in CONFIGS}
    with tempfile.TemporaryDirectory() as tmp:
        rows_file = Path(tmp) / "rows.jsonl"
        rows_file.write_text("\n".join(lines) + "\n")
        for _ in range(repeats):
            for name, (config, module) in CONFIGS.items():
                results[name].append(cold_run(rows_file, config, module))
                print(f"  {name}: {results[name][-1].wall_s:.1f} s", file=sys.stderr)
    print(f"load after: {os.getloadavg()}\n")
    tasks = sorted(results["with claims"][0].aurocs)
    print(
        "| configuration | wall s min / median / max | CPU s min / median / max | peak RSS MB | "
        + " | ".join(f"AUROC {t}" for t in tasks)
        + " |"
    )
    print("|---|---|---|---|" + "---|" * len(tasks))
    for name, runs in results.items():
        cells = [f"{runs[0].aurocs[t]:.3f}" for t in tasks]
        print(
            f"| {name} | {spread([r.wall_s for r in runs])} | {spread([r.cpu_s for r in runs])} | "
            f"{spread([r.peak_rss_mb for r in runs])} | " + " | ".join(cells) + " |"
        )
    print()
    base = results[BASELINE]
    for name, runs in results.items():
        if name != BASELINE:
            ratios = [
                statistics.median(getattr(r, m) for r in runs)
                / statistics.median(getattr(r, m) for r in base)
                for m in ("wall_s", "cpu_s", "peak_rss_mb")
            ]
            print(
                f"{name} / {BASELINE}, medians: wall {ratios[0]:.2f}x, CPU {ratios[1]:.2f}x, "
                f"peak RSS {ratios[2]:.2f}x"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rows", type=int, default=None, help="default: 300 with --cold-run, else 100")
    parser.add_argument("--cold-run", action="store_true", help="cold runs with and without claims")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="RAGTruth JSONL for --cold-run")
    parser.add_argument("--repeats", type=int, default=2, help="cold runs of each configuration")
    args = parser.parse_args(argv)
    if args.cold_run:
        cold_runs(args.data, args.rows or 300, args.repeats)
        return 0
    args.rows = args.rows or 100
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
