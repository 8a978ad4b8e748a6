"""A fault storm against the five judges: does the Scorer finish the samples it started?

    .venv/bin/python benchmarks/judges/bench_storm.py [--samples 1000] [--backends asyncio trio] [--out FILE]

Every completion request the fake vLLM (trustscore.testing, in a child process so its CPU is not the
client's) receives draws one fault, independently, with these odds: 10% 429 with
Retry-After 1 s, 5% 500, 5% 503, 5% held 5 s (past the endpoint's 1 s timeout), 5% malformed JSON,
5% truncated, 2% dropped connection, 2% empty choices. The endpoint has timeout_s=1 and the default
max_retries (``--max-retries`` changes it);
every sample has a 10 s budget; concurrency is the default (limits.max_concurrent_samples and the
endpoint's initial/max concurrency untouched).

Reported, per event loop:
- complete: samples with ``TrustScore.complete``: no judge cut by the budget, and none missing for a
  reason a rerun may fix (its server still failing with 429/5xx/timeouts after the retries);
- in budget: samples where no judge was cut by the budget (each has a value or a reason);
- retried: retryable faults (429, 500, 503, timeout, dropped connection, and a 200 whose body is not
  JSON or has no choices) that were followed by a
  retry of the same request, out of those that were still allowed one (the last attempt of a call
  gets none). Read from the server's request log: a call's attempts share one request body (the
  samples and the sampled TLM answers are all distinct, so bodies do not collide);
- latency p50 / p99 of one sample's score_sample (TrustScore.seconds) against the budget;
- requests: the client's usage.requests total against the requests the server received.
Targets: complete >= 95%, retried >= 90%, p99 <= budget + 0.5 s.

``--scale`` multiplies every time (Retry-After, delay, timeout, budget) for a quicker storm; the
regular test suite runs a small storm from these pieces on a virtual clock (tests/scoring/test_storm.py).
Only public trustscore API is
used, so the same file measures an older checkout:
``PYTHONPATH=/path/to/old python benchmarks/judges/bench_storm.py`` (run from outside the repo).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import anyio

from trustscore import Config, Sample, Scorer
from trustscore.llm._config import EndpointConfig
from trustscore.testing import FakeRequest, FakeVLLMServer, Fault, judge_policy, tlm_sampled_answers

JUDGES = ("likert", "prometheus", "lynx", "chainpoll", "tlm")
RETRYABLE = (
    "rate_limit", "server_error", "unavailable", "delay", "disconnect", "malformed_json", "empty_choices"
)  # fmt: skip


def storm_faults(scale: float, *, overload: bool = True) -> list[tuple[float, Fault]]:
    """(probability, fault) for one request; the rest (61%) are answered normally. ``overload=False``
    leaves out the 429s and 503s (their requests are answered normally)."""
    overloads = [(0.10, Fault.rate_limit(retry_after=1.0 * scale)), (0.05, Fault.unavailable())]
    return [
        *(overloads if overload else []),
        (0.05, Fault.server_error()),
        (0.05, Fault.delay(5.0 * scale)),
        (0.05, Fault.malformed_json()),
        (0.05, Fault.truncated()),
        (0.02, Fault.disconnect()),
        (0.02, Fault.empty_choices()),
    ]


def add_storm(server: FakeVLLMServer, *, scale: float, seed: int, overload: bool = True) -> None:
    """Schedule the storm: request ``i`` draws u_i (seeded by its index) and gets the fault whose
    slice of [0, 1) holds it. Faults are independent of load, as in the issue's probe."""
    low = 0.0
    for probability, fault in storm_faults(scale, overload=overload):
        server.faults.add(fault, when=_slice(low, low + probability, seed))
        low += probability


def _slice(low: float, high: float, seed: int) -> Callable[[FakeRequest], bool]:
    def hit(request: FakeRequest) -> bool:
        return low <= random.Random(seed * 1_000_003 + request.index).random() < high

    return hit


