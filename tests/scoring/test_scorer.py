"""The Scorer: fan-out, failures as missing signals, budgets, cancellation, validation, score_many."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path

import anyio
import pytest
from scorer_fakes import FakeJudge, FakeLLM, FakeLocal

from trustscore import Config, ConfigError, InputError, Sample, Scorer, Signal, TrustScore, Usage
from trustscore._errors import RateLimited
from trustscore.fusion._fuser import FusedScore
from trustscore.llm import LLM, ChatRequest

pytestmark = pytest.mark.anyio

Q = "Who wrote Dune?"
CTX = ["Dune is a 1965 novel by Frank Herbert."]
R = "Frank Herbert wrote Dune."


def make_scorer(
    *judges: FakeJudge,
    local: list[FakeLocal] | None = None,
    config: Config | None = None,
    llm: FakeLLM | None = None,
) -> Scorer:
    return Scorer(
        config or Config(), judges=list(judges), local_signals=local or [], llms={"judge": llm or FakeLLM()}
    )


async def test_fuses_every_signal_in_source_order() -> None:
    scorer = make_scorer(
        FakeJudge("lynx", 1.0, delay=0.02),
        FakeJudge("likert", 0.5),
        local=[FakeLocal("lexical", lambda s: 0.6)],
    )
    r = await scorer.score(question=Q, context=CTX, response=R, id="s1")
    assert list(r.signals) == ["lynx", "likert", "lexical"]
    assert r.used_signals == ["lynx", "likert", "lexical"]
    # Weighted log-odds pool: judges weigh 1, lexical 0.25; 1.0 is clipped to 0.99 (odds 99).
    assert r.score == pytest.approx(1 / (1 + math.exp(-(math.log(99) + 0.25 * math.log(1.5)) / 2.25)))
    assert r.calibrated is False and r.fusion == "default:logodds"
    assert r.complete is True and r.sample_id == "s1"
    assert r.usage.requests == 2 and r.usage.prompt_tokens == 200
    assert r.signals["lynx"].raw == 1.0 and r.signals["lynx"].error is None
    assert r.seconds > 0


async def test_judges_reach_their_llm() -> None:
    llm = FakeLLM()
    r = await make_scorer(FakeJudge("lynx", ask_llm=True), llm=llm).score(question=Q, context=CTX, response=R)
    assert llm.calls == 1
    assert r.signals["lynx"].value == 1.0 and r.signals["lynx"].raw == "PASS"


async def test_a_failure_inside_a_judges_task_group_is_named_not_the_group() -> None:
    scorer = make_scorer(
        FakeJudge("fanout", error=ExceptionGroup("unhandled errors in a TaskGroup", [KeyError("votes")])),
        FakeJudge("nested", error=ExceptionGroup("g", [ExceptionGroup("h", [RateLimited("429 x3")])])),
    )
    r = await scorer.score(question=Q, context=CTX, response=R)
    assert r.signals["fanout"].error == "KeyError: 'votes'"
    assert r.signals["nested"].error == "429 x3"


async def test_one_failing_judge_never_loses_the_others() -> None:
    scorer = make_scorer(
        FakeJudge("boom", error=RuntimeError("parser exploded")),
        FakeJudge("limited", error=RateLimited("429 after 3 retries", usage=Usage(requests=4))),
        FakeJudge("weird", result="not a signal"),
        FakeJudge("ok", 0.9, delay=0.05),
    )
    r = await scorer.score(question=Q, context=CTX, response=R)
    assert r.signals["boom"].error == "RuntimeError: parser exploded"
    assert r.signals["limited"].error == "429 after 3 retries"
    assert r.signals["limited"].usage.requests == 4
    assert "not a trustscore.Signal" in (r.signals["weird"].error or "")
    assert r.signals["ok"].value == 0.9
    assert r.score == pytest.approx(0.9) and r.used_signals == ["ok"]
    assert r.complete is True
    assert r.missing.keys() == {"boom", "limited", "weird"}
    assert r.usage.requests == 4 + 1


async def test_signal_named_differently_is_filed_under_its_source() -> None:
    scorer = make_scorer(FakeJudge("lynx", result=Signal(name="other", value=0.3)))
    r = await scorer.score(question=Q, context=CTX, response=R)
    assert r.signals["lynx"].name == "lynx" and r.signals["lynx"].value == 0.3


async def test_no_signal_at_all_gives_no_score() -> None:
    r = await make_scorer(FakeJudge("a", error=ValueError("x"))).score(question=Q, context=CTX, response=R)
    assert r.score is None and r.used_signals == []


async def test_budget_reports_late_signals_missing_and_keeps_the_rest() -> None:
    scorer = make_scorer(FakeJudge("slow", delay=30), FakeJudge("fast", 0.4))
    r = await scorer.score(question=Q, context=CTX, response=R, budget_s=0.2)
    assert r.complete is False
    assert r.signals["slow"].error == "timed out after 0.2s budget"
    assert r.signals["fast"].value == 0.4 and r.score == pytest.approx(0.4)


async def test_config_budget_is_the_default() -> None:
    config = Config.from_dict({"limits": {"score_budget_s": 0.1}})
    r = await make_scorer(FakeJudge("slow", delay=30), config=config).score(
        question=Q, context=CTX, response=R
    )
    assert r.signals["slow"].error == "timed out after 0.1s budget" and not r.complete


async def test_per_judge_timeout_names_the_setting() -> None:
    config = Config.from_dict(
        {
            "endpoints": {"judge": {"base_url": "http://127.0.0.1:9/v1", "model": "m"}},
            "judges": {"lynx": {"endpoint": "judge", "timeout_s": 0.1}},
        }
    )
    scorer = make_scorer(FakeJudge("lynx", delay=30), FakeJudge("likert", 0.5), config=config)
    r = await scorer.score(question=Q, context=CTX, response=R)
    assert r.signals["lynx"].error == "timed out after 0.1s (judges.lynx.timeout_s)"
    # A timed-out judge may answer on a rerun: the row is not complete (resume rescans it).
    assert r.complete is False and r.incomplete_signals == ["lynx"] and r.signals["likert"].value == 0.5


@pytest.mark.parametrize("budget", [0, -1.0])
async def test_bad_budget_is_refused(budget: float) -> None:
    with pytest.raises(ValueError, match="budget_s must be a positive"):
        await make_scorer(FakeJudge("a")).score(question=Q, context=CTX, response=R, budget_s=budget)


async def test_cancelling_score_cancels_its_requests() -> None:
    gate = anyio.Event()
    llm = FakeLLM(gate=gate)
    scorer = make_scorer(FakeJudge("lynx", ask_llm=True), FakeJudge("other", ask_llm=True), llm=llm)
    outcome: list[TrustScore] = []

    async def run() -> None:
        outcome.append(await scorer.score(question=Q, context=CTX, response=R))

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            assert llm.started is not None
            await llm.started.wait()
            await anyio.sleep(0.01)
            tg.cancel_scope.cancel()
    assert llm.cancelled is True
    assert outcome == []
    assert llm.calls == 2


# -- input validation -------------------------------------------------------------------------


async def test_context_string_becomes_one_passage() -> None:
    judge = FakeJudge("a")
    await make_scorer(judge).score(question=Q, context="one passage", response=R)
    assert judge.seen[0].context == ["one passage"]


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"question": 3, "context": CTX, "response": R}, r"question: .*got int 3.*pass the user's question"),
        ({"question": Q, "context": CTX, "response": "  "}, r"response: response is empty"),
        (
            {"question": Q, "context": ["ok", 7], "response": R},
            r"context\[1\]: .*string or a list of strings",
        ),
        ({"question": Q, "context": CTX, "response": None}, r"response: .*got None"),
    ],
)
async def test_bad_input_names_the_field_and_the_fix(kwargs: dict[str, object], expected: str) -> None:
    with pytest.raises(ValueError, match=expected):
        await make_scorer(FakeJudge("a")).score(**kwargs)  # type: ignore[arg-type]


# -- score_many -------------------------------------------------------------------------------


async def test_score_many_keeps_order_and_bounds_concurrency() -> None:
    local = FakeLocal("len", lambda s: (int(s.id or 0) + 1) / 100, delay=0.0)
    delays = [0.05, 0.0, 0.03, 0.01, 0.04, 0.0, 0.02, 0.01]

    class Variable(FakeLocal):
        async def run(self, sample: Sample) -> Signal:
            local.delay = delays[int(sample.id or 0)]
            return await local.run(sample)

    scorer = make_scorer(local=[Variable("len")])
    samples = [{"question": Q, "context": CTX, "response": R, "id": str(i)} for i in range(len(delays))]
    done: list[int] = []
    results = await scorer.score_many(samples, concurrency=3, on_result=lambda i, r: done.append(i))
    assert [r.sample_id for r in results] == [str(i) for i in range(len(delays))]
    assert [r.score for r in results] == pytest.approx([(i + 1) / 100 for i in range(len(delays))])
    assert local.max_in_flight == 3
    assert sorted(done) == list(range(len(delays))) and done != sorted(done)


async def test_score_many_default_bound_comes_from_config() -> None:
    local = FakeLocal("x", delay=0.02)
    config = Config.from_dict({"limits": {"max_concurrent_samples": 2}})
    scorer = make_scorer(local=[local], config=config)
    await scorer.score_many([Sample(question=Q, response=R)] * 7)
    assert local.max_in_flight == 2


async def test_score_many_validates_everything_first_with_the_index() -> None:
    local = FakeLocal("x")
    scorer = make_scorer(local=[local])
    with pytest.raises(ValueError, match=r"samples\[1\]\.question"):
        await scorer.score_many([{"question": Q, "response": R}, {"response": R}])
    with pytest.raises(InputError, match=r"samples\[0\] is a str"):
        await scorer.score_many(["just text"])  # type: ignore[list-item]
    assert local.max_in_flight == 0
    with pytest.raises(ValueError, match="concurrency must be at least 1"):
        await scorer.score_many([{"question": Q, "response": R}], concurrency=0)


class PickyFuser:
    """Raises on one sample: stands for an unexpected bug in a single sample's scoring."""

    def predict(self, signals: Mapping[str, Signal]) -> FusedScore:
        if signals["x"].value == 0.0:
            raise ArithmeticError("fuser bug")
        return FusedScore(score=0.5, calibrated=False, used=["x"], description="picky")


