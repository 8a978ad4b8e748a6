"""usage.requests counts every request sent: those of calls cut off by the budget (the endpoint
hangs) and of signals that count their own usage (Self-Familiarity) included."""

from __future__ import annotations

from typing import Any

import pytest

from trustscore import Config, Sample, Scorer, Usage
from trustscore.testing import FakeAnswer, FakeRequest, Fault, MockRouter, judge_policy

pytestmark = pytest.mark.anyio

QUESTION = "Who founded the Zorblax company?"
CONTEXT = ["Zorblax was founded by Ada Brook in 1999."]
RESPONSE = "Ada Brook founded Zorblax."


OFFLINE_OFF = {"lexical": {"enabled": False}, "embedding": {"enabled": False}}


def config(router: MockRouter, **extra: Any) -> Config:
    return Config.from_dict(
        {
            "endpoints": {"judge": {"base_url": router.base_url, "model": "fake-judge", "max_retries": 0}},
            "signals": OFFLINE_OFF,
            "cache": {"mode": "off"},
            **extra,
        }
    )


def familiarity_policy(request: FakeRequest) -> FakeAnswer:
    if '"concepts"' in request.text:
        return FakeAnswer(text='{"concepts": ["Zorblax"]}')
    return FakeAnswer(text="Zorblax is a company that makes widgets.")


async def test_requests_cut_off_by_the_budget_are_counted() -> None:
    router = MockRouter(judge_policy())
    router.engine.faults.add(Fault.delay(5.0))  # the endpoint hangs
    judges = {name: {"endpoint": "judge"} for name in ("lynx", "likert", "tlm")}
    async with Scorer(config(router, judges=judges), transport=router.transport) as scorer:
        result = await scorer.score(question=QUESTION, context=CONTEXT, response=RESPONSE, budget_s=0.5)

    assert not result.complete
    sent = len(router.engine.completion_requests())
    assert sent == 1 + 1 + 3, "lynx, likert, and TLM's two reflections and one sampling call"
    assert result.usage.requests == sent
    assert result.signals["tlm"].usage.requests == 3
    assert result.signals["lynx"].usage.requests == 1


async def test_familiaritys_requests_are_counted_when_the_budget_cuts_it() -> None:
    router = MockRouter(familiarity_policy)
    router.engine.faults.add(Fault.delay(5.0), when=lambda r: '"concepts"' not in r.text)
    cfg = config(router, signals={**OFFLINE_OFF, "familiarity": {}})
    async with Scorer(cfg, transport=router.transport) as scorer:
        result = await scorer.score(question=QUESTION, context=CONTEXT, response=RESPONSE, budget_s=0.5)

    signal = result.signals["familiarity"]
    assert signal.error and "budget" in signal.error
    sent = len(router.engine.completion_requests())
    assert sent >= 2, "concept extraction, then the explanation that hangs"
    assert signal.usage.requests == sent


async def test_familiaritys_requests_are_counted_when_a_later_call_fails() -> None:
    router = MockRouter(familiarity_policy)
    router.engine.faults.add(Fault.server_error(), when=lambda r: r.prompt_logprobs is not None)
    cfg = config(router, signals={**OFFLINE_OFF, "familiarity": {}})
    async with Scorer(cfg, transport=router.transport) as scorer:
        signal = await scorer.familiarity(QUESTION)

    assert signal.value is None and "HTTP 500" in (signal.error or "")
    sent = len(router.engine.completion_requests())
    assert sent >= 3, "concepts, explanation, then the failing teacher-forced call"
    assert signal.usage.requests == sent


async def test_a_judges_calls_through_an_llm_that_counts_nothing_live_are_counted_once() -> None:
    from trustscore.judges import LynxConfig, LynxJudge
    from trustscore.testing import FakeLLM

    llm = FakeLLM()  # hands back each call's usage, reports nothing to a meter as it goes
    judge = LynxJudge(LynxConfig(endpoint="e"))
    alone = await judge.run(Sample(question=QUESTION, context=CONTEXT, response=RESPONSE), llm)
    assert alone.value is not None and alone.usage == Usage(), "a judge adds up nothing itself"
    before = len(llm.requests)
    scorer = Scorer(Config(), judges=[judge], local_signals=[], llms={"e": llm})
    result = await scorer.score(question=QUESTION, context=CONTEXT, response=RESPONSE)
    asked = len(llm.requests) - before
    assert asked >= 1 and result.signals["lynx"].usage.requests == asked
    assert result.usage.requests == asked