def storm_policy() -> Any:
    """The default judge answers, with five distinct TLM samples (so agreement bodies are distinct)."""
    answers = [f"Answer {k}: the record names Maria Obi." for k in range(5)]
    return judge_policy({"tlm.answer": tlm_sampled_answers(answers)})


def make_samples(n: int) -> list[Sample]:
    return [
        Sample(
            id=f"s{i}",
            question=f"Who repaired landmark number {i}?",
            context=[f"Landmark number {i} was repaired by Maria Obi in {1800 + i % 200}."],
            response=f"Maria Obi repaired landmark {i}.",
        )
        for i in range(n)
    ]


DEFAULT_RETRIES: int = EndpointConfig.model_fields["max_retries"].default


def storm_config(base_url: str, model: str, *, scale: float, max_retries: int = DEFAULT_RETRIES) -> Config:
    return Config.from_dict(
        {
            "endpoints": {
                "judge": {
                    "base_url": base_url,
                    "model": model,
                    "timeout_s": 1.0 * scale,
                    "max_retries": max_retries,
                }
            },
            "judges": {name: {"endpoint": "judge"} for name in JUDGES},
            "signals": {name: {"enabled": False} for name in ("lexical", "embedding", "claims")},
            "cache": {"mode": "off"},
            "limits": {"score_budget_s": 10.0 * scale},
        }
    )


# -- reading the server's log -------------------------------------------------------------------


def log_entries(server: FakeVLLMServer) -> list[tuple[str, float, str | None]]:
    """(body digest, arrival time, fault kind) per completion request, in arrival order."""
    out = []
    for r in server.engine.completion_requests():
        digest = hashlib.sha256(json.dumps(r.body, sort_keys=True).encode()).hexdigest()
        out.append((digest, r.time, r.fault))
    return out


def retried_share(entries: Sequence[tuple[str, float, str | None]], max_retries: int) -> tuple[int, int]:
    """(retryable faults followed by a retry, retryable faults that were still allowed one)."""
    calls: dict[str, list[tuple[float, str | None]]] = defaultdict(list)
    for digest, when, fault in entries:
        calls[digest].append((when, fault))
    retried = eligible = 0
    for attempts in calls.values():
        attempts.sort()
        for k, (_, fault) in enumerate(attempts):
            if fault in RETRYABLE and k < max_retries:
                eligible += 1
                retried += k + 1 < len(attempts)
    return retried, eligible


# -- one run ----------------------------------------------------------------------------------


@dataclass
class StormResult:
    backend: str
    samples: int
    complete: int
    in_budget: int
    fused: int
    tlm_present: int
    retried: int
    retryable_eligible: int
    p50_s: float
    p99_s: float
    max_s: float
    budget_s: float
    wall_s: float
    usage_requests: int
    server_requests: int

    @property
    def complete_share(self) -> float:
        return self.complete / self.samples

    @property
    def retried_share(self) -> float:
        return self.retried / self.retryable_eligible if self.retryable_eligible else 1.0

    def line(self) -> str:
        return (
            f"{self.backend:7} complete {self.complete_share:6.1%} ({self.complete}/{self.samples})  "
            f"in budget {self.in_budget / self.samples:6.1%}  "
            f"retried {self.retried_share:6.1%} ({self.retried}/{self.retryable_eligible})  "
            f"p50 {self.p50_s:5.2f}s p99 {self.p99_s:5.2f}s max {self.max_s:5.2f}s "
            f"(budget {self.budget_s:g}s)  "
            f"fused {self.fused}  tlm {self.tlm_present}  "
            f"requests usage/server {self.usage_requests}/{self.server_requests}  wall {self.wall_s:.1f}s"
        )


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def score_storm(
    base_url: str, model: str, n: int, scale: float, max_retries: int = DEFAULT_RETRIES
) -> tuple[list[Any], float]:
    config = storm_config(base_url, model, scale=scale, max_retries=max_retries)
    started = time.perf_counter()
    async with Scorer.from_config(config) as scorer:
        results = await scorer.score_many(make_samples(n))
    return results, time.perf_counter() - started


