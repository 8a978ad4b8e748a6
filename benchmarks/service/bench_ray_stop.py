"""What a stopped ``trustscore score --ray`` driver leaves running, and what it still spends.

    python -m benchmarks.service.bench_ray_stop [--repeats 3] [--rows 200]

Each repeat starts a ``score --ray`` driver twice (its own local Ray, one actor, batches of 2, the five
built-in judges on one fake judge server answering each request after 50 ms, local signals off), and
once the judge has answered a request:

* **SIGKILL**: kills the driver; counts the judge requests that arrive after the kill (at any time,
  and later than 1 s after it), the seconds until the run's actors have exited, and the run's
  processes (its id in their environment) still alive 5 s and 60 s after the kill;
* **SIGTERM**: signals the driver; the seconds until it exited, and its exit status.

Prints each figure's min / median / max over the repeats.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from trustscore.ray._leftovers import RUN_ENV
from trustscore.testing import FakeVLLMServer, LatencyModel, judge_policy

JUDGES = ("likert", "prometheus", "lynx", "chainpoll", "tlm")
ROW = {
    "question": "Who wrote the novel Dune?",
    "context": ["Dune is a 1965 science fiction novel by Frank Herbert."],
    "response": "Frank Herbert wrote Dune.",
}


def config_toml(base_url: str) -> str:
    lines = ["[endpoints.judge]", f'base_url = "{base_url}"', 'model = "fake-judge"', "max_retries = 1"]
    for judge in JUDGES:
        lines += [f"[judges.{judge}]", 'endpoint = "judge"']
    for name in ("lexical", "embedding", "claims"):
        lines += [f"[signals.{name}]", "enabled = false"]
    lines += ["[cache]", 'mode = "off"']
    return "\n".join(lines) + "\n"


def run_processes(run: str, actors_only: bool = False) -> list[int]:
    marker = f"{RUN_ENV}={run}".encode()
    out = []
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit() or marker not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            if not actors_only or b"ScoreBatches" in (entry / "cmdline").read_bytes():
                out.append(int(entry.name))
        except OSError:
            continue
    return out


def start(tmp: Path, server: FakeVLLMServer, rows: int) -> tuple[subprocess.Popen[bytes], str]:
    (tmp / "trustscore.toml").write_text(config_toml(server.base_url))
    lines = [json.dumps({"id": f"r{i}", **ROW, "question": f"{ROW['question']} ({i})"}) for i in range(rows)]
    (tmp / "in.jsonl").write_text("\n".join(lines) + "\n")
    command = [sys.executable, "-m", "trustscore.cli", "score", "in.jsonl", "-o", "out.jsonl"]
    command += ["--config", "trustscore.toml", "--ray", "--actors", "1", "--batch-size", "2", "--no-progress"]
    driver = subprocess.Popen(command, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not server.engine.completion_requests():
        if driver.poll() is not None:
            raise SystemExit("the driver ended before reaching the judge")
        time.sleep(0.2)
    return driver, json.loads((tmp / "out.jsonl" / ".trustscore.lock").read_text())["run"]


def killed(rows: int) -> dict[str, float]:
    server = FakeVLLMServer(judge_policy(), latency=LatencyModel(overhead_s=0.05)).start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            driver, run = start(Path(tmp), server, rows)
            driver.send_signal(signal.SIGKILL)
            driver.wait()
            at = time.time()
            while run_processes(run, actors_only=True) and time.time() - at < 60:
                time.sleep(0.05)
            actors_gone = time.time() - at
            time.sleep(max(0.0, at + 5 - time.time()))
            left_5 = len(run_processes(run))
            time.sleep(max(0.0, at + 60 - time.time()))
            left_60 = len(run_processes(run))
            for pid in run_processes(run):  # what the next run into the directory would stop
                os.kill(pid, signal.SIGKILL)
            times = [r.time - at for r in server.engine.completion_requests()]
    finally:
        server.stop()
    return {
        "requests after the kill": sum(t > 0 for t in times),
        "requests later than 1 s after the kill": sum(t > 1 for t in times),
        "seconds until the actors exited": actors_gone,
        "run processes alive 5 s after": left_5,
        "run processes alive 60 s after": left_60,
    }


def terminated(rows: int) -> dict[str, float]:
    server = FakeVLLMServer(judge_policy(), latency=LatencyModel(overhead_s=0.05)).start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            driver, run = start(Path(tmp), server, rows)
            driver.send_signal(signal.SIGTERM)
            at = time.time()
            status = driver.wait()
            ended = time.time() - at
            for pid in run_processes(run):
                os.kill(pid, signal.SIGKILL)
    finally:
        server.stop()
    return {"SIGTERM: seconds until the driver exited": ended, "SIGTERM: exit status": status}


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.service.bench_ray_stop")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=int, default=200)
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()}")
    runs: list[dict[str, float]] = []
    for _ in range(args.repeats):
        runs.append({**killed(args.rows), **terminated(args.rows)})
    print(f"load after: {os.getloadavg()}\n\n| figure | min / median / max |\n|---|---|")
    for key in runs[0]:
        values = [r[key] for r in runs]
        print(f"| {key} | {min(values):.3g} / {statistics.median(values):.3g} / {max(values):.3g} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
