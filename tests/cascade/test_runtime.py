"""The cascade at scoring time: stages run in order, a sure score stops the sample, skipped is not missing."""

from __future__ import annotations

import math
from typing import Any

import anyio
import pytest
from scorer_fakes import FakeJudge, FakeLLM, FakeLocal

from trustscore import Config, ConfigError, Sample, TrustScore
from trustscore.scoring._scorer import Scorer

pytestmark = pytest.mark.anyio

SAMPLE = dict(question="q?", context=["ctx"], response="answer")


def cascade_config(**stage_overrides: Any) -> Config:
    """local -> verdict (runs when the local score is in [0.3, 0.7]) -> ensemble (always after verdict)."""
    stages = [
        {"name": "local", "signals": ["loc"]},
        {"name": "verdict", "signals": ["v"], "band": [0.3, 0.7]},
        {"name": "ensemble", "signals": ["j1", "j2"], "always": True},
    ]
    for index, override in stage_overrides.items():
        stages[int(index.removeprefix("s"))].update(override)
    return Config.from_dict({"cascade": {"stages": stages}})


def scorer_with(local_value: float, config: Config | None = None) -> tuple[Scorer, dict[str, FakeJudge]]:
    judges = {name: FakeJudge(name, 0.9) for name in ("v", "j1", "j2")}
    scorer = Scorer(
        config or cascade_config(),
        judges=list(judges.values()),
        local_signals=[FakeLocal("loc", lambda s: local_value)],
        llms={"judge": FakeLLM()},
    )
    return scorer, judges


async def test_a_sure_local_score_stops_at_the_first_stage() -> None:
    scorer, judges = scorer_with(0.95)
    result = await scorer.score(**SAMPLE)
    assert result.cascade is not None
    assert (result.cascade.stage, result.cascade.stage_index) == ("local", 0)
    assert result.cascade.skipped == ["v", "j1", "j2"]
    assert all(not j.seen for j in judges.values())
    assert list(result.signals) == ["loc"]
    assert result.complete and result.incomplete_signals == []
    assert result.missing == {}
    assert result.score == pytest.approx(0.95)
    assert result.usage.requests == 0


async def test_an_unsure_score_runs_the_next_stages() -> None:
    scorer, judges = scorer_with(0.5)
    result = await scorer.score(**SAMPLE)
    assert result.cascade is not None
    assert (result.cascade.stage, result.cascade.skipped) == ("ensemble", [])
    assert all(len(j.seen) == 1 for j in judges.values())
    assert set(result.signals) == {"loc", "v", "j1", "j2"}
    assert result.usage.requests == 3


async def test_the_band_is_read_on_the_score_of_the_stages_so_far() -> None:
    # The verdict's 0.9 pooled with the local 0.5 leaves the band [0.3, 0.7] of the last stage behind.
    config = cascade_config(s2={"always": False, "band": [0.3, 0.7]})
    scorer, judges = scorer_with(0.5, config)
    result = await scorer.score(**SAMPLE)
    assert result.cascade is not None
    assert (result.cascade.stage, result.cascade.skipped) == ("verdict", ["j1", "j2"])
    assert not judges["j1"].seen
    # the log-odds pool of the local 0.5 (weight 0.5) and the judge's 0.9 (a judge's weight, 1)
    assert result.score == pytest.approx(1 / (1 + math.exp(-math.log(9) / 1.5)))


async def test_a_stage_with_no_value_so_far_goes_on() -> None:
    scorer = Scorer(
        cascade_config(),
        judges=[FakeJudge("v"), FakeJudge("j1"), FakeJudge("j2")],
        local_signals=[_Failing("loc")],
        llms={"judge": FakeLLM()},
    )
    result = await scorer.score(**SAMPLE)
    assert result.cascade is not None and result.cascade.stage == "ensemble"
    assert result.signals["loc"].missing


class _Failing(FakeLocal):
    async def run(self, sample: Sample) -> Any:
        raise RuntimeError("broken")


async def test_score_many_and_stream_stop_each_sample_on_its_own() -> None:
    values = {"sure": 0.95, "unsure": 0.5}
    scorer = Scorer(
        cascade_config(),
        judges=[FakeJudge("v"), FakeJudge("j1"), FakeJudge("j2")],
        local_signals=[FakeLocal("loc", lambda s: values[s.id or ""])],
        llms={"judge": FakeLLM()},
    )
    samples = [Sample(id=i, **SAMPLE) for i in ("sure", "unsure", "sure")]  # type: ignore[arg-type]
    many = await scorer.score_many(samples)
    assert [r.cascade.stage for r in many if r.cascade] == ["local", "ensemble", "local"]
    streamed: dict[int, TrustScore] = {}
    async with scorer.stream(samples) as results:
        async for index, result in results:
            assert isinstance(result, TrustScore)
            streamed[index] = result
    assert [streamed[i].cascade.stage for i in range(3)] == ["local", "ensemble", "local"]  # type: ignore[union-attr]


async def test_the_budget_spans_every_stage_and_a_cut_stage_is_incomplete_not_skipped() -> None:
    gate = anyio.Event()  # never set: the verdict's judge waits until the budget cuts it
    scorer = Scorer(
        cascade_config(),
        judges=[FakeJudge("v", ask_llm=True), FakeJudge("j1"), FakeJudge("j2")],
        local_signals=[FakeLocal("loc", lambda s: 0.5)],
        llms={"judge": FakeLLM(gate=gate)},
    )
    result = await scorer.score(**SAMPLE, budget_s=0.2)
    assert result.cascade is not None
    assert (result.cascade.stage, result.cascade.skipped) == ("verdict", [])
    assert not result.complete
    assert set(result.incomplete_signals) == {"v", "j1", "j2"}
    assert "budget" in (result.signals["j1"].error or "")


async def test_hand_set_bands_score_with_the_scorers_fuser() -> None:
    scorer, _ = scorer_with(0.95)
    result = await scorer.score(**SAMPLE)
    assert result.fusion == "default:logodds"
    assert result.used_signals == ["loc"]


async def test_no_cascade_section_leaves_results_without_one() -> None:
    scorer = Scorer(Config(), judges=[FakeJudge("v")], local_signals=[], llms={"judge": FakeLLM()})
    result = await scorer.score(**SAMPLE)
    assert result.cascade is None
    assert list(result.signals) == ["v"]


def test_a_stage_naming_a_signal_the_scorer_does_not_run_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"\['j2'\].*does not run"):
        Scorer(
            cascade_config(),
            judges=[FakeJudge("v"), FakeJudge("j1")],
            local_signals=[FakeLocal("loc")],
            llms={"judge": FakeLLM()},
        )


def test_a_running_signal_in_no_stage_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"\['extra'\] run but are in no"):
        Scorer(
            cascade_config(),
            judges=[FakeJudge("v"), FakeJudge("j1"), FakeJudge("j2"), FakeJudge("extra")],
            local_signals=[FakeLocal("loc")],
            llms={"judge": FakeLLM()},
        )


def test_score_sync_runs_the_cascade() -> None:
    scorer, judges = scorer_with(0.95)
    result = scorer.score_sync(**SAMPLE)
    assert result.cascade is not None and result.cascade.stage == "local"
    assert not judges["v"].seen
