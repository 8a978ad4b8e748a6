"""Verdicts read from what the model said, from transcripts of SmolLM2-135M-Instruct judging RAGTruth rows.

A verdict the model stated in its own words is read from them and never overridden by a continuation;
a continuation only completes reasoning that states none, and says so; a non-answer is missing.
"""

from __future__ import annotations

import pytest
from judges_fakes import FakeLLM, choice, result

from trustscore import Sample
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
from trustscore.judges._chainpoll import vote_in_words
from trustscore.judges._lynx import lynx_in_words
from trustscore.judges._prometheus import grade_in_words
from trustscore.judges._tlm import reflection_in_words
from trustscore.judges._verdict import CONSTRAINED_WARNING, WORDS_WARNING, non_answer
from trustscore.llm import ChatRequest, ChatResult

pytestmark = pytest.mark.anyio

SAMPLE = Sample(
    question="When did the Eiffel Tower open to the public?",
    context=[
        "The Eiffel Tower was built for the 1889 World's Fair in Paris. It opened to the public on "
        "31 March 1889 and was the tallest man-made structure in the world until 1930."
    ],
    response="The Eiffel Tower opened to the public in 1901.",
)

TLM_INCORRECT = (
    "(B) Incorrect\n\nExplanation: The context says the Eiffel Tower opened on 31 March 1889, not in "
    "1901. The answer is incorrect."
)
CHAINPOLL_UNSUPPORTED = (
    "Unsupported\n\nNote: The answer says 1901, but the context says the tower opened in 1889, so the "
    "claim is not supported by the context. A claim is supported only if the context states it."
)
PROMETHEUS_FAITHFUL = (
    "Yes, the response is indeed faithful to the passage. The Eiffel Tower opened to the public and the "
    "passage talks about it."
)
NON_ANSWER = "I'm ready to help. What's the question?"
LYNX_ECHO = (
    "DOCUMENT:\nThe Eiffel Tower was built for the 1889 World's Fair in Paris. It opened to the public on "
    "31 March 1889 and was the tallest man-made structure in the world until 1930.\n\nDOCUMENT:\nThe "
    "Eiffel Tower was built for the 1889 World's Fair in Paris. It opened to the public on 31 March"
)


def answering(
    text: str, *, finish_reason: str = "stop", continuation: str = "A"
) -> tuple[FakeLLM, list[ChatRequest]]:
    """Every judge request gets ``text``; a continuation gets ``continuation``; agreement checks 'agree'."""
    sent: list[ChatRequest] = []

    def respond(req: ChatRequest) -> ChatResult:
        sent.append(req)
        if req.continue_final_message:
            return result(continuation)
        if req.constraint is not None:
            return result("agree")
        return result(*[choice(text, finish_reason=finish_reason)] * req.n)

    return FakeLLM(respond), sent


def continuations(sent: list[ChatRequest]) -> list[ChatRequest]:
    return [r for r in sent if r.continue_final_message]


async def test_tlm_reflection_that_says_b_incorrect_is_b_not_a_continued_c() -> None:
    llm, sent = answering(TLM_INCORRECT, continuation="C")
    signal = await TLMJudge(TLMConfig(endpoint="e", samples=0)).run(SAMPLE, llm)
    assert isinstance(signal.raw, dict)
    assert signal.raw["reflections"] == ["B", "B"] and signal.value == 0.0
    assert signal.raw["verdict_paths"] == {"free": 0, "words": 2, "constrained": 0}
    assert continuations(sent) == []


async def test_chainpoll_poll_that_opens_with_unsupported_votes_unsupported() -> None:
    llm, sent = answering(CHAINPOLL_UNSUPPORTED, continuation="supported")
    signal = await ChainPollJudge(ChainPollConfig(endpoint="e")).run(SAMPLE, llm)
    assert signal.value == 0.0 and isinstance(signal.raw, dict)
    assert signal.raw["verdict_paths"] == {"free": 0, "words": 5, "constrained": 0}
    assert continuations(sent) == []


async def test_prometheus_yes_faithful_is_the_top_grade_not_a_continued_1() -> None:
    llm, sent = answering(PROMETHEUS_FAITHFUL, continuation="1")
    signal = await PrometheusJudge(PrometheusConfig(endpoint="e")).run(SAMPLE, llm)
    assert signal.value == 1.0 and isinstance(signal.raw, dict)
    assert signal.raw["polls"] == [5] and signal.raw["verdict_paths"] == {
        "free": 0,
        "words": 1,
        "constrained": 0,
    }
    assert continuations(sent) == []


async def test_a_non_answer_is_missing_never_a_continued_verdict() -> None:
    llm, sent = answering(NON_ANSWER, continuation="supported")
    signal = await ChainPollJudge(ChainPollConfig(endpoint="e")).run(SAMPLE, llm)
    assert signal.missing and signal.value is None
    assert isinstance(signal.raw, dict) and signal.raw["abstained"] == 5
    assert continuations(sent) == []


