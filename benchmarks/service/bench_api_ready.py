"""Time to ready of `trustscore api`, and what its first caller pays: fresh processes, one command.

    .venv/bin/python -m benchmarks.service.bench_api_ready [--repeats 3] [--config F]

Each repeat starts `python -m trustscore.cli api` (the offline default config unless ``--config``;
an empty cache folder of its own) and measures, from the launch: when it listens (uvicorn's "running
on" line), and when /readyz first answers 200 (polled every 50 ms); then the seconds of the first
/v1/score and the median of the next five (each a different answer, so no cache hit). Reported as
min / median / max over the repeats, with the first request as a ratio to the later ones (1.0: the
first caller pays nothing extra). Loopback only.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROW = {
    "question": "How tall is the tower?",
    "context": ["The tower, finished in 1889, is 330 metres tall and stands in Paris."],
    "response": "The tower is 410 metres tall.",
}


def one_run(config: Path | None, cache: Path) -> dict[str, float]:
    command = [sys.executable, "-m", "trustscore.cli", "api", "--port", "0"]
    if config is not None:
        command += ["--config", str(config)]
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    launched = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    try:
        base = ""
        for line in proc.stdout:
            if found := re.search(r"running on (http://127\.0\.0\.1:\d+)", line):
                base = found.group(1)
                break
        if not base:
            raise SystemExit("the service did not start")
        listening = time.perf_counter() - launched
        with httpx.Client(base_url=base, timeout=120) as c:
            while c.get("/readyz").status_code != 200:
                time.sleep(0.05)
            ready = time.perf_counter() - launched
            seconds = []
            for i in range(6):  # a different answer each time: no cache hit
                began = time.perf_counter()
                row = {**ROW, "response": f"The tower is {410 + i} metres tall."}
                assert c.post("/v1/score", json=row).status_code == 200
                seconds.append(time.perf_counter() - began)
        return {
            "listening": listening,
            "ready": ready,
            "first": seconds[0],
            "later": statistics.median(seconds[1:]),
        }
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--config", type=Path, default=None, help="service config (default: the offline default)")
    args = p.parse_args()
    runs = []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as cache:
            runs.append(one_run(args.config, Path(cache)))
    print("| figure (seconds) | min | median | max |")
    print("|---|---|---|---|")
    for key, label in (
        ("listening", "launch to listening"),
        ("ready", "launch to /readyz 200"),
        ("first", "first /v1/score after ready"),
        ("later", "later /v1/score (median of 5)"),
    ):
        values = sorted(run[key] for run in runs)
        print(f"| {label} | {values[0]:.2f} | {statistics.median(values):.2f} | {values[-1]:.2f} |")
    ratios = sorted(run["first"] / run["later"] for run in runs)
    print(f"| first / later (ratio) | {ratios[0]:.2f} | {statistics.median(ratios):.2f} | {ratios[-1]:.2f} |")


if __name__ == "__main__":
    main()
