"""Each judge's ``run`` end to end against a hand-written fake LLM: values, usage, tags, missing signals."""

from __future__ import annotations

import math
import re

import anyio
import pytest
from judges_fakes import CALL_USAGE, FakeLLM, always, choice, metered_run, result, tokens

from trustscore import Config, Sample, Usage
from trustscore._errors import LLMTimeout, RateLimited, ServerError
from trustscore.judges import (
    ChainPollConfig,
    ChainPollJudge,
    JudgeConfig,
    LikertConfig,
    LikertJudge,
    LynxConfig,
    LynxJudge,
    PrometheusConfig,
    PrometheusJudge,
    TLMConfig,
    TLMJudge,
    build_judge,
)
from trustscore.llm import ChatRequest, ChatResult
from trustscore.signals import Judge, registered_signals

pytestmark = pytest.mark.anyio

SAMPLE = Sample(
    question="Who wrote Hamlet?",
    context=["Hamlet is a tragedy written by William Shakespeare.", "It is set in Denmark."],
    response="William Shakespeare wrote Hamlet.",
)
NO_CONTEXT = Sample(question="Who wrote Hamlet?", response="William Shakespeare.")
ERROR_USAGE = Usage(requests=3, seconds=2.0)


def likert_output(probs: dict[str, float]) -> ChatResult:
    toks = tokens("Explanation: the passage names Shakespeare (line 1).\nScore:", (" 4", probs))
    return result(choice("".join(t.token for t in toks), toks))


def expected_value(probs: dict[int, float]) -> float:
    mass = {k: max(probs.get(k, 0.0), 1e-3) for k in range(1, 6)}
    return (sum(k * v for k, v in mass.items()) / sum(mass.values()) - 1) / 4


# --- Likert ------------------------------------------------------------------------------------------------


async def test_likert_value_is_the_expected_score_mapped_to_unit() -> None:
    llm = FakeLLM(always(likert_output({" 4": 0.7, " 5": 0.2, " 3": 0.1})))
    judge = LikertJudge(LikertConfig(endpoint="e"))
    signal = await metered_run(judge, SAMPLE, llm)
    assert signal.value == pytest.approx(expected_value({4: 0.7, 5: 0.2, 3: 0.1}))
    assert signal.value is not None and signal.raw == pytest.approx(1 + 4 * signal.value, abs=1e-4)
    assert signal.explanation == "the passage names Shakespeare (line 1)."
    assert signal.usage == CALL_USAGE and signal.version == judge.version and signal.warnings == []
    (req,) = llm.requests
    assert req.tag == f"likert@{judge.version}" and req.temperature == 0.0
    assert req.logprobs and req.top_logprobs == 5 and not req.continue_final_message
    assert req.messages is not None and SAMPLE.context_text in req.messages[1].content


async def test_likert_text_only_score_warns_that_no_logprobs_were_read() -> None:
    signal = await LikertJudge(LikertConfig(endpoint="e")).run(SAMPLE, FakeLLM(always(result("Score: 2"))))
    assert signal.value == 0.25 and any("no logprobs" in w for w in signal.warnings)


async def test_likert_prefill_on_vllm_and_falls_back_on_openai() -> None:
    cfg = LikertConfig(endpoint="e", prefill_score=True)
    vllm = FakeLLM(always(result(choice(" 5", tokens((" 5", {" 5": 0.5, " 4": 0.5}))))))
    signal = await LikertJudge(cfg).run(SAMPLE, vllm)
    assert vllm.requests[0].continue_final_message and vllm.requests[0].max_tokens == 2
    assert signal.value == pytest.approx(expected_value({5: 0.5, 4: 0.5}))
    openai = FakeLLM(always(likert_output({" 4": 1.0})), flavour="openai")
    signal = await LikertJudge(cfg).run(SAMPLE, openai)
    assert not openai.requests[0].continue_final_message
    assert signal.value == pytest.approx(expected_value({4: 1.0}))
    assert any("prefill_score needs a vLLM server" in w for w in signal.warnings)


