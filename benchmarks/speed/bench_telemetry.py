"""What telemetry costs: scoring time with no hooks (the baseline tree), telemetry off, and on.

    .venv/bin/python -m benchmarks.speed.bench_telemetry [--samples 300] [--repeats 5] [--baseline-rev main]

Each measurement is a fresh process (this file run with ``--child``) that scores the same samples with
two judges (lynx, prometheus) on the test kit's in-process fake vLLM (``MockRouter``: no sockets)
plus the lexical signal: the cheapest score that still makes every kind of span (score, judge,
signal, chat), so the relative cost of telemetry is at its largest here. Arms, interleaved:

- ``baseline``: the source tree of ``--baseline-rev`` (``git archive``), which has no hooks;
- ``off``: this tree, opentelemetry installed but no provider set up (the default);
- ``on``: this tree, an SDK tracer provider with a BatchSpanProcessor into an exporter that drops the
  spans, and an SDK meter provider with an in-memory reader.

Prints ms per sample for each arm and the ratios off/baseline and on/baseline, min / median / max.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
ARMS = ("baseline", "off", "on")


def child(arm: str, samples: int) -> dict[str, Any]:
    import anyio

    from trustscore import Config, Scorer
    from trustscore.testing import MockRouter, judge_policy

    if arm == "on":
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

        from trustscore import telemetry

        class Drop(SpanExporter):
            def export(self, spans: Any) -> SpanExportResult:
                return SpanExportResult.SUCCESS

        provider = TracerProvider()
        provider.add_span_processor(BatchSpanProcessor(Drop()))
        telemetry.configure(provider, MeterProvider(metric_readers=[InMemoryMetricReader()]))

    # The cheapest score with every kind of span: no embedding model, and no spaCy parse where the
    # tree has the claims signal (a tree from before it knows no such section).
    signals: dict[str, Any] = {"embedding": {"enabled": False}}
    if importlib.util.find_spec("trustscore.grounding.claims") is not None:
        signals["claims"] = {"enabled": False}
    config = Config.from_dict(
        {
            "endpoints": {"judge": {"base_url": "http://fake-vllm.test/v1", "model": "fake-judge"}},
            "judges": {"lynx": {"endpoint": "judge"}, "prometheus": {"endpoint": "judge"}},
            "signals": signals,
            "cache": {"mode": "off"},
        }
    )
    rows = [
        {
            "id": f"s{i}",
            "question": f"What colour is box {i}?",
            "context": [f"Box {i} is red and stands in room {i % 7}."],
            "response": f"Box {i} is red.",
        }
        for i in range(samples)
    ]

    async def run() -> float:
        router = MockRouter(judge_policy())
        async with Scorer(config, transport=router.transport) as scorer:
            await scorer.score_many(rows[:20], concurrency=8)  # warm up
            started = time.perf_counter()
            await scorer.score_many(rows, concurrency=8)
            return time.perf_counter() - started

    seconds = anyio.run(run)
    return {"arm": arm, "ms_per_sample": 1000 * seconds / samples}


def baseline_tree(rev: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "archive", rev, "trustscore", "prompts"], cwd=REPO, capture_output=True, check=True
    )
    path = into / "tree.tar"
    path.write_bytes(archive.stdout)
    with tarfile.open(path) as tar:
        tar.extractall(into, filter="data")
    # The wheel puts prompts/ inside the package; a source tree reads them from the top-level folder.
    return into


def measure(arm: str, tree: Path, samples: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", arm, "--samples", str(samples)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=tree,
    )
    return float(json.loads(done.stdout.strip().splitlines()[-1])["ms_per_sample"])


def spread(values: list[float]) -> str:
    return f"{min(values):.3f} / {statistics.median(values):.3f} / {max(values):.3f}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--samples", type=int, default=300)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--baseline-rev", default="main")
    p.add_argument("--child", choices=ARMS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.samples)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"baseline": baseline_tree(args.baseline_rev, Path(tmp)), "off": REPO, "on": REPO}
        ms: dict[str, list[float]] = {arm: [] for arm in ARMS}
        for _ in range(args.repeats):
            for arm in ARMS:
                ms[arm].append(measure(arm, trees[arm], args.samples))
    load = os.getloadavg()[0]
    print(f"{args.samples} samples x {args.repeats} repeats, load average {load:.1f}, cpus {os.cpu_count()}")
    print("arm        ms/sample (min / median / max)")
    for arm in ARMS:
        print(f"{arm:<10} {spread(ms[arm])}")
    for arm in ("off", "on"):
        ratios = [a / b for a, b in zip(ms[arm], ms["baseline"], strict=True)]
        print(f"{arm}/baseline ratio: {spread(ratios)}")


if __name__ == "__main__":
    main()