def summarise(
    backend: str,
    results: Sequence[Any],
    wall_s: float,
    entries: Sequence[tuple[str, float, str | None]],
    budget_s: float,
    max_retries: int = DEFAULT_RETRIES,
) -> StormResult:
    retried, eligible = retried_share(entries, max_retries=max_retries)
    seconds = [r.seconds for r in results]
    return StormResult(
        backend=backend,
        samples=len(results),
        complete=sum(r.complete for r in results),
        in_budget=sum(not _cut_by_budget(r) for r in results),
        fused=sum(r.score is not None for r in results),
        tlm_present=sum(r.signals["tlm"].value is not None for r in results),
        retried=retried,
        retryable_eligible=eligible,
        p50_s=_quantile(seconds, 0.5),
        p99_s=_quantile(seconds, 0.99),
        max_s=max(seconds),
        budget_s=budget_s,
        wall_s=wall_s,
        usage_requests=sum(r.usage.requests for r in results),
        server_requests=len(entries),
    )


def _cut_by_budget(result: Any) -> bool:
    """A judge is missing with the Scorer's budget reason ("timed out after Ns budget")."""
    return any(
        (s.error or "").startswith("timed out after") and (s.error or "").endswith("s budget")
        for s in result.signals.values()
    )


# -- the benchmark: the server in a child process -------------------------------------------------


def _serve(conn: Connection, scale: float, seed: int, overload: bool) -> None:
    with FakeVLLMServer(storm_policy()) as server:
        add_storm(server, scale=scale, seed=seed, overload=overload)
        conn.send((server.base_url, server.model))
        while (command := conn.recv()) != "stop":
            if command == "log":
                conn.send(log_entries(server))
            elif command == "reset":
                server.reset()
                add_storm(server, scale=scale, seed=seed, overload=overload)
                conn.send(None)
        conn.send(None)


class ServerProcess(AbstractContextManager["ServerProcess"]):
    def __init__(self, scale: float, seed: int, overload: bool) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_serve, args=(child, scale, seed, overload), daemon=True)
        self._proc.start()
        self.base_url, self.model = self._conn.recv()

    def ask(self, command: str) -> Any:
        self._conn.send(command)
        return self._conn.recv()

    def __exit__(self, *exc: object) -> None:
        self.ask("stop")
        self._proc.join(10)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--backends", nargs="+", default=["asyncio", "trio"], choices=["asyncio", "trio"])
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every time in the storm")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--max-retries",
        type=int,
        default=DEFAULT_RETRIES,
        help="the endpoint's max_retries (default: trustscore's)",
    )
    parser.add_argument(
        "--without-overload",
        action="store_true",
        help="leave out the 429s and 503s (the server faults alone, without overload)",
    )
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON here")
    args = parser.parse_args(argv)

    import trustscore

    mix = "without 429/503" if args.without_overload else "full mix"
    print(
        f"trustscore from {Path(trustscore.__file__).parent}; {args.samples} samples, scale {args.scale:g}, "
        f"seed {args.seed}, max_retries {args.max_retries}, {mix}"
    )
    runs = []
    with ServerProcess(args.scale, args.seed, not args.without_overload) as server:
        for backend in args.backends:
            server.ask("reset")
            results, wall = anyio.run(
                score_storm,
                server.base_url,
                server.model,
                args.samples,
                args.scale,
                args.max_retries,
                backend=backend,
            )
            run = summarise(backend, results, wall, server.ask("log"), 10.0 * args.scale, args.max_retries)
            print(run.line(), flush=True)
            runs.append(run)
    met = all(
        r.complete_share >= 0.95 and r.retried_share >= 0.90 and r.p99_s <= r.budget_s + 0.5 for r in runs
    )
    print(f"targets (complete >= 95%, retried >= 90%, p99 <= budget + 0.5 s): {'met' if met else 'NOT met'}")
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps([asdict(r) for r in runs], indent=2))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
