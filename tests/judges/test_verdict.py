"""The guaranteed verdict: a verdict-less output is continued under a choice constraint, on vLLM only."""

from __future__ import annotations

import pytest
from judges_fakes import FakeLLM, choice, metered_run, result, tokens

from trustscore import Sample, Usage
from trustscore._errors import ServerError
from trustscore.judges import (
    ChainPollConfig,
    ChainPollJudge,
    LynxConfig,
    LynxJudge,
    PrometheusConfig,
    PrometheusJudge,
    TLMConfig,
    TLMJudge,
)
from trustscore.judges._verdict import CONSTRAINED_WARNING, VERDICT_MAX_TOKENS
from trustscore.llm import ChatRequest, ChatResult, TopLogprob

pytestmark = pytest.mark.anyio

SAMPLE = Sample(
    question="Who wrote Hamlet?",
    context=["Hamlet is a tragedy written by William Shakespeare."],
    response="William Shakespeare wrote Hamlet.",
)
RAMBLE = "The document says Hamlet is a tragedy by William Shakespeare and the answer mentions"


def two_step(free: ChatResult, constrained: ChatResult | Exception):
    """The free request gets ``free``; a continuation request gets ``constrained``."""
    return lambda req: constrained if req.continue_final_message else free


async def test_lynx_multi_token_verdict_under_constraint_reads_p_pass_from_the_first_piece() -> None:
    # A real tokenizer splits PASS into P+A+S+S; the distribution sits on the first piece, and the
    # engine lists constraint-masked tokens at -9999.
    first, *rest = tokens(("P", {"P": 0.3, "F": 0.7}), "A", "S", "S")
    masked = TopLogprob(token="FAIL", logprob=-9999.0)
    cont = [first.model_copy(update={"top_logprobs": [*first.top_logprobs, masked]}), *rest]
    llm = FakeLLM(two_step(result(choice(RAMBLE, finish_reason="length")), result(choice("PASS", cont))))
    signal = await metered_run(LynxJudge(LynxConfig(endpoint="e")), SAMPLE, llm)
    assert signal.value == pytest.approx(0.3) and signal.raw == "PASS"
    assert CONSTRAINED_WARNING in signal.warnings and signal.usage.requests == 2
    free, follow = llm.requests
    assert follow.continue_final_message and follow.messages is not None
    assert follow.messages[:-1] == free.messages
    assert follow.messages[-1].role == "assistant" and follow.messages[-1].content == RAMBLE + '\n"SCORE":'
    assert follow.constraint is not None and follow.constraint.choice == [" PASS", " FAIL"]
    assert follow.max_tokens == VERDICT_MAX_TOKENS and follow.temperature == 0.0
    assert follow.top_logprobs == free.top_logprobs and follow.tag == free.tag + "/verdict"


async def test_a_half_written_verdict_is_cut_before_continuing() -> None:
    half = result('{"REASONING": ["Shakespeare wrote Hamlet"], "SCORE": mayb')
    llm = FakeLLM(two_step(half, result("FAIL")))
    signal = await LynxJudge(LynxConfig(endpoint="e")).run(SAMPLE, llm)
    assert signal.value == 0.0 and signal.raw == "FAIL"
    content = llm.requests[1].messages[-1].content  # type: ignore[index]
    assert content == '{"REASONING": ["Shakespeare wrote Hamlet"],\n"SCORE":' and "mayb" not in content


async def test_a_free_verdict_sends_no_continuation() -> None:
    llm = FakeLLM(two_step(result('{"REASONING": ["x"], "SCORE": PASS}'), ServerError("unused", status=500)))
    signal = await LynxJudge(LynxConfig(endpoint="e")).run(SAMPLE, llm)
    assert signal.value == 1.0 and CONSTRAINED_WARNING not in signal.warnings and len(llm.requests) == 1


async def test_openai_servers_get_no_continuation_and_the_signal_is_missing() -> None:
    llm = FakeLLM(two_step(result(RAMBLE), result("PASS")), flavour="openai")
    signal = await LynxJudge(LynxConfig(endpoint="e")).run(SAMPLE, llm)
    assert signal.missing and "SCORE" in (signal.error or "") and len(llm.requests) == 1


async def test_a_failed_continuation_is_missing_with_both_reasons() -> None:
    failed = ServerError("503 overloaded", status=503, usage=Usage(requests=1))
    llm = FakeLLM(two_step(result(RAMBLE), failed))
    signal = await metered_run(LynxJudge(LynxConfig(endpoint="e")), SAMPLE, llm)
    assert signal.missing and "SCORE" in (signal.error or "") and "503 overloaded" in (signal.error or "")
    assert signal.usage.requests == 2


async def test_prometheus_polls_each_get_their_own_continuation_and_paths_are_counted() -> None:
    cfg = PrometheusConfig(endpoint="e", polls=3, temperature=0.8)
    grade = tokens(("2", {"2": 0.5, "3": 0.5}))
    free = result("ok [RESULT] 4", "Hamlet, Shakespeare, rambling", "Hamlet, Shakespeare, cut [RESULT] maybe")
    llm = FakeLLM(two_step(free, result(choice("2", grade))))
    signal = await PrometheusJudge(cfg).run(SAMPLE, llm)
    assert signal.raw == {"score": pytest.approx((4 + 2.5 + 2.5) / 3, abs=0.01), "polls": [4, 2, 2],
                          "verdict_paths": {"free": 1, "words": 0, "constrained": 2}}
    follows = [r for r in llm.requests if r.continue_final_message]
    assert len(follows) == 2 and all(r.n == 1 for r in follows)
    prefixes = sorted(r.messages[-1].content for r in follows)  # type: ignore[index]
    assert prefixes == ["Hamlet, Shakespeare, cut\n[RESULT] ", "Hamlet, Shakespeare, rambling\n[RESULT] "]
    assert not any(w.startswith("1 of") for w in signal.warnings)


async def test_chainpoll_abstainers_are_continued_with_supported_or_unsupported() -> None:
    polls = result(
        "VERDICT: supported",
        "hmm, Hamlet by Shakespeare",
        "well, Shakespeare wrote Hamlet",
        "VERDICT: unsupported",
        "",
    )
    llm = FakeLLM(two_step(polls, result("unsupported")))
    signal = await ChainPollJudge(ChainPollConfig(endpoint="e")).run(SAMPLE, llm)
    # The empty poll is no answer: it abstains and is never continued.
    assert signal.raw == {
        "votes": ["supported", "unsupported", "unsupported", "unsupported"],
        "abstained": 1,
        "verdict_paths": {"free": 2, "words": 0, "constrained": 2},
    }
    follows = [r for r in llm.requests if r.continue_final_message]
    assert [r.constraint.choice for r in follows] == [[" supported", " unsupported"]] * 2  # type: ignore[union-attr]


async def test_tlm_reflection_is_continued_with_a_letter() -> None:
    def respond(req: ChatRequest) -> ChatResult:
        if req.continue_final_message:
            return result("A")
        if req.constraint is not None:  # agreement
            return result("agree")
        return result("explanation: the context says Shakespeare wrote Hamlet")

    signal = await TLMJudge(TLMConfig(endpoint="e", samples=0)).run(SAMPLE, FakeLLM(respond))
    assert signal.value == 1.0
    assert isinstance(signal.raw, dict)
    assert signal.raw["verdict_paths"] == {"free": 0, "words": 0, "constrained": 2}
