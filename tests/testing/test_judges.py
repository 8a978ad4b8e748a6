"""The ready-made judge scripts answer every registered judge by the tag its requests carry, through the
real LLM client."""

from __future__ import annotations

import pytest

from trustscore import Sample, Signal
from trustscore.signals import ExampleAnswer, JudgeConfig, register_judge, registered_signals
from trustscore.testing import MockRouter, default_judge_answers, judge_of, judge_policy, lynx_answer

pytestmark = pytest.mark.anyio


def _sample() -> Sample:
    return Sample(
        question="What is the capital of France?",
        context=["Paris is the capital of France."],
        response="Paris.",
    )


async def test_every_shipped_judge_gets_a_value_from_the_default_scripts() -> None:
    from trustscore.judges import build_judge
    from trustscore.llm import EndpointConfig, LLMClient

    router = MockRouter()
    llm = LLMClient(EndpointConfig(base_url=router.base_url, model="fake-judge"), transport=router.transport)
    sample = _sample()
    for name in registered_signals("judge"):
        signal = await build_judge(name, {"endpoint": "fake"}).run(sample, llm)
        assert signal.value is not None, f"{name}: {signal.error}"
    assert router.unmatched == []
    assert {r.body["model"] for r in router.requests} == {"fake-judge"}
    kinds = {judge_of(r.headers.get("x-trustscore-tag")) for r in router.requests}
    assert kinds == set(default_judge_answers())
    assert {kind.partition(".")[0] for kind in kinds} == set(registered_signals("judge"))


async def test_a_new_judge_is_answered_by_its_registered_example_not_its_wording(
    signal_registry: None,
) -> None:
    from trustscore.judges._base import JudgeLLM
    from trustscore.llm import ChatRequest, EndpointConfig, LLMClient, Message

    @register_judge("echo_yes", config=JudgeConfig, example_answers={"echo_yes": ExampleAnswer("yes")})
    class EchoYes:
        name, version = "echo_yes", "1"

        def __init__(self, config: JudgeConfig) -> None:
            self.config = config

        async def run(self, sample: Sample, llm: object) -> Signal:
            judge_llm = JudgeLLM(llm, self.name)  # type: ignore[arg-type]
            result = await judge_llm.generate(
                ChatRequest(messages=[Message(role="user", content="Rate it.")], tag="echo_yes@1")
            )
            return Signal(name=self.name, value=1.0 if result.text == "yes" else 0.0, version=self.version)

    router = MockRouter()
    llm = LLMClient(EndpointConfig(base_url=router.base_url, model="fake-judge"), transport=router.transport)
    signal = await EchoYes(JudgeConfig(endpoint="fake")).run(_sample(), llm)
    assert signal.value == 1.0 and router.unmatched == []
    assert registered_signals()["echo_yes"].weight == 1.0  # a judge's weight without naming one


async def test_scripted_lynx_verdict_reaches_the_signal() -> None:
    from trustscore.judges import build_judge
    from trustscore.llm import EndpointConfig, LLMClient

    router = MockRouter(judge_policy({"lynx": lynx_answer("FAIL", p_pass=0.2)}))
    llm = LLMClient(EndpointConfig(base_url=router.base_url, model="fake-judge"), transport=router.transport)
    signal = await build_judge("lynx", {"endpoint": "fake"}).run(_sample(), llm)
    assert signal.raw == "FAIL"
    assert signal.value == pytest.approx(0.2)