async def test_lynx_echoing_the_document_until_max_tokens_is_missing_not_fail() -> None:
    llm, sent = answering(LYNX_ECHO, finish_reason="length", continuation="FAIL")
    signal = await LynxJudge(LynxConfig(endpoint="e")).run(SAMPLE, llm)
    assert signal.missing and "repeated the prompt" in (signal.error or "")
    assert continuations(sent) == []


async def test_reasoning_without_a_verdict_is_continued_and_says_so() -> None:
    reasoning = "The context says the Eiffel Tower opened in 1889 and the answer says 1901, so"
    llm, sent = answering(reasoning, finish_reason="length", continuation="FAIL")
    signal = await LynxJudge(LynxConfig(endpoint="e")).run(SAMPLE, llm)
    assert signal.value == 0.0 and signal.raw == "FAIL"
    assert any(w.startswith("verdict from continuation") for w in signal.warnings)
    assert CONSTRAINED_WARNING in signal.warnings and len(continuations(sent)) == 1


@pytest.mark.parametrize(
    ("text", "vote"),
    [
        (CHAINPOLL_UNSUPPORTED, "unsupported"),
        ("**Supported.**\nEvery claim is in the context.", "supported"),
        ("The claim about 1901 is not supported by the context.", "unsupported"),
        ("The answer is supported by the context.", "supported"),
        ("Supportive.", "supported"),
        ("The context does not support the date.", "unsupported"),
        # Both words stated (the options listed, or claims judged both ways): no single vote.
        ('The verdict is "supported" only if every claim is backed; otherwise "unsupported".', None),
        ("The date is not in the context.", None),
    ],
)
def test_vote_in_words(text: str, vote: str | None) -> None:
    assert vote_in_words(text) == vote


@pytest.mark.parametrize(
    ("text", "letter"),
    [
        (TLM_INCORRECT, "B"),
        ("A\n", "A"),
        ("A:", "A"),
        ("A good answer names the date.", None),
        ("The answer is correct: the context gives the same date.", "A"),
        ("I am not sure the context says this.", "C"),
        ("(A) Correct\n(B) Incorrect\n(C) I am not sure", None),
        ("The context gives a date.", None),
    ],
)
def test_reflection_in_words(text: str, letter: str | None) -> None:
    got = reflection_in_words(text)
    assert (got.letter if got else None) == letter


@pytest.mark.parametrize(
    ("text", "grade"),
    [
        (PROMETHEUS_FAITHFUL, 5),
        # SmolLM2 cut at max_tokens: the continuation had written 1 after this.
        (
            "The feedback is clear and concise, and the instructions are well-structured. The passage "
            "provides a clear and concise explanation of the feedback, and the response is well-supported "
            "by the passage.",
            5,
        ),
        ("The response is not supported by the passage.", 1),
        ("The response is not faithful: the passage says 1889.", 1),
        ("Feedback: the date is wrong. Score: 2. More text follows here.", 2),
        ("I would rate this response 4/5.", 4),
        ("[RESULT] 3 because the date differs", 3),
        ("The passage talks about a tower.", None),
    ],
)
def test_grade_in_words(text: str, grade: int | None) -> None:
    got = grade_in_words(text)
    assert (got.grade if got else None) == grade


async def test_lynx_bare_pass_is_read_from_the_words_and_says_so() -> None:
    llm, sent = answering(
        '"PASS" if the answer is faithful to the contents of the document.', continuation="FAIL"
    )
    signal = await LynxJudge(LynxConfig(endpoint="e")).run(SAMPLE, llm)
    assert signal.value == 1.0 and WORDS_WARNING in signal.warnings and continuations(sent) == []


def test_lynx_in_words_reads_capital_pass_or_fail_only_when_one_is_stated() -> None:
    assert lynx_in_words("The answer is wrong. FAIL") is not None
    assert lynx_in_words('{"REASONING": ["1889, not 1901"], "VERDICT": FAIL}').verdict == "FAIL"  # type: ignore[union-attr]
    assert lynx_in_words("PASS if faithful, FAIL otherwise") is None
    assert lynx_in_words("the student failed to pass") is None


def test_non_answer_rules() -> None:
    prompt = (
        "QUESTION: " + SAMPLE.question + "\nDOCUMENT: " + SAMPLE.context_text + "\nANSWER: " + SAMPLE.response
    )
    assert non_answer(NON_ANSWER, prompt, finished=True) is not None
    assert non_answer("", prompt, finished=False) is not None
    assert non_answer(LYNX_ECHO, prompt, finished=False) is not None
    assert non_answer("The Eiffel Tower opened in 1889 per the document", prompt, finished=True) is None
    # Cut at max_tokens before saying much: reasoning under way, which a continuation may complete.
    assert non_answer("Let me check the", prompt, finished=False) is None
