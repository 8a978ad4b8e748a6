"""``trustscore calibrate --cascade`` and ``trustscore score`` through a cascade."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from scorer_fakes import FakeJudge, FakeLLM, FakeLocal

import trustscore.cli._score as cli_score
from cascade.rows import cascade_rows
from cascade.test_file import write_config
from trustscore import Config
from trustscore.cli import main
from trustscore.fusion._cascade_model import CascadeModel
from trustscore.scoring._scorer import Scorer


def scored_file(folder: Path) -> Path:
    path = folder / "scored.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for row in cascade_rows(40):
            signals = {name: s.model_dump(mode="json") for name, s in row.signals.items()}
            f.write(json.dumps({"id": row.id, "score": None, "signals": signals, **row.fields}) + "\n")
    return path


def test_calibrate_cascade_writes_a_file_the_config_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path)
    out = tmp_path / "cascade.json"
    assert (
        main(["calibrate", "--cascade", "--config", str(config), str(scored_file(tmp_path)), "-o", str(out)])
        == 0
    )
    model = CascadeModel.from_json(out.read_text(encoding="utf-8"))
    assert [s.name for s in model.stages] == ["local", "verdict", "ensemble"]
    assert model.quality.max_loss == 0.01
    printed = capsys.readouterr().out
    assert "of the judge requests saved" in printed
    assert "bands chosen on the other folds" in printed


def test_calibrate_cascade_with_an_accuracy_constraint(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    out = tmp_path / "cascade.json"
    argv = ["calibrate", "--cascade", "--config", str(config), str(scored_file(tmp_path)), "-o", str(out)]
    assert main([*argv, "--max-accuracy-loss", "0.02", "--threshold", "0.5", "--cost", "tokens"]) == 0
    model = CascadeModel.from_json(out.read_text(encoding="utf-8"))
    assert (model.quality.metric, model.quality.threshold, model.cost) == ("accuracy", 0.5, "tokens")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "--cascade needs --config"),
        (["--config", "CONFIG", "--max-accuracy-loss", "0.01"], "needs --threshold"),
        (["--config", "CONFIG", "--threshold", "0.5"], "--threshold goes with --max-accuracy-loss"),
        (["--config", "CONFIG", "--max-auroc-loss", "2"], r"--max-auroc-loss must lie in \[0, 1\]"),
        (["--config", "CONFIG", "--features", "loc"], "--features does not apply with --cascade"),
        (["--config", "PLAIN"], "has no \\[\\[cascade.stages\\]\\]"),
    ],
)
def test_calibrate_cascade_refuses_bad_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    config = write_config(tmp_path)
    plain = tmp_path / "plain.toml"
    plain.write_text("", encoding="utf-8")
    extra = [str(config) if a == "CONFIG" else str(plain) if a == "PLAIN" else a for a in extra]
    argv = ["calibrate", "--cascade", str(scored_file(tmp_path)), "-o", str(tmp_path / "c.json"), *extra]
    assert main(argv) == 2
    assert re.search(message, capsys.readouterr().err)


def test_calibrate_cascade_names_a_signal_the_file_lacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, (("local", ["loc"]), ("judges", ["v", "j1", "j9"])))
    argv = [
        "calibrate",
        "--cascade",
        "--config",
        str(config),
        str(scored_file(tmp_path)),
        "-o",
        str(tmp_path / "c.json"),
    ]
    assert main(argv) == 2
    assert "['j9']" in capsys.readouterr().err


def test_score_writes_where_each_row_stopped_and_the_spend_against_the_full_ensemble(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = Config.from_dict(
        {
            "cascade": {
                "stages": [
                    {"name": "local", "signals": ["loc"]},
                    {"name": "judges", "signals": ["j1", "j2"], "band": [0.3, 0.7]},
                ]
            }
        }
    )
    values = {"sure": 0.95, "unsure": 0.5}

    def build(path: Path | None, *, no_cache: bool) -> Scorer:
        return Scorer(
            config,
            judges=[FakeJudge("j1"), FakeJudge("j2")],
            local_signals=[FakeLocal("loc", lambda s: values[s.response])],
            llms={"judge": FakeLLM()},
        )

    monkeypatch.setattr(cli_score, "build_scorer", build)
    src = tmp_path / "in.jsonl"
    responses = ["sure", "unsure", "sure", "sure"]
    src.write_text(
        "".join(
            json.dumps({"id": f"s{i}", "question": "q", "response": r}) + "\n"
            for i, r in enumerate(responses)
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 0
    rows = {r["id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert rows["s0"]["cascade"] == {"stage": "local", "stage_index": 0, "skipped": ["j1", "j2"]}
    assert rows["s0"]["complete"] and list(rows["s0"]["signals"]) == ["loc"]
    assert rows["s1"]["cascade"]["stage"] == "judges"
    printed = capsys.readouterr().out
    # 1 row ran both judges (1 request each); 3 rows skipped them: the full ensemble would send 8.
    assert "rows stopped at local 3, judges 1" in printed
    assert (
        "spent 2 requests" in printed
        and "about 8 requests" in printed
        and "75.0% of the requests saved" in printed
    )
