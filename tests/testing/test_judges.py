"""The ready-made judge scripts answer every judge trustscore ships, through the real LLM client."""

from __future__ import annotations

import pytest

from trustscore.testing import MockRouter, judge_policy, lynx_answer
from trustscore.types import Sample

pytestmark = pytest.mark.anyio


def _sample() -> Sample:
    return Sample(
        question="What is the capital of France?",
        context=["Paris is the capital of France."],
        response="Paris.",
    )


async def test_every_shipped_judge_gets_a_value_from_the_default_scripts() -> None:
    from trustscore.judges import JUDGE_NAMES, build_judge
    from trustscore.llm.client import LLMClient
    from trustscore.llm.config import EndpointConfig

    router = MockRouter()
    llm = LLMClient(EndpointConfig(base_url=router.base_url, model="fake-judge"), transport=router.transport)
    sample = _sample()
    for name in JUDGE_NAMES:
        signal = await build_judge(name, {"endpoint": "fake"}).run(sample, llm)
        assert signal.value is not None, f"{name}: {signal.error}"
    assert router.unmatched == []
    assert {r.body["model"] for r in router.requests} == {"fake-judge"}


async def test_scripted_lynx_verdict_reaches_the_signal() -> None:
    from trustscore.judges import build_judge
    from trustscore.llm.client import LLMClient
    from trustscore.llm.config import EndpointConfig

    router = MockRouter(judge_policy({"lynx": lynx_answer("FAIL", p_pass=0.2)}))
    llm = LLMClient(EndpointConfig(base_url=router.base_url, model="fake-judge"), transport=router.transport)
    signal = await build_judge("lynx", {"endpoint": "fake"}).run(_sample(), llm)
    assert signal.raw == "FAIL"
    assert signal.value == pytest.approx(0.2)