async def test_likert_verdict_only_asks_for_the_rating_alone() -> None:
    cfg = LikertConfig(endpoint="e", verdict_only=True)
    answer = choice("Score: 4", tokens("Score:", (" 4", {" 4": 0.6, " 3": 0.4})))
    openai = FakeLLM(always(result(answer)), flavour="openai")
    judge = LikertJudge(cfg)
    signal = await judge.run(SAMPLE, openai)
    (req,) = openai.requests
    assert req.max_tokens == 8 and not req.continue_final_message
    assert req.messages is not None and "no explanation" in req.messages[-1].content
    assert "Explanation: [provide" not in req.messages[-1].content  # the explained output line is gone
    assert "5-point scale" in req.messages[-1].content  # the scale is kept word for word
    assert signal.value == pytest.approx(expected_value({4: 0.6, 3: 0.4})) and signal.warnings == []
    vllm = FakeLLM(always(result(choice(" 5", tokens((" 5", {" 5": 1.0}))))))
    await LikertJudge(cfg).run(SAMPLE, vllm)
    assert vllm.requests[0].continue_final_message and vllm.requests[0].max_tokens == 2  # one-token answer


def test_likert_verdict_only_has_its_own_version_and_leaves_the_explained_one_alone() -> None:
    explained = LikertJudge(LikertConfig(endpoint="e"))
    verdict = LikertJudge(LikertConfig(endpoint="e", verdict_only=True))
    assert verdict.version != explained.version
    assert "verdict_only" not in LikertConfig(endpoint="e").value_settings()


@pytest.mark.parametrize(
    "error",
    [RateLimited("429 from server", usage=ERROR_USAGE), LLMTimeout("deadline 30s passed", usage=ERROR_USAGE)],
)
async def test_likert_llm_error_is_a_missing_signal_with_reason_and_usage(error: Exception) -> None:
    signal = await metered_run(LikertJudge(LikertConfig(endpoint="e")), SAMPLE, FakeLLM(always(error)))
    assert signal.missing and signal.error is not None and str(error) in signal.error
    assert signal.usage == ERROR_USAGE


async def test_likert_unparsable_output_is_missing_and_quotes_the_judge() -> None:
    signal = await metered_run(
        LikertJudge(LikertConfig(endpoint="e")),
        SAMPLE,
        FakeLLM(always(result("I cannot rate.")), flavour="openai"),  # vLLM would be asked to continue
    )
    assert signal.missing and "I cannot rate." in (signal.error or "") and signal.usage == CALL_USAGE


async def test_judges_needing_context_are_missing_without_it_and_send_nothing() -> None:
    for judge in (
        LikertJudge(LikertConfig(endpoint="e")),
        PrometheusJudge(PrometheusConfig(endpoint="e")),
        LynxJudge(LynxConfig(endpoint="e")),
        ChainPollJudge(ChainPollConfig(endpoint="e")),
    ):
        llm = FakeLLM(always(result("x")))
        signal = await judge.run(NO_CONTEXT, llm)
        assert signal.missing and "no context" in (signal.error or "") and llm.requests == []


async def test_context_over_the_window_is_trimmed_from_the_end_and_warned() -> None:
    big = Sample(
        question="Q?",
        context=["first passage " * 40, "second passage " * 400, "third " * 400],
        response="The answer.",
    )
    llm = FakeLLM(always(likert_output({" 4": 1.0})), context_window=1400)
    signal = await LikertJudge(LikertConfig(endpoint="e")).run(big, llm)
    assert signal.value is not None
    (warning,) = [w for w in signal.warnings if w.startswith("context trimmed")]
    match = re.fullmatch(r"context trimmed: kept ~(\d+) of ~(\d+) tokens", warning)
    assert match is not None and int(match.group(1)) < int(match.group(2))
    content = llm.requests[0].messages[1].content  # type: ignore[index]
    assert "first passage" in content and "third" not in content
    assert "<question>\nQ?\n</question>" in content and "<answer>\nThe answer.\n</answer>" in content
    assert llm.count_tokens("".join(m.content for m in llm.requests[0].messages or [])) + 512 <= 1400


