"""TLM leaves a reason for every part it could not compute: a failed agreement check is never a bare
null, and OpenAI-flavour consistency says why it is missing."""

from __future__ import annotations

import pytest
from judges_fakes import FakeLLM, choice, result, tokens

from trustscore import Sample
from trustscore._errors import ServerError
from trustscore.judges import TLMConfig, TLMJudge
from trustscore.llm import ChatRequest, ChatResult

pytestmark = pytest.mark.anyio

SAMPLE = Sample(
    question="Who wrote Hamlet?",
    context=["Hamlet is a tragedy written by William Shakespeare."],
    response="William Shakespeare wrote Hamlet.",
)
SAMPLED = ["Shakespeare.", "William Shakespeare.", "Marlowe.", "Shakespeare wrote it.", "It was Shakespeare."]


def responder(  # type: ignore[no-untyped-def]
    agreement: ChatResult | Exception, *, for_other: str | None = None
):
    """Reflections say A, sampling draws SAMPLED; agreement checks get ``agreement`` (only the check
    of the sampled answer ``for_other`` when given; the others agree)."""

    def respond(req: ChatRequest) -> ChatResult | Exception:
        assert req.messages is not None
        last = req.messages[-1].content
        if req.n > 1:
            return result(*SAMPLED)
        if "another answer" in last.lower():
            if for_other is None or for_other in last:
                return agreement
            return result(choice("agree", tokens(("agree", {"agree": 1.0}))))
        toks = tokens("explanation: the passage says so\nanswer:", (" A", {" A": 1.0}))
        return result(choice("".join(t.token for t in toks), toks))

    return respond


async def test_one_failed_agreement_check_is_named_in_the_warnings_and_raw() -> None:
    llm = FakeLLM(responder(ServerError("HTTP 500: engine died", status=500), for_other="Marlowe."))
    signal = await TLMJudge(TLMConfig(endpoint="e")).run(SAMPLE, llm)

    assert signal.value is not None
    assert isinstance(signal.raw, dict)
    assert signal.raw["agreement"][2] is None  # type: ignore[index]
    assert signal.raw["agreement_errors"] == ["tlm call failed: HTTP 500: engine died"]
    assert any(
        w.startswith("1 of 5 agreement checks failed (tlm call failed: HTTP 500: engine died)")
        for w in signal.warnings
    ), signal.warnings


async def test_openai_flavour_consistency_is_missing_with_its_reason() -> None:
    chatty = result(choice("The two answers agree with each other."))
    llm = FakeLLM(responder(chatty), flavour="openai")
    signal = await TLMJudge(TLMConfig(endpoint="e")).run(SAMPLE, llm)

    assert signal.value == pytest.approx(1.0), "self-reflection alone"
    (warning,) = [w for w in signal.warnings if "consistency missing" in w]
    assert "cannot enforce the agree/neutral/contradict choice" in warning
    assert "The two answers agree" in warning


async def test_an_empty_sampled_answer_abstains_with_a_reason() -> None:
    base = responder(result(choice("agree")))

    def respond(req: ChatRequest) -> ChatResult | Exception:
        if req.n > 1:
            return result(*SAMPLED[:4], "")
        return base(req)

    signal = await TLMJudge(TLMConfig(endpoint="e")).run(SAMPLE, FakeLLM(respond))
    assert isinstance(signal.raw, dict)
    assert signal.raw["agreement_errors"] == ["sampled answer 5 is empty"]
