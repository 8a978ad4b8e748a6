"""A judge whose parallel calls fail reports the failures themselves, never the task group."""

from __future__ import annotations

import pytest
from judges_fakes import FakeLLM

from trustscore import Scorer
from trustscore._errors import RateLimited
from trustscore.judges import TLMConfig, TLMJudge

pytestmark = pytest.mark.anyio


async def test_parallel_tlm_failures_give_a_readable_reason() -> None:
    llm = FakeLLM(lambda _request: RuntimeError("connection pool is closed"))
    scorer = Scorer(judges=[TLMJudge(TLMConfig(endpoint="e"))], llms={"e": llm}, local_signals=[])
    result = await scorer.score(question="Who wrote Dune?", context=["Frank Herbert."], response="Herbert.")

    error = result.signals["tlm"].error or ""
    assert "TaskGroup" not in error and "ExceptionGroup" not in error
    # trio cancels the sibling calls once one fails, asyncio may let all three fail: 1 to 3 leaves
    assert error.endswith("RuntimeError: connection pool is closed"), error


async def test_distinct_parallel_failures_are_each_named_with_their_usage() -> None:
    from scorer_fakes import FakeJudge

    from trustscore import Usage

    group = ExceptionGroup(
        "unhandled errors in a TaskGroup",
        [RateLimited("429 after 3 retries", usage=Usage(requests=4)), KeyError("votes")],
    )
    scorer = Scorer(
        judges=[FakeJudge("fanout", error=group)], llms={"e": FakeLLM(lambda r: KeyError())}, local_signals=[]
    )
    result = await scorer.score(question="q", context=["c"], response="r")
    signal = result.signals["fanout"]
    assert signal.error == "2 parallel calls failed: 429 after 3 retries; KeyError: 'votes'"
    assert signal.usage.requests == 4