async def test_trimmed_context_keeps_one_evidence_prefix_across_our_judges() -> None:
    big = Sample(
        question="Q?", context=["alpha " * 300, "beta " * 300, "gamma " * 300], response="The answer."
    )
    llm = FakeLLM(tlm_responder(), context_window=2000)
    await TLMJudge(TLMConfig(endpoint="e", samples=0)).run(big, llm)
    llm.respond = always(likert_output({" 4": 1.0}))
    await LikertJudge(LikertConfig(endpoint="e")).run(big, llm)
    llm.respond = always(result("VERDICT: supported"))
    await ChainPollJudge(ChainPollConfig(endpoint="e", polls=1)).run(big, llm)
    users = [r.messages[1].content for r in llm.requests]  # type: ignore[index]
    prefixes = {u[: u.index("Answer:\n<answer>\nThe answer.\n</answer>\n\n")] for u in users}
    assert len(users) == 4 and len(prefixes) == 1
    (prefix,) = prefixes
    assert "alpha" in prefix and prefix.count("gamma") < 300


async def test_question_and_answer_over_the_window_is_missing_naming_the_window() -> None:
    huge = Sample(question="Q? " * 3000, context=["c"], response="r")
    llm = FakeLLM(always(result("Score: 3")), context_window=1024)
    signal = await LikertJudge(LikertConfig(endpoint="e")).run(huge, llm)
    assert signal.missing and "window of 1024" in (signal.error or "") and llm.requests == []


# --- Prometheus --------------------------------------------------------------------------------------------


async def test_prometheus_single_grade_logprob_weighted() -> None:
    toks = tokens("Every claim is in the passage. [RESULT]", (" 5", {" 5": 0.9, " 4": 0.1}))
    llm = FakeLLM(always(result(choice("".join(t.token for t in toks), toks))))
    judge = PrometheusJudge(PrometheusConfig(endpoint="e"))
    signal = await judge.run(SAMPLE, llm)
    assert signal.value == pytest.approx(expected_value({5: 0.9, 4: 0.1}))
    assert signal.value is not None
    assert signal.raw == {
        "score": pytest.approx(1 + 4 * signal.value, abs=1e-4),
        "polls": [5],
        "verdict_paths": {"free": 1, "words": 0, "constrained": 0},
    }
    assert signal.explanation == "Every claim is in the passage."
    (req,) = llm.requests
    assert req.temperature == 0.0 and req.n == 1 and req.tag == f"prometheus@{judge.version}"
    assert req.messages is not None and [m.role for m in req.messages] == ["user"]
    assert f"Passage:\n{SAMPLE.context_text}\nQuestion:\n{SAMPLE.question}" in req.messages[0].content


async def test_prometheus_polls_average_parsed_grades_and_warn_about_the_rest() -> None:
    cfg = PrometheusConfig(endpoint="e", polls=3, temperature=0.8)
    # An OpenAI server cannot continue an output, so the third poll, which states no grade, stays ungraded.
    polls = result("ok [RESULT] 4", "fine [RESULT] 2", "Shakespeare wrote Hamlet, so")
    llm = FakeLLM(always(polls), flavour="openai")
    signal = await PrometheusJudge(cfg).run(SAMPLE, llm)
    assert llm.requests[0].n == 3 and llm.requests[0].temperature == 0.8
    assert signal.value == pytest.approx((3.0 - 1) / 4)
    paths = {"free": 2, "words": 0, "constrained": 0}
    assert signal.raw == {"score": 3.0, "polls": [4, 2, None], "verdict_paths": paths}
    assert any("1 of 3 gradings unparsable" in w for w in signal.warnings)


async def test_prometheus_all_unparsable_or_error_is_missing() -> None:
    signal = await PrometheusJudge(PrometheusConfig(endpoint="e")).run(
        SAMPLE, FakeLLM(always(result(choice("The response is", finish_reason="length"))), flavour="openai")
    )
    assert signal.missing and "cut off" in (signal.error or "")
    signal = await PrometheusJudge(PrometheusConfig(endpoint="e")).run(
        SAMPLE, FakeLLM(always(ServerError("503 overloaded", status=503)))
    )
    assert signal.missing and "503 overloaded" in (signal.error or "")


def test_prometheus_polls_need_temperature() -> None:
    with pytest.raises(ValueError, match="temperature"):
        PrometheusConfig(endpoint="e", polls=3)


# --- Lynx --------------------------------------------------------------------------------------------------


