"""``trustscore score``'s number flags: a bad value is refused by the flag's name with what it
accepts, before anything is read or scored (never by the Python argument it becomes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trustscore.cli import main


@pytest.mark.parametrize(
    ("flag", "value", "accepts"),
    [
        ("--budget", "inf", "a finite number of seconds above 0"),
        ("--budget", "1e400", "a finite number of seconds above 0"),
        ("--budget", "nan", "a finite number of seconds above 0"),
        ("--budget", "-1", "a finite number of seconds above 0"),
        ("--budget", "0", "a finite number of seconds above 0"),
        ("--budget", "soon", "a finite number of seconds above 0"),
        ("--concurrency", "many", "a whole number, at least 1"),
        ("--concurrency", "0", "at least 1"),
    ],
)
def test_a_bad_value_names_the_flag_and_what_it_accepts(
    tmp_path: Path, flag: str, value: str, accepts: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text('{"question": "q", "response": "r"}\n', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    with pytest.raises(SystemExit) as exit_info:
        main(["score", str(source), "-o", str(out), "--no-progress", f"{flag}={value}"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}: must be" in err and accepts in err
    assert "budget_s" not in err and "_positive" not in err
    assert not out.exists()


@pytest.mark.parametrize("flag", ["--actors", "--batch-size"])
def test_a_ray_count_that_is_no_number_names_the_flag(
    tmp_path: Path, flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["score", "in.jsonl", "-o", str(tmp_path / "out"), "--ray", flag, "two"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}: must be a whole number, at least 1 (got 'two')" in err
