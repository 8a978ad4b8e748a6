"""End to end, happy paths: a Scorer built from a real Config scores through the real HTTP client
against the test kit's fake vLLM (loopback server and in-process router), on asyncio and trio."""

from __future__ import annotations

import json
import math

import pytest
from e2e_helpers import (
    CONTEXT,
    JUDGES,
    QUESTION,
    REQUESTS_PER_SAMPLE,
    RESPONSE,
    TLM_REQUESTS,
    Kit,
    by_kind,
    make_kit,
)

from trustscore import Sample, TrustScore
from trustscore.judges._evidence import evidence_prefix
from trustscore.judges._templates import load_template
from trustscore.testing import (
    RulePolicy,
    chainpoll_answers,
    judge_policy,
    likert_answer,
    lynx_answer,
    prometheus_answer,
    tlm_agreement_answer,
    tlm_reflection_answer,
    tlm_sampled_answers,
)

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["server", "router"])
def kit(request: pytest.FixtureRequest) -> Kit:
    return make_kit(request)


def graded_policy() -> RulePolicy:
    """Every judge answers with a distribution whose expectation differs from its written verdict,
    so a value read from the text instead of the logprobs shows."""
    return judge_policy(
        {
            # written 2; E = .2*1 + .5*2 + .2*3 + .05*4 + .05*5 = 2.25 -> (2.25 - 1) / 4 = 0.3125
            "likert": likert_answer(2, probs={"1": 0.2, "2": 0.5, "3": 0.2, "4": 0.05, "5": 0.05}),
            # written 5; E = .05*1 + .05*2 + .1*3 + .2*4 + .6*5 = 4.25 -> 0.8125
            "prometheus": prometheus_answer(5, probs={"1": 0.05, "2": 0.05, "3": 0.1, "4": 0.2, "5": 0.6}),
            # written FAIL; P(PASS) = 0.25
            "lynx": lynx_answer("FAIL", p_pass=0.25),
            # 3 of 5 votes supported -> 0.6
            "chainpoll": chainpoll_answers([True, False, True, False, True]),
            # reflection A .6 / B .2 / C .2 -> .6 + .5*.2 = 0.7 for both questions
            "tlm.reflection": tlm_reflection_answer("A", probs={"A": 0.6, "B": 0.2, "C": 0.2}),
            # s = 1 - P(contradict) = 0.9; the sampled answer equals the response -> r = 1
            "tlm.agreement": tlm_agreement_answer(
                "agree", probs={"agree": 0.8, "neutral": 0.1, "contradict": 0.1}
            ),
            "tlm.answer": tlm_sampled_answers([RESPONSE]),
        }
    )


# o_i = alpha * s + (1 - alpha) * r = 0.8 * 0.9 + 0.2 * 1 = 0.92; trust = 0.7 * 0.92 + 0.3 * 0.7
EXPECTED = {
    "likert": 0.3125,
    "prometheus": 0.8125,
    "lynx": 0.25,
    "chainpoll": 0.6,
    "tlm": 0.7 * 0.92 + 0.3 * 0.7,
}


async def test_all_five_judges_score_from_logprobs_and_count_usage(kit: Kit) -> None:
    kit.engine.policy = graded_policy()
    async with kit.scorer(kit.config()) as scorer:
        assert scorer.signal_names == list(JUDGES)
        result = await scorer.score(question=QUESTION, context=CONTEXT, response=RESPONSE, id="s1")

    assert result.missing == {}, result.missing
    assert result.complete and result.sample_id == "s1"
    assert result.used_signals == list(JUDGES)
    values = {name: s.value for name, s in result.signals.items()}
    assert values == {name: pytest.approx(v) for name, v in EXPECTED.items()}
    assert result.signals["lynx"].raw == "FAIL"
    assert result.signals["chainpoll"].raw == {
        "votes": ["supported", "unsupported", "supported", "unsupported", "supported"],
        "abstained": 0,
        "verdict_paths": {"free": 5, "words": 0, "constrained": 0},
    }
    assert result.fusion == "default:logodds" and not result.calibrated
    mean_log_odds = sum(math.log(v / (1 - v)) for v in EXPECTED.values()) / len(EXPECTED)
    assert result.score == pytest.approx(1 / (1 + math.exp(-mean_log_odds)))  # judges weigh the same
    assert not any(s.warnings for s in result.signals.values()), "every value came from logprobs"

    # Usage: every HTTP request the server saw is counted once, and attributed to its judge.
    assert result.usage.requests == len(kit.bodies()) == REQUESTS_PER_SAMPLE
    per_judge = {name: s.usage.requests for name, s in result.signals.items()}
    assert per_judge == {"likert": 1, "prometheus": 1, "lynx": 1, "chainpoll": 1, "tlm": TLM_REQUESTS}
    for name, signal in result.signals.items():
        assert signal.usage.prompt_tokens > 0 and signal.usage.completion_tokens > 0, name
        assert signal.version, name
    assert result.usage.prompt_tokens == sum(s.usage.prompt_tokens for s in result.signals.values())
    assert result.usage.cache_hits == 0

    # The result survives a JSON round trip unchanged.
    assert TrustScore.model_validate_json(result.model_dump_json()) == result
    assert TrustScore.model_validate(json.loads(json.dumps(result.model_dump(mode="json")))) == result


