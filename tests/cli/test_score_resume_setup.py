"""``trustscore score`` resumes only into rows scored the way this run scores: another fusion, other
signals or another version of one refuse the run (exit 2, nothing scored, the output as it was)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scorer_fakes import FakeLocal

import trustscore.cli._score as cli_score
from trustscore import Config, Sample, Scorer, Signal
from trustscore.cli import main
from trustscore.fusion._fuser import DefaultFuser
from trustscore.rows._setup import RowPlace, RowSetup, SetupTally, row_setup, setup_mismatch

ROWS = [
    {
        "id": f"s{i}",
        "question": "Who wrote Dune?",
        "context": ["Dune is by Frank Herbert."],
        "response": "Frank Herbert.",
        "label": i % 2,
    }
    for i in range(3)
]


class MyCalibrator(DefaultFuser):
    description = "calibrator:mine@0123456789ab"


def use_scorer(monkeypatch: pytest.MonkeyPatch, *names: str, fuser: DefaultFuser | None = None) -> None:
    def build(config: Path | None, *, no_cache: bool) -> Scorer:
        return Scorer(Config(), judges=[], local_signals=[FakeLocal(n) for n in names], fuser=fuser)

    monkeypatch.setattr(cli_score, "build_scorer", build)


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def score(src: Path, out: Path, *flags: str) -> int:
    return main(["score", str(src), "-o", str(out), "--no-progress", *flags])


def test_other_signals_refuse_the_resume_naming_them_and_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    use_scorer(monkeypatch, "lexical", "embedding")
    assert score(write(tmp_path / "in.jsonl", ROWS[:2]), out) == 0
    before = out.read_bytes()
    capsys.readouterr()

    use_scorer(monkeypatch, "lexical", "claims")
    assert score(write(tmp_path / "in.jsonl", ROWS), out) == 2
    err = capsys.readouterr().err
    assert "2 earlier row(s), the first on line 1" in err
    assert "signal(s) embedding this run does not run" in err and "signal(s) claims they lack" in err
    assert "score into a new output file, or delete" in err
    assert out.read_bytes() == before


def test_another_calibrator_refuses_the_resume_naming_both_fusions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    use_scorer(monkeypatch, "lexical")
    assert score(write(tmp_path / "in.jsonl", ROWS[:1]), out) == 0
    before = out.read_bytes()
    capsys.readouterr()

    use_scorer(monkeypatch, "lexical", fuser=MyCalibrator())
    for flags in ((), ("--retry-incomplete",)):
        assert score(write(tmp_path / "in.jsonl", ROWS), out, *flags) == 2
        err = capsys.readouterr().err
        assert "fusion 'default:logodds' (this run: 'calibrator:mine@0123456789ab')" in err
        assert out.read_bytes() == before


def test_the_same_setup_resumes_past_error_rows_and_incomplete_rows_retried_under_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out.jsonl"
    use_scorer(monkeypatch, "lexical")
    invalid = {"id": "bad", "question": "q"}  # no response
    assert score(write(tmp_path / "in.jsonl", [*ROWS[:1], invalid]), out) == 3
    src = write(tmp_path / "in.jsonl", [*ROWS, invalid])
    assert score(src, out) == 0  # the error row records no setup; the rest resume
    assert sorted(json.loads(line)["id"] for line in out.read_text().splitlines()) == [
        "bad",
        "s0",
        "s1",
        "s2",
    ]

    # Incomplete rows of another setup are dropped by --retry-incomplete, so they mix nothing.
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    for row in rows:
        row["complete"], row["incomplete_signals"] = False, ["lexical"]
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    use_scorer(monkeypatch, "lexical", "claims")
    assert score(src, out) == 2  # kept without --retry-incomplete, they are compared too
    assert score(src, out, "--retry-incomplete") == 3
    fresh = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["id"]: sorted(r["signals"]) for r in fresh if r["signals"]} == {
        i: ["claims", "lexical"] for i in ("s0", "s1", "s2")
    }


class Versioned(FakeLocal):
    """A local signal whose results carry its version, as the real signals' do."""

    def __init__(self, name: str, version: str) -> None:
        super().__init__(name)
        self.version = version

    async def run(self, sample: Sample) -> Signal:
        found = await super().run(sample)
        return found.model_copy(update={"version": self.version})