async def test_score_many_unexpected_errors_raise_or_come_back_in_place() -> None:
    scorer = Scorer(
        Config(),
        judges=[],
        local_signals=[FakeLocal("x", lambda s: 0.0 if s.id == "bad" else 1.0)],
        fuser=PickyFuser(),
    )
    samples = [Sample(question=Q, response=R, id=i) for i in ("a", "bad", "c")]
    with pytest.raises(ArithmeticError, match="fuser bug"):
        await scorer.score_many(samples)
    mixed = await scorer.score_many(samples, return_exceptions=True)
    assert isinstance(mixed[0], TrustScore) and isinstance(mixed[1], ArithmeticError)
    assert isinstance(mixed[2], TrustScore) and mixed[2].fusion == "picky"


async def test_score_many_callback_failure_raises() -> None:
    scorer = make_scorer(local=[FakeLocal("x")])

    async def explode(i: int, r: TrustScore) -> None:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        await scorer.score_many([Sample(question=Q, response=R)] * 3, on_result=explode)


async def test_score_many_progress_bar(capsys: pytest.CaptureFixture[str]) -> None:
    results = await make_scorer(local=[FakeLocal("x")]).score_many(
        [Sample(question=Q, response=R)] * 4, progress=True
    )
    assert len(results) == 4
    assert "4/4" in capsys.readouterr().err


