"""The judge ensemble against the fake vLLM server on loopback: client overhead, throughput, request cost.

    .venv/bin/python -m benchmarks.judges.bench_judges [--samples 1000] [--out out/bench_judges.json]

The server (trustscore.testing.FakeVLLMServer, scripted with judge_policy()) runs in a child
process, so the CPU this process spends is the client's alone.

(a) Client overhead: CPU seconds per judge request, as a ratio to bare httpx posting the very same
    JSON bodies (recorded by the server) at the same concurrency. Four arms, interleaved over
    several rounds (min/median/max reported): bare httpx; LLMClient.generate replaying the same
    ChatRequests; the whole Scorer (prompt building, parsing, fan-out, fusion) with the five-judge
    ensemble; the Scorer with the lone Likert judge. Targets: LLMClient <= 1.2x bare httpx; the
    ensemble's CPU per request <= 1.2x the lone judge's.
(b) Throughput: score_many over --samples samples against a server with a latency model and a
    fixed number of service slots; utilisation = busy slot-seconds / (wall x slots). Target >= 90%.
(c) Requests, prompt tokens and prefilled tokens (what the GPU computes after the prefix cache)
    per sample for the full ensemble, counted by the server: with n-sampling (n choices in one
    request) and without it (every choice its own request).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Literal

import anyio
import httpx

from benchmarks._results import ChildProcess, report_and_save
from trustscore import Config, Sample, Scorer, Usage
from trustscore.llm._client import LLMClient
from trustscore.llm._protocol import LLM, ChatRequest, ChatResult
from trustscore.testing import FakeVLLMServer, LatencyModel, judge_policy

REPO = Path(__file__).resolve().parents[2]
JUDGES = ("likert", "prometheus", "lynx", "chainpoll", "tlm")


# -- the server, in a child process -------------------------------------------------------------


def _serve(conn: Connection, latency_json: str | None) -> None:
    latency = LatencyModel.model_validate_json(latency_json) if latency_json else None
    with FakeVLLMServer(policy=judge_policy(), latency=latency) as server:
        conn.send((server.base_url, server.model))
        while True:
            command = conn.recv()
            if command == "stats":
                conn.send(server.stats.model_dump())
            elif command == "reset":
                server.reset()
                conn.send(None)
            elif command == "bodies":
                conn.send([(r.path, r.body) for r in server.engine.completion_requests()])
            elif command == "cpu":
                conn.send(time.process_time())
            elif command == "problems":
                conn.send((len(server.unmatched), [repr(e) for e in server.policy_errors]))
            else:
                conn.send(None)
                return


class ServerProcess(ChildProcess):
    def __init__(self, latency: LatencyModel | None = None) -> None:
        super().__init__(_serve, latency.model_dump_json() if latency else None)
        self.base_url, self.model = self.hello


# -- samples and scorers ----------------------------------------------------------------------

_TOPICS = [
    "river",
    "bridge",
    "library",
    "comet",
    "orchard",
    "harbour",
    "glacier",
    "market",
    "violin",
    "lighthouse",
]


def make_samples(n: int) -> list[Sample]:
    """Distinct RAG samples of realistic size (two passages, ~120 words; a 1-3 sentence answer)."""
    out = []
    for i in range(n):
        topic = _TOPICS[i % len(_TOPICS)]
        year = 1800 + (i * 7) % 200
        p1 = (
            f"The {topic} of Exampleton (record {i}) was first documented in {year}. Local archives describe "
            f"how the town council funded its upkeep through a levy on trade, and how travellers from the "
            f"coast came to see it each summer. In {year + 12} a storm damaged part of it, and repairs took "
            f"three years under the engineer Maria Obi."
        )
        p2 = (
            f"Record {i} also notes that the {topic} appears in a painting held by the regional museum, "
            f"dated {year + 40}, and that a festival in its honour is held every May."
        )
        if i % 3 == 0:
            answer = f"The {topic} was first documented in {year}, and it was repaired by Maria Obi."
        else:
            answer = f"The {topic} was built in {year - 50} by the king, who also founded the museum."
        out.append(
            Sample(
                id=f"b{i}",
                question=f"What is known about the {topic} of Exampleton?",
                context=[p1, p2],
                response=answer,
            )
        )
    return out


def ensemble_config(server: ServerProcess, judges: Sequence[str] = JUDGES, *, slots: int = 64) -> Config:
    return Config.from_dict(
        {
            "endpoints": {
                "judge": {
                    "base_url": server.base_url,
                    "model": server.model,
                    "initial_concurrency": min(slots, 256),
                    "max_concurrency": 256,
                }
            },
            "judges": {name: {"endpoint": "judge"} for name in judges},
            "signals": {"lexical": {"enabled": False}, "embedding": {"enabled": False}},
            "cache": {"mode": "off"},
        }
    )


class Recording:
    """An LLM wrapper that keeps every ChatRequest it forwards."""

    def __init__(self, inner: LLM) -> None:
        self.inner = inner
        self.requests: list[ChatRequest] = []

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def flavour(self) -> Literal["vllm", "openai"]:
        return self.inner.flavour

    @property
    def context_window(self) -> int:
        return self.inner.context_window

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    async def generate(self, request: ChatRequest, *, cache: bool | None = None) -> ChatResult:
        self.requests.append(request)
        return await self.inner.generate(request, cache=cache)


class OneChoicePerRequest(Recording):
    """Asks for n choices as n requests of one choice each: the cost of not using n-sampling."""

    async def generate(self, request: ChatRequest, *, cache: bool | None = None) -> ChatResult:
        if request.n == 1:
            return await self.inner.generate(request, cache=cache)
        parts: list[ChatResult | None] = [None] * request.n

        async def one(i: int) -> None:
            single = request.model_copy(update={"n": 1, "seed": (request.seed or 0) + i})
            parts[i] = await self.inner.generate(single, cache=cache)

        async with anyio.create_task_group() as tg:
            for i in range(request.n):
                tg.start_soon(one, i)
        done = [p for p in parts if p is not None]
        return ChatResult(
            choices=[c for p in done for c in p.choices],
            model=done[0].model,
            prompt_tokens=sum(p.prompt_tokens for p in done),
            completion_tokens=sum(p.completion_tokens for p in done),
            usage=Usage.total([p.usage for p in done]),
        )


# -- (a) client overhead ----------------------------------------------------------------------


async def _bounded(jobs: Sequence[Callable[[], Any]], width: int) -> None:
    limiter = anyio.CapacityLimiter(width)

    async def run(job: Callable[[], Any]) -> None:
        async with limiter:
            await job()

    async with anyio.create_task_group() as tg:
        for job in jobs:
            tg.start_soon(run, job)


async def _arm_httpx(server: ServerProcess, bodies: list[tuple[str, Any]], width: int) -> None:
    limits = httpx.Limits(max_connections=256, max_keepalive_connections=256)
    async with httpx.AsyncClient(
        base_url=server.base_url.removesuffix("/v1"), limits=limits, timeout=60.0
    ) as client:

        async def post(path: str, body: Any) -> None:
            response = await client.post(path, json=body)
            response.raise_for_status()
            response.json()

        await _bounded([partial(post, p, b) for p, b in bodies], width)


async def _arm_client(config: Config, requests: list[ChatRequest], width: int) -> None:
    async with LLMClient(config.endpoints["judge"]) as llm:
        await _bounded([partial(llm.generate, r) for r in requests], width)


async def _arm_scorer(config: Config, samples: list[Sample], width: int) -> None:
    async with Scorer(config) as scorer:
        results = await scorer.score_many(samples, concurrency=width)
    missing = sum(len(r.missing) for r in results)
    if missing:
        raise RuntimeError(f"{missing} signals missing in the scorer arm: {results[0].missing}")


def _cpu(fn: Callable[[], Any]) -> tuple[float, float]:
    cpu0, wall0 = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - cpu0, time.perf_counter() - wall0


def bench_overhead(n_samples: int, rounds: int) -> dict[str, Any]:
    server = ServerProcess()
    try:
        config = ensemble_config(server)
        samples = make_samples(n_samples)

        async def capture() -> list[ChatRequest]:
            recorder = Recording(LLMClient(config.endpoints["judge"]))
            scorer = Scorer(config, judges=None, llms={"judge": recorder})
            await scorer.score_many(samples, concurrency=8)
            return recorder.requests

        chat_requests = anyio.run(capture)
        server.ask("reset")
        anyio.run(_arm_scorer, config, samples, 8)
        bodies = server.ask("bodies")
        n_requests = len(bodies)
        if n_requests != len(chat_requests):
            raise RuntimeError(f"scorer sent {n_requests} requests, recorder saw {len(chat_requests)}")
        lone_config = ensemble_config(server, ("likert",))
        lone_samples = make_samples(n_requests)  # one request each: as many requests as the ensemble
        server.ask("reset")
        anyio.run(_arm_scorer, lone_config, lone_samples, 8)
        n_lone = server.ask("stats")["requests"]
        width = 32
        arms: dict[str, Callable[[], Any]] = {
            "httpx": lambda: anyio.run(_arm_httpx, server, bodies, width),
            "llm_client": lambda: anyio.run(_arm_client, config, chat_requests, width),
            "scorer": lambda: anyio.run(_arm_scorer, config, samples, 8),
            "scorer_lone_likert": lambda: anyio.run(_arm_scorer, lone_config, lone_samples, 8),
        }
        cpu: dict[str, list[float]] = {k: [] for k in arms}
        wall: dict[str, list[float]] = {k: [] for k in arms}
        for _ in range(rounds):
            for name, arm in arms.items():
                c, w = _cpu(arm)
                cpu[name].append(c / (n_lone if name == "scorer_lone_likert" else n_requests))
                wall[name].append(w)
        problems = server.ask("problems")
    finally:
        server.stop()
    med = {k: statistics.median(v) for k, v in cpu.items()}
    ensemble_to_lone = [e / lone for e, lone in zip(cpu["scorer"], cpu["scorer_lone_likert"], strict=True)]
    return {
        "cpu_ms_per_request_min_median_max": {
            k: [round(f(v) * 1e3, 4) for f in (min, statistics.median, max)] for k, v in cpu.items()
        },
        "ratio_ensemble_to_lone_min_median_max": [
            round(f(ensemble_to_lone), 3) for f in (min, statistics.median, max)
        ],
        "lone_requests_per_round": n_lone,
        "requests_per_round": n_requests,
        "samples": n_samples,
        "rounds": rounds,
        "cpu_ms_per_request": {k: round(v * 1e3, 4) for k, v in med.items()},
        "wall_s_median": {k: round(statistics.median(v), 3) for k, v in wall.items()},
        "ratio_llm_client_to_httpx": round(med["llm_client"] / med["httpx"], 3),
        "ratio_scorer_to_httpx": round(med["scorer"] / med["httpx"], 3),
        "per_round_ratio_llm_client": [
            round(c / h, 3) for c, h in zip(cpu["llm_client"], cpu["httpx"], strict=True)
        ],
        "server_problems": problems,
    }


# -- (b) throughput ---------------------------------------------------------------------------


def bench_throughput(
    n_samples: int, judges: Sequence[str], slots: int, overhead_s: float, decode_s: float, repeats: int = 1
) -> dict[str, Any]:
    """score_many against a capacity-bound server, then bare httpx replaying the same bodies (baseline)."""
    latency = LatencyModel(capacity=slots, overhead_s=overhead_s, decode_s_per_token=decode_s)
    server = ServerProcess(latency)
    out: dict[str, Any] = {
        "samples": n_samples,
        "judges": list(judges),
        "slots": slots,
        "latency_model": latency.model_dump(),
        "load_average_before": os.getloadavg(),
    }
    try:
        config = ensemble_config(server, judges, slots=slots)
        samples = make_samples(n_samples)

        async def run_scorer() -> int:
            async with Scorer(config) as scorer:
                results = await scorer.score_many(samples)
            return sum(len(r.missing) for r in results)

        def measure(arm: Callable[[], Any]) -> dict[str, Any]:
            server.ask("reset")
            cpu0, server_cpu0, t0 = time.process_time(), server.ask("cpu"), time.perf_counter()
            arm()
            wall = time.perf_counter() - t0
            stats = server.ask("stats")
            return {
                "wall_s": round(wall, 2),
                "client_cpu_s": round(time.process_time() - cpu0, 2),
                "server_cpu_s": round(server.ask("cpu") - server_cpu0, 2),
                "server_requests": stats["requests"],
                "requests_per_s": round(stats["requests"] / wall, 1),
                "ideal_wall_s": round(stats["busy_s"] / slots, 2),
                "utilisation": round(stats["busy_s"] / (wall * slots), 4),
                "max_in_service": stats["max_concurrency"],
            }

        missing: list[int] = []
        runs = [measure(lambda: missing.append(anyio.run(run_scorer))) for _ in range(repeats)]
        out["scorer"] = sorted(runs, key=lambda r: r["utilisation"])[len(runs) // 2]  # the median run
        out["scorer"]["missing_signals"] = max(missing)
        out["scorer_utilisation_min_median_max"] = [
            f([r["utilisation"] for r in runs]) for f in (min, statistics.median, max)
        ]
        bodies = server.ask("bodies")
        width = len(judges) * Config().limits.max_concurrent_samples
        out["httpx_replay"] = measure(lambda: anyio.run(_arm_httpx, server, bodies, width))
        out["httpx_replay"]["in_flight"] = width
    finally:
        server.stop()
    out["utilisation_ratio_scorer_to_httpx"] = round(
        out["scorer"]["utilisation"] / out["httpx_replay"]["utilisation"], 3
    )
    return out


# -- (c) cost per sample ----------------------------------------------------------------------


def bench_cost(n_samples: int) -> dict[str, Any]:
    server = ServerProcess()
    out: dict[str, Any] = {}
    try:
        config = ensemble_config(server)
        samples = make_samples(n_samples)
        for mode, wrapper in (("n_sampling", Recording), ("one_choice_per_request", OneChoicePerRequest)):
            server.ask("reset")

            async def run(wrap: type[Recording] = wrapper) -> None:
                llm = wrap(LLMClient(config.endpoints["judge"]))
                async with Scorer(config, llms={"judge": llm}) as scorer:
                    await scorer.score_many(samples, concurrency=8)

            anyio.run(run)
            s = server.ask("stats")
            out[mode] = {
                "requests_per_sample": round(s["requests"] / n_samples, 2),
                "prompt_tokens_per_sample": round(s["prompt_tokens"] / n_samples, 1),
                "prefilled_tokens_per_sample": round(s["prefilled_tokens"] / n_samples, 1),
                "prefix_cache_saving": round(1 - s["prefilled_tokens"] / s["prompt_tokens"], 3),
                "completion_tokens_per_sample": round(s["completion_tokens"] / n_samples, 1),
            }
    finally:
        server.stop()
    return out


# -- report -----------------------------------------------------------------------------------


def print_report(result: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=120)
    a = result["overhead"]
    t = Table(
        title=f"(a) client CPU per judge request ({a['requests_per_round']} requests/round, "
        f"median of {a['rounds']} rounds)"
    )
    for col in ("arm", "CPU ms / request (min/median/max)", "x bare httpx", "wall s"):
        t.add_column(col, justify="right" if col != "arm" else "left")
    base = a["cpu_ms_per_request"]["httpx"]
    for arm, ms in a["cpu_ms_per_request"].items():
        spread = "/".join(f"{x:.2f}" for x in a["cpu_ms_per_request_min_median_max"][arm])
        t.add_row(arm, spread, f"{ms / base:.2f}", f"{a['wall_s_median'][arm]:.2f}")
    console.print(t)
    lo, mid, hi = a["ratio_ensemble_to_lone_min_median_max"]
    console.print(
        f"five-judge ensemble vs lone Likert, CPU per request, per round: {lo:.2f}/{mid:.2f}/{hi:.2f}x "
        f"(min/median/max; target <= 1.2x); lone arm: {a['lone_requests_per_round']} requests/round"
    )
    b = result["throughput"]
    t = Table(
        title=f"(b) throughput: {b['samples']} samples x {','.join(b['judges'])} on {b['slots']} slots "
        f"(target: utilisation >= 90%)"
    )
    for col in (
        "arm",
        "requests",
        "wall s",
        "ideal s",
        "req/s",
        "utilisation",
        "client CPU s",
        "server CPU s",
    ):
        t.add_column(col, justify="right" if col != "arm" else "left")
    for arm in ("scorer", "httpx_replay"):
        r = b[arm]
        t.add_row(
            arm,
            str(r["server_requests"]),
            f"{r['wall_s']:.1f}",
            f"{r['ideal_wall_s']:.1f}",
            f"{r['requests_per_s']:.1f}",
            f"{r['utilisation']:.1%}",
            f"{r['client_cpu_s']:.2f}",
            f"{r['server_cpu_s']:.2f}",
        )
    console.print(t)
    lo, mid, hi = b["scorer_utilisation_min_median_max"]
    console.print(f"scorer utilisation over repeats (min/median/max): {lo:.1%}/{mid:.1%}/{hi:.1%}")
    console.print(
        f"missing signals in the scorer run: {b['scorer']['missing_signals']}; "
        f"load average before: {', '.join(f'{x:.1f}' for x in b['load_average_before'])}"
    )
    c = Table(title="(c) full ensemble cost per sample (counted by the server)")
    for col in (
        "mode",
        "requests",
        "prompt tokens",
        "prefilled tokens",
        "prefix-cache saving",
        "completion tokens",
    ):
        c.add_column(col, justify="right" if col != "mode" else "left")
    for mode, row in result["cost"].items():
        c.add_row(
            mode,
            str(row["requests_per_sample"]),
            str(row["prompt_tokens_per_sample"]),
            str(row["prefilled_tokens_per_sample"]),
            f"{row['prefix_cache_saving']:.1%}",
            str(row["completion_tokens_per_sample"]),
        )
    console.print(c)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=1000, help="samples for the throughput run (b)")
    ap.add_argument("--overhead-samples", type=int, default=100, help="samples per round of (a)")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds of (a)")
    ap.add_argument("--cost-samples", type=int, default=50, help="samples for (c)")
    ap.add_argument("--throughput-judges", default=",".join(JUDGES), help="judges in (b), comma-separated")
    ap.add_argument("--slots", type=int, default=16, help="server service slots in (b)")
    ap.add_argument("--throughput-repeats", type=int, default=1, help="scorer runs in (b)")
    ap.add_argument("--overhead-s", type=float, default=0.6, help="server seconds per request in (b)")
    ap.add_argument(
        "--decode-s", type=float, default=0.002, help="server seconds per completion token in (b)"
    )
    ap.add_argument("--out", type=Path, default=REPO / "out" / "bench_judges.json")
    args = ap.parse_args(argv)
    result: dict[str, Any] = {"judges": list(JUDGES), "python": sys.version.split()[0]}
    print("(a) client overhead ...", file=sys.stderr)
    result["overhead"] = bench_overhead(args.overhead_samples, args.rounds)
    print("(c) cost per sample ...", file=sys.stderr)
    result["cost"] = bench_cost(args.cost_samples)
    print("(b) throughput ...", file=sys.stderr)
    judges = [j.strip() for j in args.throughput_judges.split(",") if j.strip()]
    result["throughput"] = bench_throughput(
        args.samples, judges, args.slots, args.overhead_s, args.decode_s, args.throughput_repeats
    )
    return report_and_save(result, args.out, print_report)


if __name__ == "__main__":
    sys.exit(main())