async def test_lynx_value_is_p_pass_with_reasoning_as_explanation() -> None:
    toks = tokens(
        "{\"REASONING\": ['The document names Shakespeare.', 'The answer agrees.'], \"SCORE\":",
        (" PASS", {" PASS": 0.8, " FAIL": 0.2}),
        "}",
    )
    llm = FakeLLM(always(result(choice("".join(t.token for t in toks), toks))))
    judge = LynxJudge(LynxConfig(endpoint="e"))
    signal = await judge.run(SAMPLE, llm)
    assert signal.value == pytest.approx(0.8) and signal.raw == "PASS"
    assert signal.explanation == "- The document names Shakespeare.\n- The answer agrees."
    (req,) = llm.requests
    assert req.messages is not None and [m.role for m in req.messages] == ["user"]
    assert req.top_logprobs == 10 and req.temperature == 0.0 and req.tag == f"lynx@{judge.version}"


async def test_lynx_without_logprobs_is_binary_and_warns() -> None:
    signal = await LynxJudge(LynxConfig(endpoint="e")).run(
        SAMPLE, FakeLLM(always(result('{"REASONING": ["no"], "SCORE": FAIL}')))
    )
    assert signal.value == 0.0 and signal.raw == "FAIL" and signal.warnings


async def test_lynx_garbage_is_missing_not_fail() -> None:
    llm = FakeLLM(always(result("As an AI model")), flavour="openai")
    signal = await LynxJudge(LynxConfig(endpoint="e")).run(SAMPLE, llm)
    assert signal.missing and "As an AI model" in (signal.error or "")


# --- ChainPoll ---------------------------------------------------------------------------------------------


async def test_chainpoll_share_of_supported_votes_with_abstentions() -> None:
    polls = [
        "ok\nVERDICT: supported",
        "ok\nVERDICT: supported",
        "claim 2 missing\nVERDICT: unsupported",
        "VERDICT: supported",
        "I am not sure",
    ]
    llm = FakeLLM(always(result(*polls)), flavour="openai")
    judge = ChainPollJudge(ChainPollConfig(endpoint="e"))
    signal = await judge.run(SAMPLE, llm)
    assert signal.value == 0.75
    assert signal.raw == {
        "votes": ["supported", "supported", "unsupported", "supported"],
        "abstained": 1,
        "verdict_paths": {"free": 4, "words": 0, "constrained": 0},
    }
    assert signal.explanation == "claim 2 missing\nVERDICT: unsupported"
    (req,) = llm.requests
    assert req.n == 5 and req.temperature == 0.7 and req.tag == f"chainpoll@{judge.version}"


async def test_chainpoll_too_few_votes_is_missing_with_the_votes_in_raw() -> None:
    llm = FakeLLM(
        always(result("VERDICT: supported", "VERDICT: unsupported", "hmm", "well", "")), flavour="openai"
    )
    signal = await ChainPollJudge(ChainPollConfig(endpoint="e")).run(SAMPLE, llm)
    assert signal.missing and "only 2 of 5 polls" in (signal.error or "") and "need 3" in (signal.error or "")
    assert signal.raw == {
        "votes": ["supported", "unsupported"],
        "abstained": 3,
        "verdict_paths": {"free": 2, "words": 0, "constrained": 0},
    }


async def test_chainpoll_error_is_missing() -> None:
    signal = await ChainPollJudge(ChainPollConfig(endpoint="e")).run(
        SAMPLE, FakeLLM(always(RateLimited("429")))
    )
    assert signal.missing and "429" in (signal.error or "")


def test_chainpoll_min_votes_cannot_exceed_polls() -> None:
    with pytest.raises(ValueError, match="min_votes"):
        ChainPollConfig(endpoint="e", polls=3, min_votes=4)
    assert ChainPollConfig(endpoint="e", polls=5).required_votes == 3


# --- TLM ---------------------------------------------------------------------------------------------------

SAMPLED = [
    "William Shakespeare wrote Hamlet.",
    "Shakespeare.",
    "Christopher Marlowe.",
    "Shakespeare wrote it.",
    "It was Shakespeare.",
]