async def test_empty_batch() -> None:
    assert await make_scorer(local=[FakeLocal("x")]).score_many([]) == []


# -- results ----------------------------------------------------------------------------------


async def test_trustscore_json_round_trip() -> None:
    scorer = make_scorer(
        FakeJudge("lynx", 0.25),
        FakeJudge("bad", error=KeyError("k")),
        FakeJudge("slow", delay=9),
        local=[FakeLocal("lexical")],
    )
    r = await scorer.score(question=Q, context=CTX, response=R, id="x", budget_s=0.2)
    text = r.model_dump_json()
    back = TrustScore.model_validate_json(text)
    assert back == r
    assert json.loads(text)["signals"]["slow"]["error"] == "timed out after 0.2s budget"


async def test_async_context_manager_closes_only_llms_it_built(tmp_path: Path) -> None:
    injected = FakeLLM()
    async with make_scorer(FakeJudge("a"), llm=injected) as scorer:
        await scorer.score(question=Q, response=R)
    assert injected.closed is False


async def test_duplicate_signal_names_are_refused() -> None:
    with pytest.raises(ConfigError, match="share the name"):
        make_scorer(FakeJudge("x"), local=[FakeLocal("x")])


class _TwoCallJudge:
    """One call that completes, then one that never does: a judge cut off half-way."""

    name = "lynx"
    version = "1"

    async def run(self, sample: Sample, llm: LLM) -> Signal:
        await llm.generate(ChatRequest(prompt="first"))
        await anyio.sleep_forever()
        raise AssertionError("unreachable")


@pytest.mark.parametrize("cut_by", ["judge_timeout", "score_budget"])
async def test_a_judge_cut_off_by_a_deadline_still_reports_what_its_finished_calls_cost(cut_by: str) -> None:
    config = Config(
        endpoints={"e": {"base_url": "http://127.0.0.1:9/v1", "model": "m"}},
        judges={"lynx": {"endpoint": "e", "timeout_s": 0.2 if cut_by == "judge_timeout" else None}},
    )
    scorer = Scorer(config, judges=[_TwoCallJudge()], local_signals=[], llms={"e": FakeLLM()})
    budget = None if cut_by == "judge_timeout" else 0.2
    result = await scorer.score(question="q", context=["c"], response="r", budget_s=budget)
    signal = result.signals["lynx"]
    assert signal.value is None and "timed out" in (signal.error or "")
    assert signal.usage.requests == 1 and signal.usage.prompt_tokens == 10
    assert result.usage.requests == 1
