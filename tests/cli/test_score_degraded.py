"""``trustscore score`` says which rows are degraded, and a run whose judges all failed is no success."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scorer_fakes import FakeJudge, FakeLLM, FakeLocal

import trustscore.cli._score as cli_score
from trustscore import Config, Scorer
from trustscore._errors import JudgeFailure
from trustscore.cli import main

ROWS = [
    {"id": f"s{i}", "question": "Who wrote Dune?", "context": "Dune is by Herbert.", "response": "Herbert."}
    for i in range(3)
]


@pytest.fixture
def src(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def use(monkeypatch: pytest.MonkeyPatch, *judges: FakeJudge) -> None:
    def build(config: Path | None, *, no_cache: bool) -> Scorer:
        local = [FakeLocal("lexical", lambda s: 1.0)]
        return Scorer(Config(), judges=list(judges), local_signals=local, llms={"e": FakeLLM()})

    monkeypatch.setattr(cli_score, "build_scorer", build)


def test_judges_failing_for_a_reason_of_their_own_on_every_row_exit_1_and_rows_say_degraded(
    src: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    use(monkeypatch, FakeJudge("lynx", error=JudgeFailure("no verdict in the answer")))
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 1
    captured = capsys.readouterr()
    assert "every judge failed on all 3 scored row(s)" in captured.err and "no verdict" in captured.err
    assert "degraded: 3 of 3 row(s)" in captured.out and "lynx: JudgeFailure: no verdict" in captured.out
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(r["degraded"] and r["score"] == 0.99 for r in rows)  # lexical alone: 1.0, clipped


def test_a_run_whose_judges_answer_is_clean_and_not_degraded(
    src: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    use(monkeypatch, FakeJudge("lynx", 0.9))
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 0
    assert "degraded" not in capsys.readouterr().out
    assert not any(json.loads(line)["degraded"] for line in out.read_text().splitlines())


@pytest.mark.parametrize(("on_error", "status"), [("record", 3), ("stop", 1)])
def test_on_missing_raise_makes_a_degraded_row_an_error_row_or_stops_the_run(
    src: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    on_error: str,
    status: int,
) -> None:
    def build(config: Path | None, *, no_cache: bool) -> Scorer:
        failing = FakeLocal("flaky", lambda s: 1 / 0 if s.id == "s1" else 0.8)
        config = Config.from_dict({"fusion": {"on_missing": "raise"}})
        return Scorer(config, judges=[], local_signals=[failing])

    monkeypatch.setattr(cli_score, "build_scorer", build)
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-o", str(out), "--no-progress", "--on-error", on_error]) == status
    err = capsys.readouterr().err
    assert "degraded result" in err and "flaky" in err
    if on_error == "record":
        rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
        assert rows["s1"]["score"] is None and "on_missing" in rows["s1"]["error"] and rows["s1"]["line"] == 2
        assert rows["s0"]["score"] == pytest.approx(0.8)