def tlm_responder(*, fail_sampling: bool = False, fail_reflection: bool = False):  # type: ignore[no-untyped-def]
    def respond(req: ChatRequest) -> ChatResult | Exception:
        assert req.messages is not None
        last = req.messages[-1].content
        if req.n > 1:
            return RateLimited("429 sampling", usage=ERROR_USAGE) if fail_sampling else result(*SAMPLED)
        if req.constraint is not None:
            if "Marlowe" in last:
                return result(choice("contradict", tokens(("contradict", {"contradict": 0.9, "agree": 0.1}))))
            return result(choice("agree", tokens(("agree", {"agree": 0.8, "neutral": 0.2}))))
        if fail_reflection:
            return LLMTimeout("reflection timed out")
        toks = tokens("explanation: the passage says so\nanswer:", (" A", {" A": 0.8, " C": 0.2}))
        return result(choice("".join(t.token for t in toks), toks))

    return respond


async def test_tlm_combines_consistency_and_self_reflection_like_bsdetector() -> None:
    llm = FakeLLM(tlm_responder())
    judge = TLMJudge(TLMConfig(endpoint="e"))
    signal = await metered_run(judge, SAMPLE, llm)
    s = [1.0, 1.0, 0.1, 1.0, 1.0]
    r = [1.0, 0.0, 0.0, 0.0, 0.0]
    observed = sum(0.8 * si + 0.2 * ri for si, ri in zip(s, r, strict=True)) / 5
    reflection = 0.8 + 0.5 * 0.2
    assert signal.value == pytest.approx(0.7 * observed + 0.3 * reflection)
    assert isinstance(signal.raw, dict)
    assert signal.raw["consistency"] == pytest.approx(observed)
    assert signal.raw["self_reflection"] == pytest.approx(reflection)
    assert signal.raw["answers"] == SAMPLED and signal.raw["reflections"] == ["A", "A"]
    assert signal.usage == Usage.total([CALL_USAGE] * 8)
    sampling = [q for q in llm.requests if q.n > 1]
    assert len(sampling) == 1 and sampling[0].n == 5 and sampling[0].temperature == 1.0
    assert SAMPLE.response not in sampling[0].messages[0].content  # type: ignore[index]
    steps = {q.tag for q in llm.requests}  # each kind of request names its step, for the test kit
    assert steps == {f"tlm.{step}@{judge.version}" for step in ("answer", "reflection", "agreement")}


async def test_tlm_agreement_calls_run_concurrently() -> None:
    arrived = 0
    all_in = anyio.Event()

    class Gate(FakeLLM):
        async def generate(self, request: ChatRequest, *, cache: bool | None = None) -> ChatResult:
            nonlocal arrived
            if request.constraint is not None:
                arrived += 1
                if arrived == 5:
                    all_in.set()
                await all_in.wait()
            return await super().generate(request)

    with anyio.fail_after(5):
        signal = await TLMJudge(TLMConfig(endpoint="e")).run(SAMPLE, Gate(tlm_responder()))
    assert signal.value is not None


async def test_tlm_similarity_callable_replaces_llm_agreement() -> None:
    llm = FakeLLM(tlm_responder())
    judge = TLMJudge(TLMConfig(endpoint="e", consistency="similarity"), similarity=lambda a, b: 0.5)
    signal = await judge.run(SAMPLE, llm)
    assert [q for q in llm.requests if q.constraint is not None] == []
    observed = (0.8 * 0.5 * 5 + 0.2 * 1.0) / 5
    assert signal.value == pytest.approx(0.7 * observed + 0.3 * 0.9)
    with pytest.raises(ValueError, match="similarity callable"):
        TLMJudge(TLMConfig(endpoint="e", consistency="similarity"))


async def test_tlm_falls_back_to_one_part_with_a_warning_and_counts_failed_usage() -> None:
    tlm = TLMJudge(TLMConfig(endpoint="e"))
    signal = await metered_run(tlm, SAMPLE, FakeLLM(tlm_responder(fail_sampling=True)))
    assert signal.value == pytest.approx(0.9)
    assert any("consistency missing" in w and "429 sampling" in w for w in signal.warnings)
    assert signal.usage == Usage.total([CALL_USAGE, CALL_USAGE, ERROR_USAGE])
    signal = await TLMJudge(TLMConfig(endpoint="e")).run(SAMPLE, FakeLLM(tlm_responder(fail_reflection=True)))
    assert signal.raw["self_reflection"] is None  # type: ignore[index,call-overload]
    assert any("self-reflection missing" in w for w in signal.warnings)