def test_another_version_of_a_signal_refuses_the_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Same names, same fusion, but a signal that reads otherwise (another model, prompt or release)."""
    out = tmp_path / "out.jsonl"

    def scorer_of(version: str) -> Any:
        def build(config: Path | None, *, no_cache: bool) -> Scorer:
            return Scorer(Config(), judges=[], local_signals=[Versioned("lexical", version)])

        return build

    monkeypatch.setattr(cli_score, "build_scorer", scorer_of("lexical/1"))
    assert score(write(tmp_path / "in.jsonl", ROWS[:1]), out) == 0
    assert score(write(tmp_path / "in.jsonl", ROWS[:2]), out) == 0  # the same version resumes
    capsys.readouterr()
    monkeypatch.setattr(cli_score, "build_scorer", scorer_of("lexical/2"))
    assert score(write(tmp_path / "in.jsonl", ROWS), out) == 2
    assert "signal version(s) lexical 'lexical/1' (this run: 'lexical/2')" in capsys.readouterr().err


def test_a_row_records_its_cascade_skipped_signals_and_old_rows_record_nothing() -> None:
    row = {
        "fusion": "calibrator:x@1",
        "signals": {"lexical": {"name": "lexical", "value": 0.9, "version": "lexical/9"}},
        "cascade": {"stage": "local", "skipped": ["lynx"]},
    }
    setup = row_setup(row)
    assert setup is not None and setup.signals == {"lexical", "lynx"}
    assert setup.versions == {("lexical", "lexical/9")}
    assert row_setup({"id": "a", "score": 0.5}) is None  # written before rows recorded their setup
    assert row_setup({"fusion": "none", "signals": {}}) is None  # an error row
    tally = SetupTally()
    tally.add("a", setup, RowPlace("line", 1), complete=True)
    same = {"lexical": "lexical/9", "lynx": None}
    assert setup_mismatch(tally, ["calibrator:x@1"], same, keep_incomplete=True) is None


def test_a_row_a_later_row_of_its_id_replaced_is_not_counted() -> None:
    """Of rows with one id the last stands (a rescored row, a row written twice); the tally counts it
    alone, and names the first standing row of each setup."""
    old = RowSetup("default:logodds", frozenset({"lexical", "embedding"}), frozenset())
    new = RowSetup("default:logodds", frozenset({"lexical"}), frozenset())
    tally = SetupTally()
    tally.add("s0", old, RowPlace("line", 1), complete=False)
    tally.add("s1", old, RowPlace("line", 2), complete=True)
    tally.add("s0", new, RowPlace("line", 3), complete=True)  # s0 scored again
    tally.add("s1", None, RowPlace("line", 4), complete=False)  # an error row replaced s1's row
    tally.add("s2", old, RowPlace("row", 5, "part-1.parquet"), complete=True)
    tally.add("s2", old, RowPlace("row", 6, "part-1.parquet"), complete=True)  # written twice
    items = [(setup, str(where), done, undone) for setup, where, done, undone in tally.items()]
    assert items == [(new, "line 3", 1, 0), (old, "row 6 of part-1.parquet", 1, 0)]
    assert tally.items() is tally.items()  # one pass over the ids for every question asked of it
    tally.add("s2", new, RowPlace("line", 7), complete=False)  # a row added after: counted again
    assert [(setup, done, undone) for setup, _, done, undone in tally.items()] == [(new, 1, 1)]


def test_a_resume_compares_only_the_rows_that_stand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An output whose only row of another setup was replaced by a later row of its id, scored as this
    run scores, resumes; rows written twice count once in a refusal."""
    out, other = tmp_path / "out.jsonl", tmp_path / "other.jsonl"
    use_scorer(monkeypatch, "lexical", "embedding")
    assert score(write(tmp_path / "in.jsonl", ROWS[:1]), out) == 0
    use_scorer(monkeypatch, "lexical")
    assert score(write(tmp_path / "in.jsonl", ROWS[:1]), other) == 0
    with out.open("a", encoding="utf-8") as f:
        f.write(other.read_text(encoding="utf-8"))  # s0 again, scored with lexical alone
    capsys.readouterr()
    assert score(write(tmp_path / "in.jsonl", ROWS), out) == 0, capsys.readouterr().err
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["s0", "s0", "s1", "s2"]

    lines = out.read_text().splitlines()
    out.write_text("\n".join([lines[1], *lines[1:]]) + "\n", encoding="utf-8")  # s0's row twice
    use_scorer(monkeypatch, "claims")
    assert score(write(tmp_path / "in.jsonl", ROWS), out) == 2
    assert "3 earlier row(s), the first on line 2, were scored with" in capsys.readouterr().err
