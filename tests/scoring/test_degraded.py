"""A degraded result (a signal that ran gave no value) says so, never claims certainty, and returns what
``fusion.on_missing`` asks for."""

from __future__ import annotations

from pathlib import Path

import pytest
from scorer_fakes import FakeJudge, FakeLLM, FakeLocal

from trustscore import Config, DegradedScoreError, Scorer, Signal, TrustscoreError
from trustscore._errors import JudgeFailure
from trustscore.fusion._fuser import DefaultFuser
from trustscore.testing import Fault, MockRouter

pytestmark = pytest.mark.anyio

SAMPLE = {
    "question": "Who wrote Hamlet?",
    "context": ["Hamlet was written by William Shakespeare around 1600."],
    "response": "Shakespeare wrote Hamlet.",
}


def _config(router: MockRouter, **fusion: str) -> Config:
    return Config.from_dict(
        {
            "endpoints": {"judge": {"base_url": router.base_url, "model": "fake-judge", "max_retries": 0}},
            "judges": {"lynx": {"endpoint": "judge"}, "likert": {"endpoint": "judge"}},
            "signals": {"embedding": {"enabled": False}, "claims": {"enabled": False}},
            "cache": {"mode": "off"},
            "fusion": fusion,
        }
    )


def _router_of_500s() -> MockRouter:
    router = MockRouter()
    router.faults.add(Fault.server_error())
    return router


async def test_two_judges_answering_500_give_a_degraded_result_that_claims_no_certainty() -> None:
    router = _router_of_500s()
    async with Scorer(_config(router), transport=router.transport) as scorer:
        result = await scorer.score(**SAMPLE)
    assert result.degraded
    assert set(result.missing) == {"lynx", "likert"} and "500" in result.missing["lynx"]
    assert result.used_signals == ["lexical"]
    assert result.score is not None and 0.01 <= result.score <= 0.99  # lexical alone says 1.0


async def test_on_missing_none_returns_no_score_and_raise_names_the_missing_signals() -> None:
    router = _router_of_500s()
    async with Scorer(_config(router, on_missing="none"), transport=router.transport) as scorer:
        result = await scorer.score(**SAMPLE)
    assert result.score is None and result.degraded and not result.calibrated
    assert "on_missing" in (result.not_calibrated_reason or "")

    async with Scorer(_config(router, on_missing="raise"), transport=router.transport) as scorer:
        with pytest.raises(DegradedScoreError) as caught:
            await scorer.score(**SAMPLE)
    assert isinstance(caught.value, TrustscoreError)
    assert set(caught.value.missing) == {"lynx", "likert"}
    assert "lynx" in str(caught.value) and "likert" in str(caught.value)
    assert caught.value.result is not None and caught.value.result.degraded


async def test_a_result_with_every_signal_present_is_not_degraded_whatever_on_missing_says() -> None:
    config = Config.from_dict({"fusion": {"on_missing": "raise"}})
    local = [FakeLocal("l", lambda s: 0.7)]
    scorer = Scorer(config, judges=[FakeJudge("j", 0.8)], local_signals=local, llms={"e": FakeLLM()})
    result = await scorer.score(**SAMPLE)
    assert not result.degraded and result.missing == {} and result.score is not None


async def test_a_judge_that_fails_for_a_reason_of_its_own_degrades_the_result() -> None:
    scorer = Scorer(
        judges=[FakeJudge("j", error=JudgeFailure("unparseable verdict"))],
        local_signals=[FakeLocal("l", lambda s: 0.0)],
        llms={"e": FakeLLM()},
    )
    result = await scorer.score(**SAMPLE)
    assert result.degraded and "unparseable verdict" in result.missing["j"]
    assert result.score == pytest.approx(0.01)  # one signal at 0.0 does not say 0.0


@pytest.mark.parametrize("value", [0.0, 1.0])
def test_the_default_fuser_clips_a_lone_signal(value: float) -> None:
    fused = DefaultFuser({}).predict({"a": Signal(name="a", value=value)})
    assert fused.score == pytest.approx(0.01 if value == 0.0 else 0.99)


def test_on_missing_is_checked_in_the_config(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="on_missing"):
        Config.from_dict({"fusion": {"on_missing": "skip"}})


async def test_signals_a_cascade_skipped_do_not_make_a_result_degraded() -> None:
    stages = [
        {"name": "local", "signals": ["loc"]},
        {"name": "judges", "signals": ["j1", "j2"], "band": [0.3, 0.7]},
    ]
    config = Config.from_dict({"cascade": {"stages": stages}, "fusion": {"on_missing": "raise"}})
    judges = [FakeJudge("j1", error=JudgeFailure("down")), FakeJudge("j2", error=JudgeFailure("down"))]
    sure = [FakeLocal("loc", lambda s: 0.95)]
    scorer = Scorer(config, judges=judges, local_signals=sure, llms={"e": FakeLLM()})
    result = await scorer.score(**SAMPLE)
    assert result.cascade is not None and result.cascade.skipped == ["j1", "j2"]
    assert not result.degraded and result.score == pytest.approx(0.95)
    with pytest.raises(DegradedScoreError, match="j1"):  # an unsure sample runs them: now they are missing
        unsure = [FakeLocal("loc", lambda s: 0.5)]
        scorer_unsure = Scorer(config, judges=judges, local_signals=unsure, llms={"e": FakeLLM()})
        await scorer_unsure.score(**SAMPLE)