async def test_tlm_one_failed_reflection_leaves_the_other_and_warns() -> None:
    base = tlm_responder()

    def respond(req: ChatRequest) -> ChatResult | Exception:
        if req.messages is not None and "really sure" in req.messages[-1].content:
            return result("I refuse to answer in that format.")
        return base(req)

    signal = await TLMJudge(TLMConfig(endpoint="e", samples=0)).run(SAMPLE, FakeLLM(respond))
    assert signal.value == pytest.approx(0.9)
    assert signal.raw["reflections"] == ["A", None]  # type: ignore[index,call-overload]
    assert any("1 of 2 self-reflections failed" in w and "I refuse" in w for w in signal.warnings)


async def test_tlm_all_parts_failing_is_missing() -> None:
    signal = await TLMJudge(TLMConfig(endpoint="e")).run(
        SAMPLE, FakeLLM(tlm_responder(fail_sampling=True, fail_reflection=True))
    )
    assert signal.missing and "reflection timed out" in (signal.error or "") and "429" in (signal.error or "")


async def test_tlm_without_context_runs_on_model_knowledge_unless_required() -> None:
    llm = FakeLLM(tlm_responder())
    signal = await TLMJudge(TLMConfig(endpoint="e", samples=0)).run(NO_CONTEXT, llm)
    assert signal.value == pytest.approx(0.9) and signal.warnings == [
        "no context: judged on the model's own knowledge"
    ]
    assert len(llm.requests) == 2 and "Context:" not in llm.requests[0].messages[1].content  # type: ignore[index]
    strict = await TLMJudge(TLMConfig(endpoint="e", require_context=True)).run(
        NO_CONTEXT, FakeLLM(tlm_responder())
    )
    assert strict.missing and "require_context" in (strict.error or "")


async def test_cancellation_propagates_out_of_a_judge() -> None:
    class Hanging(FakeLLM):
        async def generate(self, request: ChatRequest, *, cache: bool | None = None) -> ChatResult:
            await anyio.sleep_forever()
            raise AssertionError

    finished = False
    with anyio.move_on_after(0.05) as scope:
        await TLMJudge(TLMConfig(endpoint="e")).run(SAMPLE, Hanging(always(result("x"))))
        finished = True
    assert scope.cancelled_caught and not finished


# --- building judges ---------------------------------------------------------------------------------------


def test_build_judge_by_name_upgrades_plain_config_and_rejects_unknown_names() -> None:
    names = tuple(registered_signals("judge"))
    for name in names:
        judge = build_judge(name, JudgeConfig(endpoint="e"))
        assert isinstance(judge, Judge) and judge.name == name and len(judge.version) == 12
    assert isinstance(build_judge("chainpoll", {"endpoint": "e", "polls": 3}), ChainPollJudge)
    with pytest.raises(ValueError, match=", ".join(names)):
        build_judge("gpt-judge", JudgeConfig(endpoint="e"))


def test_judge_sections_in_the_whole_config() -> None:
    cfg = Config.from_dict(
        {
            "endpoints": {"j": {"base_url": "http://127.0.0.1:8000/v1", "model": "m"}},
            "judges": {
                "chainpoll": {"endpoint": "j", "polls": 7},
                "prometheus": {"endpoint": "j", "enabled": False},
            },
        }
    )
    assert cfg.judges.chainpoll is not None and cfg.judges.chainpoll.required_votes == 4
    assert list(cfg.judges.enabled()) == ["chainpoll"]
    assert math.isclose(TLMConfig(endpoint="j").beta, 0.7)


@pytest.mark.parametrize("bad", [float("nan"), "raise"])
async def test_tlm_a_broken_similarity_abstains_with_its_reason_never_scores_zero(bad: object) -> None:
    def similarity(a: str, b: str) -> float:
        if bad == "raise":
            raise RuntimeError("embedder offline")
        return bad  # type: ignore[return-value]

    judge = TLMJudge(TLMConfig(endpoint="e", consistency="similarity"), similarity=similarity)
    signal = await judge.run(SAMPLE, FakeLLM(tlm_responder()))
    assert signal.raw["consistency"] is None  # type: ignore[index,call-overload]
    assert signal.value == pytest.approx(0.9), "self-reflection alone, not a NaN read as 0"
    reason = "embedder offline" if bad == "raise" else "similarity returned nan"
    assert any("consistency missing" in w and reason in w for w in signal.warnings)
