"""Load on loopback: many concurrent clients against `trustscore api` and a faulty fake vLLM server.

    .venv/bin/python -m benchmarks.service.bench_api_load [--clients 64] [--duration 60] [--max-in-flight 16]
        [--max-queued 32] [--batch-clients 2]

The fake vLLM server (the test kit's, on 127.0.0.1) answers lynx and prometheus with 16 requests in
service at once and 20 ms per request, and injects faults: every 17th request a 500, every 23rd a
429 with Retry-After 0.2 s, every 41st a dropped connection, every 97th a 3 s stall (past the
endpoint's 1 s timeout). `trustscore api` runs in its own process (`python -m trustscore.cli api`), so
its resident memory is read from /proc. Each client posts one sample at a time to /v1/score and, on a
429, waits the Retry-After it is given; the batch clients post 20-row NDJSON batches.

Reported: answers per second, p50 / p99 latency of answered requests, 429s, and what was lost: a
transport error, or an accepted request (not 429) whose answer is neither a result row nor an error
with a reason, or a batch row without its line. The service's RSS is sampled every second: first
quarter vs last quarter of the run. Bounded in time (--duration) and loopback only.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import httpx

from trustscore.testing import FakeVLLMServer, Fault, LatencyModel, judge_policy


def sample(i: int) -> dict[str, Any]:
    return {
        "id": f"s{i}",
        "question": f"What colour is box {i}?",
        "context": [f"Box {i} is red and stands in room {i % 7}."],
        "response": f"Box {i} is {'red' if i % 3 else 'blue'}.",
    }


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def start_service(config: Path, args: argparse.Namespace) -> tuple[subprocess.Popen[str], str]:
    command = [
        sys.executable, "-m", "trustscore.cli", "api", "--config", str(config), "--port", "0",
        "--max-in-flight", str(args.max_in_flight), "--max-queued", str(args.max_queued),
    ]  # fmt: skip
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        if found := re.search(r"running on (http://127\.0\.0\.1:\d+)", line):
            # uvicorn logs every request: keep reading so its pipe never fills
            threading.Thread(target=lambda: [None for _ in proc.stdout or ()], daemon=True).start()
            return proc, found.group(1)
    raise RuntimeError(f"trustscore api did not start (exit {proc.wait()})")


class Tally:
    def __init__(self) -> None:
        self.status: Counter[int] = Counter()
        self.latency: list[float] = []
        self.lost: list[str] = []
        self.batch_rows = 0


async def client(base: str, deadline: float, tally: Tally, seed: int) -> None:
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=base, timeout=120) as c:
        while time.monotonic() < deadline:
            started = time.perf_counter()
            try:
                r = await c.post("/v1/score", json=sample(rng.randrange(10**6)))
            except httpx.HTTPError as e:
                tally.lost.append(f"transport: {type(e).__name__}")
                continue
            tally.status[r.status_code] += 1
            if r.status_code == 429:
                await anyio.sleep(float(r.headers.get("Retry-After", "1")))
                continue
            body = r.json()
            if r.status_code == 200 and "score" in body:
                tally.latency.append(time.perf_counter() - started)
            elif not body.get("error"):
                tally.lost.append(f"{r.status_code} without a reason")


async def batch_client(base: str, deadline: float, tally: Tally, seed: int) -> None:
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=base, timeout=300) as c:
        while time.monotonic() < deadline:
            rows = [sample(rng.randrange(10**6)) for _ in range(20)]
            for i, row in enumerate(rows):
                row["id"] = f"b{seed}-{i}-{rng.random()}"
            try:
                r = await c.post("/v1/score/batch", content="\n".join(json.dumps(x) for x in rows).encode())
            except httpx.HTTPError as e:
                tally.lost.append(f"batch transport: {type(e).__name__}")
                continue
            tally.status[r.status_code] += 1
            if r.status_code == 429:
                await anyio.sleep(float(r.headers.get("Retry-After", "1")))
                continue
            answered = {json.loads(line)["id"] for line in r.text.splitlines()}
            missing = {row["id"] for row in rows} - answered
            tally.batch_rows += len(answered)
            if missing:
                tally.lost.append(f"batch: {len(missing)} rows unanswered")


async def drive(base: str, pid: int, args: argparse.Namespace) -> tuple[Tally, list[int], float]:
    tally = Tally()
    memory: list[int] = []
    started = time.monotonic()
    deadline = started + args.duration

    async def watch_memory() -> None:
        while time.monotonic() < deadline:
            memory.append(rss_kib(pid))
            await anyio.sleep(1)

    async with anyio.create_task_group() as tg:
        tg.start_soon(watch_memory)
        for i in range(args.clients):
            tg.start_soon(client, base, deadline, tally, i)
        for i in range(args.batch_clients):
            tg.start_soon(batch_client, base, deadline, tally, 10_000 + i)
    return tally, memory, time.monotonic() - started


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clients", type=int, default=64)
    p.add_argument("--batch-clients", type=int, default=2)
    p.add_argument("--duration", type=float, default=60.0)
    p.add_argument("--max-in-flight", type=int, default=16)
    p.add_argument("--max-queued", type=int, default=32)
    args = p.parse_args()
    latency = LatencyModel(overhead_s=0.02, capacity=16)
    with FakeVLLMServer(judge_policy(), latency=latency) as server, tempfile.TemporaryDirectory() as tmp:
        server.faults.add(Fault.server_error(), every=17)
        server.faults.add(Fault.rate_limit(retry_after=0.2), every=23)
        server.faults.add(Fault.disconnect(), every=41)
        server.faults.add(Fault.delay(3.0), every=97)
        config = Path(tmp) / "trustscore.toml"
        config.write_text(
            f'[endpoints.judge]\nbase_url = "{server.base_url}"\nmodel = "fake-judge"\n'
            "timeout_s = 1.0\nmax_retries = 2\n"
            '[judges.lynx]\nendpoint = "judge"\n[judges.prometheus]\nendpoint = "judge"\n'
            '[signals.embedding]\nenabled = false\n[cache]\nmode = "off"\n'
        )
        proc, base = start_service(config, args)
        try:
            tally, memory, seconds = anyio.run(drive, base, proc.pid, args)
            metrics = httpx.get(f"{base}/metrics", timeout=30).text
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    answered = len(tally.latency)
    q = statistics.quantiles(tally.latency, n=100) if answered >= 2 else [float("nan")] * 99
    quarter = max(1, len(memory) // 4)
    missing = sum(
        float(m.group(1))
        for m in re.finditer(r"^trustscore_signal_missing_total\{[^}]*\} (\S+)$", metrics, re.M)
    )
    print(f"{args.clients} clients + {args.batch_clients} batch clients, {seconds:.0f} s, "
          f"max_in_flight={args.max_in_flight} max_queued={args.max_queued}, "
          f"load average {os.getloadavg()[0]:.1f}, cpus {os.cpu_count()}")  # fmt: skip
    print(f"answered single requests: {answered} ({answered / seconds:.1f}/s)")
    print(f"batch rows answered: {tally.batch_rows}")
    print(f"latency of answered requests: p50 {1000 * q[49]:.0f} ms, p99 {1000 * q[98]:.0f} ms")
    print(f"status counts: {dict(sorted(tally.status.items()))}")
    print(f"signals missing (faults that outlived the retries): {missing:.0f}")
    print(f"lost: {len(tally.lost)} {Counter(tally.lost).most_common(5) if tally.lost else ''}")
    first, last = memory[:quarter], memory[-quarter:]
    mib = [m / 1024 for m in memory]
    print(f"service RSS MiB: first quarter max {max(first) / 1024:.0f}, last {max(last) / 1024:.0f}")
    print(f"service RSS MiB overall: min {min(mib):.0f}, max {max(mib):.0f}")


if __name__ == "__main__":
    main()
