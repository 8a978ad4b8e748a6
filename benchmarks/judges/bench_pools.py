"""Replica pools: throughput against 1, 2 and 4 fake vLLM replicas of fixed capacity, in one run.

    python -m benchmarks.judges.bench_pools [--requests 1200] [--repeats 3] [--out out/bench_pools.json]

Every replica is a FakeVLLMServer with the same latency model (``--slots`` service slots, ``--service-s``
seconds per request), all in one child process, so this process's CPU is the client's alone. The client
is one LLMClient on an endpoint listing the replicas (``base_urls``), its limiter sized to a replica's
slots; callers are samples of ``--calls`` requests sharing an evidence prefix (one sample ticket each),
started as ``score_many`` starts them (when a replica has room).

Reported per pool size, min/median/max over ``--repeats`` (interleaved rounds):
- throughput (requests/s) and its fraction of the pooled capacity (replicas x slots / service_s);
- scaling efficiency: throughput(N) / (N x throughput(1));
- prefix-cache saving on the servers (affinity keeps a sample's calls on one replica);
- CPU milliseconds per request of the client (this process) and of the fake servers (the child),
  and the load average (1 min) at the end of each round: client and servers share the box's cores
  with each other and with whatever else runs, so a figure short of capacity can be read as the
  client's doing or as CPU the servers (or other jobs) took.
Then the client's own ceiling: requests/s and CPU per request against one replica that answers at
once with unlimited slots (the box's two cores run client and server: this is where the client
saturates, and why the latency model above is kept well below it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import anyio

from benchmarks._results import ChildProcess, report_and_save
from trustscore.llm._client import LLMClient
from trustscore.llm._config import EndpointConfig
from trustscore.llm._protocol import ChatRequest, Message
from trustscore.llm._scheduling import SampleAdmission, Ticket
from trustscore.testing import FakeAnswer, FakeRequest, FakeVLLMServer, LatencyModel

REPO = Path(__file__).resolve().parents[2]


def _answer(request: FakeRequest) -> FakeAnswer:
    return FakeAnswer(text="Score: 4")


def _serve(conn: Connection, replicas: int, latency_json: str) -> None:
    latency = LatencyModel.model_validate_json(latency_json)
    servers = [FakeVLLMServer(_answer, latency=latency).start() for _ in range(replicas)]
    cpu0 = time.process_time()
    try:
        conn.send([s.base_url for s in servers])
        while True:
            command = conn.recv()
            if command == "stats":
                conn.send(
                    {"servers": [s.stats.model_dump() for s in servers], "cpu_s": time.process_time() - cpu0}
                )
            elif command == "reset":
                for s in servers:
                    s.reset()
                cpu0 = time.process_time()
                conn.send(None)
            else:
                conn.send(None)
                return
    finally:
        for s in servers:
            s.stop()


class Replicas(ChildProcess):
    """N fake replicas in a child process."""

    def __init__(self, n: int, latency: LatencyModel) -> None:
        super().__init__(_serve, n, latency.model_dump_json())
        self.urls: list[str] = self.hello


def _sample_requests(i: int, calls: int) -> list[ChatRequest]:
    evidence = " ".join(f"Record {i} fact {k}: the archive lists item {i * 31 + k}." for k in range(40))
    return [
        ChatRequest(
            messages=[
                Message(role="user", content=f"Evidence:\n{evidence}\n\nJudge {j}: is the answer supported?")
            ],
            max_tokens=8,
        )
        for j in range(calls)
    ]


async def _drive(llm: LLMClient, n_samples: int, calls: int, max_active: int) -> None:
    """Start samples as ``score_many`` does: when the pool has room (SampleAdmission), each sample's
    calls at once under its own ticket."""
    admission = SampleAdmission([llm.capacity], max_active)

    async def sample(i: int, ticket: Ticket) -> None:
        with ticket:
            async with anyio.create_task_group() as tg:
                for request in _sample_requests(i, calls):
                    tg.start_soon(llm.generate, request)

    with admission.watching():
        async with anyio.create_task_group() as tg:
            for i in range(n_samples):
                tg.start_soon(sample, i, await admission.next())


def _run_once(
    replicas: Replicas, slots: int, n_samples: int, calls: int, service_s: float
) -> dict[str, float]:
    endpoint = EndpointConfig(
        base_urls=tuple(replicas.urls),
        model="fake-judge",
        initial_concurrency=slots,
        max_concurrency=slots,
    )
    llm = LLMClient(endpoint)
    width = 2 * slots * len(replicas.urls)  # at most this many samples at once (admission decides)
    replicas.ask("reset")
    cpu0, t0 = time.process_time(), time.perf_counter()
    anyio.run(_drive, llm, n_samples, calls, width)
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    anyio.run(llm.aclose)
    answer = replicas.ask("stats")
    stats = answer["servers"]
    requests = sum(s["requests"] for s in stats)
    if requests != n_samples * calls:
        raise RuntimeError(f"{requests} requests served, {n_samples * calls} sent")
    prompt = sum(s["prompt_tokens"] for s in stats)
    cached = sum(s["cached_tokens"] for s in stats)
    capacity = len(replicas.urls) * slots / service_s
    return {
        "wall_s": wall,
        "requests_per_s": requests / wall,
        "of_pooled_capacity": requests / wall / capacity,
        "prefix_cache_saving": cached / prompt if prompt else 0.0,
        "client_cpu_ms_per_request": cpu / requests * 1e3,
        "servers_cpu_ms_per_request": answer["cpu_s"] / requests * 1e3,
        "cores_busy_client": cpu / wall,
        "cores_busy_servers": answer["cpu_s"] / wall,
        "load_average_1min_after": os.getloadavg()[0],
        "busiest_over_idlest_replica": max(s["requests"] for s in stats)
        / max(1, min(s["requests"] for s in stats)),
    }


def _client_ceiling(n_samples: int, calls: int, rounds: int) -> list[dict[str, float]]:
    replicas = Replicas(1, LatencyModel())
    try:
        return [_run_once(replicas, 64, n_samples, calls, service_s=1.0) for _ in range(rounds)]
    finally:
        replicas.stop()


def _spread(values: Sequence[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def run(args: argparse.Namespace) -> dict[str, Any]:
    latency = LatencyModel(capacity=args.slots, overhead_s=args.service_s)
    sizes = [int(x) for x in args.replicas.split(",")]
    pools = {n: Replicas(n, latency) for n in sizes}
    rounds: dict[int, list[dict[str, float]]] = {n: [] for n in sizes}
    try:
        for _ in range(args.repeats):
            for n in sizes:
                n_samples = max(1, args.requests * n // sizes[-1] // args.calls)
                rounds[n].append(_run_once(pools[n], args.slots, n_samples, args.calls, args.service_s))
    finally:
        for p in pools.values():
            p.stop()
    out: dict[str, Any] = {
        "latency_model": latency.model_dump(),
        "calls_per_sample": args.calls,
        "repeats": args.repeats,
        "load_average_before": os.getloadavg(),
        "pools": {},
    }
    base = [r["requests_per_s"] for r in rounds[sizes[0]]]
    for n in sizes:
        rs = rounds[n]
        efficiency = [
            r["requests_per_s"] / (n / sizes[0] * b) for r, b in zip(rs, base, strict=True)
        ]  # same round's 1-replica figure: side by side
        out["pools"][str(n)] = {
            "capacity_requests_per_s": n * args.slots / args.service_s,
            **{key: _spread([r[key] for r in rs]) for key in rs[0]},
            "scaling_efficiency": _spread(efficiency),
            "rounds": rs,
        }
    ceiling = _client_ceiling(max(1, args.requests // args.calls), args.calls, args.repeats)
    keys = ("requests_per_s", "client_cpu_ms_per_request", "servers_cpu_ms_per_request")
    out["client_ceiling"] = {key: _spread([r[key] for r in ceiling]) for key in keys}
    return out


def print_report(result: dict[str, Any]) -> None:
    def f(s: dict[str, float], fmt: str) -> str:
        return "/".join(format(s[k], fmt) for k in ("min", "median", "max"))

    lm = result["latency_model"]
    print(
        f"replicas of {lm['capacity']} slots x {lm['overhead_s']} s/request; "
        f"{result['calls_per_sample']} calls per sample; min/median/max of {result['repeats']} rounds"
    )
    header = (
        "replicas",
        "capacity r/s",
        "req/s",
        "of capacity",
        "scaling eff.",
        "prefix saved",
        "client ms/req",
        "servers ms/req",
        "load 1 min",
    )
    print("  ".join(f"{h:>14}" for h in header))
    for n, row in result["pools"].items():
        cells = (
            n,
            f"{row['capacity_requests_per_s']:.0f}",
            f(row["requests_per_s"], ".0f"),
            f(row["of_pooled_capacity"], ".2f"),
            f(row["scaling_efficiency"], ".2f"),
            f(row["prefix_cache_saving"], ".2f"),
            f(row["client_cpu_ms_per_request"], ".2f"),
            f(row["servers_cpu_ms_per_request"], ".2f"),
            f(row["load_average_1min_after"], ".1f"),
        )
        print("  ".join(f"{c:>14}" for c in cells))
    for n, row in result["pools"].items():
        per_round = ", ".join(
            f"{r['of_pooled_capacity']:.2f} at load {r['load_average_1min_after']:.1f}" for r in row["rounds"]
        )
        print(f"{n} replica(s), each round: {per_round}")
    c = result["client_ceiling"]
    print(
        f"client ceiling (one instant replica, 64 slots): {f(c['requests_per_s'], '.0f')} req/s, "
        f"client {f(c['client_cpu_ms_per_request'], '.2f')} / servers "
        f"{f(c['servers_cpu_ms_per_request'], '.2f')} CPU ms/request; load before: "
        f"{', '.join(f'{x:.1f}' for x in result['load_average_before'])}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--replicas", default="1,2,4", help="pool sizes, comma-separated, smallest first")
    ap.add_argument("--requests", type=int, default=800, help="requests per round for the largest pool")
    ap.add_argument("--calls", type=int, default=5, help="requests per sample (judges sharing a prefix)")
    ap.add_argument("--slots", type=int, default=4, help="service slots of each replica")
    ap.add_argument("--service-s", type=float, default=0.2, help="seconds per request in service")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", type=Path, default=REPO / "out" / "bench_pools.json")
    args = ap.parse_args(argv)
    result = run(args)
    return report_and_save(result, args.out, print_report)


if __name__ == "__main__":
    sys.exit(main())
