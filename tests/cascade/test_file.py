"""The fitted cascade file: used by the Scorer, and refused when edited or when its stages, signals or
versions differ from those configured."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scorer_fakes import FakeJudge, FakeLLM, FakeLocal

from cascade.rows import STAGES
from trustscore import CalibratorError, Config, ConfigError, Sample, Signal
from trustscore.fusion._cascade_model import CascadeModel, load_cascade, save_cascade
from trustscore.scoring._scorer import Scorer

pytestmark = pytest.mark.anyio

SAMPLE = dict(question="q?", context=["ctx"], response="answer")


@pytest.fixture
def model(fitted: CascadeModel) -> CascadeModel:
    return fitted


def write_config(folder: Path, stages: tuple[tuple[str, list[str]], ...] = STAGES) -> Path:
    lines = ["[cascade]", 'calibrator = "cascade.json"']
    for name, signals in stages:
        lines += ["[[cascade.stages]]", f'name = "{name}"', f"signals = {json.dumps(signals)}"]
    path = folder / "trustscore.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


class VersionedJudge(FakeJudge):
    """A FakeJudge whose signals carry its version, as real judges' do."""

    async def run(self, sample: Sample, llm: Any) -> Signal:
        return (await super().run(sample, llm)).model_copy(update={"version": self.version})


class VersionedLocal(FakeLocal):
    async def run(self, sample: Sample) -> Signal:
        return (await super().run(sample)).model_copy(update={"version": self.version})


def scorer(config: Path, local_value: float, *, judge_version: str = "fake@1") -> Scorer:
    judges = [VersionedJudge(name, 0.9) for name in ("v", "j1", "j2")]
    for judge in judges:
        judge.version = judge_version
    return Scorer(
        Config.from_toml(config),
        judges=judges,
        local_signals=[VersionedLocal("loc", lambda s: local_value)],
        llms={"judge": FakeLLM()},
    )


async def test_the_scorer_scores_with_the_calibrator_of_the_stage_it_stopped_at(
    tmp_path: Path, model: CascadeModel
) -> None:
    save_cascade(model, tmp_path / "cascade.json")
    config = write_config(tmp_path)
    low, high = model.stages[1].band or (0.0, 1.0)
    sure = await scorer(config, 0.999).score(**SAMPLE)  # far outside the verdict's band
    assert sure.cascade is not None and sure.cascade.stage == "local"
    assert sure.fusion == model.stages[0].calibrator.description
    assert sure.domain is not None  # the stage's calibrator checks its own calibration domain
    assert sure.domain.calibrator == sure.fusion
    assert not low <= (sure.score or 0.0) <= high
    unsure = await scorer(config, 0.5).score(**SAMPLE)
    assert unsure.cascade is not None and unsure.cascade.stage != "local"
    stage = model.stages[unsure.cascade.stage_index]
    assert unsure.fusion == stage.calibrator.description


def test_the_file_round_trips(tmp_path: Path, model: CascadeModel) -> None:
    path = save_cascade(model, tmp_path / "c.json")
    assert CascadeModel.from_json(path.read_text()) == model


def test_an_edited_file_is_refused(tmp_path: Path, model: CascadeModel) -> None:
    data = json.loads(model.to_json())
    data["stages"][1]["band"] = [0.0, 0.01]
    (tmp_path / "cascade.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ConfigError, match="edited after fitting"):
        scorer(write_config(tmp_path), 0.5)


def test_a_file_fitted_for_other_stages_is_refused(tmp_path: Path, model: CascadeModel) -> None:
    save_cascade(model, tmp_path / "cascade.json")
    moved = (("local", ["loc", "v"]), ("ensemble", ["j1", "j2"]))
    with pytest.raises(ConfigError, match="fitted for stages local=loc; verdict=v; ensemble=j1\\+j2"):
        scorer(write_config(tmp_path, moved), 0.5)


def test_a_file_fitted_on_another_signal_version_is_refused(tmp_path: Path, model: CascadeModel) -> None:
    save_cascade(model, tmp_path / "cascade.json")
    with pytest.raises(ConfigError, match="version 'fake@1' but got version 'fake@2'"):
        scorer(write_config(tmp_path), 0.5, judge_version="fake@2")


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"does not exist.*calibrate --cascade"):
        scorer(write_config(tmp_path), 0.5)


def test_a_file_reading_a_signal_that_does_not_run_is_refused(model: CascadeModel) -> None:
    config = Config.from_dict(
        {"cascade": {"calibrator": "x.json", "stages": [{"name": n, "signals": s} for n, s in STAGES]}}
    ).cascade
    versions = {"loc": "local@1", "v": "fake@1", "j1": "fake@1"}
    with pytest.raises(CalibratorError, match=r"reads signal\(s\) \['j2'\] that this scorer does not run"):
        model.check(config, versions, source="cascade file x.json")
    assert load_cascade  # the loader is what the Scorer calls; exercised above


def test_not_json_is_refused() -> None:
    with pytest.raises(CalibratorError, match="not a valid trustscore cascade"):
        CascadeModel.from_json('{"kind": "cascade"}')