async def test_evidence_judges_share_their_prefix_byte_for_byte(kit: Kit) -> None:
    async with kit.scorer(kit.config()) as scorer:
        result = await scorer.score(question=QUESTION, context=CONTEXT, response=RESPONSE)
    assert result.missing == {}

    kinds = by_kind(kit.requests())
    assert set(kinds) == {
        "likert",
        "prometheus",
        "lynx",
        "chainpoll",
        "tlm.reflection",
        "tlm.answer",
        "tlm.agreement",
    }
    evidence = [*kinds["likert"], *kinds["chainpoll"], *kinds["tlm.reflection"], *kinds["tlm.agreement"]]
    assert len(evidence) == 1 + 1 + 2 + 5
    system = json.dumps(evidence[0]["messages"][0], sort_keys=True)
    assert evidence[0]["messages"][0] == {"role": "system", "content": load_template("evidence_system.txt")}
    prefix = evidence_prefix(
        question=QUESTION,
        context=Sample(question=QUESTION, context=CONTEXT, response=RESPONSE).context_text,
        answer=RESPONSE,
    )
    for body in evidence:
        assert json.dumps(body["messages"][0], sort_keys=True) == system
        user = body["messages"][1]
        assert user["role"] == "user" and user["content"].startswith(prefix)
        assert len(user["content"]) > len(prefix), "the judge's own instruction follows the shared block"

    # ChainPoll's k polls are ONE request with n=k; TLM draws its k answers the same way.
    [chainpoll] = kinds["chainpoll"]
    assert chainpoll["n"] == 5 and chainpoll["temperature"] > 0
    [answers] = kinds["tlm.answer"]
    assert answers["n"] == 5
    # Everything else asks for one completion, and every request names the served model.
    assert all(
        b["n"] == 1 for kind, bs in kinds.items() if kind not in ("chainpoll", "tlm.answer") for b in bs
    )
    assert {b["model"] for b in kit.bodies()} == {"fake-judge"}


async def test_chainpoll_polls_follow_the_config(kit: Kit) -> None:
    config = kit.config(judges={"chainpoll": {"polls": 3}})
    kit.engine.policy = judge_policy({"chainpoll": chainpoll_answers([True, False, False])})
    async with kit.scorer(config) as scorer:
        result = await scorer.score(question=QUESTION, context=CONTEXT, response=RESPONSE)
    [chainpoll] = by_kind(kit.requests())["chainpoll"]
    assert chainpoll["n"] == 3
    assert result.signals["chainpoll"].value == pytest.approx(1 / 3)
    assert result.signals["chainpoll"].usage.requests == 1


async def test_score_many_keeps_order_and_counts_every_request(kit: Kit) -> None:
    samples = [
        {"id": f"q{i}", "question": f"{QUESTION} ({i})", "context": CONTEXT, "response": RESPONSE}
        for i in range(3)
    ]
    async with kit.scorer(kit.config()) as scorer:
        results = await scorer.score_many(samples, concurrency=3)
    assert [r.sample_id for r in results] == ["q0", "q1", "q2"]
    assert all(r.complete and r.missing == {} for r in results)
    assert sum(r.usage.requests for r in results) == len(kit.bodies()) == 3 * REQUESTS_PER_SAMPLE


async def test_api_key_from_the_environment_is_sent(kit: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRUSTSCORE_E2E_KEY", "sk-e2e-secret")
    config = kit.config(endpoint={"api_key_env": "TRUSTSCORE_E2E_KEY"})
    async with kit.scorer(config) as scorer:
        result = await scorer.score(question=QUESTION, context=CONTEXT, response=RESPONSE)
    assert result.missing == {}
    auth = {r.headers.get("authorization") for r in kit.engine.completion_requests()}
    assert auth == {"Bearer sk-e2e-secret"}
    assert "sk-e2e-secret" not in result.model_dump_json()
