"""``trustscore calibrate -o``: never over the rows it reads or a file trustscore did not write, and
flags out of range are named before a row is read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cascade.test_cli import scored_file
from cascade.test_file import write_config

import trustscore.cli._calibrate as cli_calibrate
from trustscore.cli import main
from trustscore.fusion import load_model
from trustscore.testing._synthetic import make_scored_rows, write_scored_jsonl


@pytest.fixture
def scored(tmp_path: Path) -> Path:
    return write_scored_jsonl(tmp_path / "scored.jsonl", make_scored_rows(40, seed=3))


@pytest.fixture
def no_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fitting fails the test: what is checked here is refused before any fit."""

    def fit(*args: object, **kwargs: object) -> None:
        raise AssertionError("the fit ran")

    monkeypatch.setattr(cli_calibrate, "fit_calibrator", fit)


@pytest.mark.parametrize("adapt", [[], ["--adapt"]], ids=["fit", "adapt"])
@pytest.mark.usefixtures("no_fit")
def test_the_rows_it_reads_or_a_file_of_the_user_are_never_written_over(
    scored: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], adapt: list[str]
) -> None:
    labeled = tmp_path / "labeled.jsonl"
    labeled.write_text(json.dumps({"question": "q", "response": "r", "hallucinated": 1}) + "\n")
    for target in (scored, labeled, scored.parent / "." / scored.name):
        before = target.read_bytes()
        assert main(["calibrate", str(scored), *adapt, "-o", str(target)]) == 2
        assert "is not a trustscore calibrator; trustscore writes a calibrator only to a new path" in (
            capsys.readouterr().err
        )
        assert target.read_bytes() == before


@pytest.mark.usefixtures("no_fit")
def test_a_folder_is_refused_before_the_fit(
    scored: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["calibrate", str(scored), "-o", str(tmp_path)]) == 2
    assert "is a directory; give the path of the calibrator file to write in it" in capsys.readouterr().err


def test_a_rerun_replaces_its_own_calibrator(scored: Path, tmp_path: Path) -> None:
    out = tmp_path / "mine.json"
    assert main(["calibrate", str(scored), "-o", str(out), "--folds", "3"]) == 0
    first = load_model(out)
    assert main(["calibrate", str(scored), "-o", str(out), "--l2", "10", "--folds", "3"]) == 0
    second = load_model(out)
    assert (first.training.l2, second.training.l2) == (1.0, 10.0)


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--l2", "-1", "--l2 -1.0: input should be greater than or equal to 0"),
        ("--l2", "nan", "--l2 nan: input should be a finite number"),
        ("--l2", "inf", "--l2 inf: input should be a finite number"),
        ("--folds", "1", "--folds 1: input should be greater than or equal to 2"),
        ("--post-hoc-fraction", "1", "--post-hoc-fraction 1.0: input should be less than 1"),
        ("--post-hoc-fraction", "0", "--post-hoc-fraction 0.0: input should be greater than 0"),
    ],
)
def test_a_fitting_flag_out_of_range_is_named_before_any_row_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, value: str, message: str
) -> None:
    missing = tmp_path / "not-there.jsonl"
    assert main(["calibrate", str(missing), "-o", str(tmp_path / "x.json"), flag, value]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_calibrate_cascade_never_writes_over_its_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = scored_file(tmp_path)
    before = rows.read_bytes()
    config = write_config(tmp_path)
    assert main(["calibrate", "--cascade", "--config", str(config), str(rows), "-o", str(rows)]) == 2
    assert "is not a trustscore cascade" in capsys.readouterr().err
    assert rows.read_bytes() == before
