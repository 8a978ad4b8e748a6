"""trustscore.testing.FakeLLM: the LLM protocol in memory, answering judges from their registered
example answers by request tag, or with exact results."""

from __future__ import annotations

import pytest

from trustscore import LLM, JudgeConfig, Sample, Signal, register_judge, registered_signals
from trustscore.judges import build_judge
from trustscore.llm import ChatRequest, ChatResult, Choice, Message
from trustscore.signals import ExampleAnswer
from trustscore.testing import FakeLLM, judge_policy, lynx_answer

pytestmark = pytest.mark.anyio

SAMPLE = Sample(question="What is the capital of France?", context=["Paris is the capital of France."],
                response="Paris.")


def test_it_implements_the_llm_protocol() -> None:
    assert isinstance(FakeLLM(), LLM)


async def test_every_registered_judge_gets_a_value_from_its_example_answers() -> None:
    llm = FakeLLM()
    for name in registered_signals("judge"):
        signal = await build_judge(name, {"endpoint": "fake"}).run(SAMPLE, llm)
        assert signal.value is not None, f"{name}: {signal.error}"
    assert llm.unmatched == [] and {r.tag.partition("@")[0].partition(".")[0] for r in llm.requests} == set(
        registered_signals("judge")
    )


async def test_a_script_changes_one_judge_and_the_logprobs_follow_it() -> None:
    llm = FakeLLM(answers=judge_policy({"lynx": lynx_answer("FAIL", p_pass=0.2)}))
    signal = await build_judge("lynx", {"endpoint": "fake"}).run(SAMPLE, llm)
    assert signal.raw == "FAIL" and signal.value == pytest.approx(0.2)


@pytest.mark.usefixtures("signal_registry")
async def test_a_users_own_judge_is_answered_by_its_registered_example() -> None:
    @register_judge("mine", config=JudgeConfig, example_answers={"mine": ExampleAnswer("yes")})
    class Mine:
        name, version = "mine", "1"

        def __init__(self, config: JudgeConfig) -> None:
            self.config = config

        async def run(self, sample: Sample, llm: LLM) -> Signal:
            result = await llm.generate(
                ChatRequest(messages=[Message(role="user", content=sample.response)], tag="mine@1")
            )
            return Signal(name=self.name, value=1.0 if result.choices[0].text == "yes" else 0.0)

    signal = await build_judge("mine", {"endpoint": "fake"}).run(SAMPLE, FakeLLM())
    assert signal.value == 1.0


async def test_an_unanswered_request_is_a_missing_signal_naming_its_tag() -> None:
    llm = FakeLLM(answers=lambda request: None)
    signal = await build_judge("lynx", {"endpoint": "fake"}).run(SAMPLE, llm)
    assert signal.missing and "no answer for the request tagged 'lynx@" in (signal.error or "")
    assert len(llm.unmatched) == 1


async def test_exact_results_win_over_the_script() -> None:
    exact = ChatResult(choices=[Choice(text='"SCORE": PASS')])
    llm = FakeLLM(lambda request: exact)
    assert await llm.generate(ChatRequest(prompt="hi")) is exact
    failing = FakeLLM(lambda request: RuntimeError("down"))
    with pytest.raises(RuntimeError, match="down"):
        await failing.generate(ChatRequest(prompt="hi"))
