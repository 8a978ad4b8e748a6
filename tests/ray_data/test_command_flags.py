"""The --ray flags of ``trustscore score`` without Ray running (default suite; Ray need not be installed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from trustscore.cli import main


@pytest.mark.parametrize(
    "flags", [["--actors", "2"], ["--address", "auto"], ["--batch-size", "8"], ["--gpus-per-actor", "1"]]
)
def test_ray_only_flags_without_ray_are_refused(
    tmp_path: Path, flags: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text('{"question": "q", "response": "r"}\n', encoding="utf-8")
    assert main(["score", str(source), "-o", str(tmp_path / "out.jsonl"), *flags]) == 2
    assert "only apply with --ray" in capsys.readouterr().err
    assert not (tmp_path / "out.jsonl").exists()


def test_the_command_line_does_not_import_ray_until_asked() -> None:
    code = (
        "import sys, trustscore.cli as c; c.build_parser()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('ray', 'pyarrow', 'pandas')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("0", "positive number"),
        ("-1", "positive number"),
        ("1.5", "whole number"),
        ("one", "such as 1 or 0.5"),
    ],
)
def test_bad_gpus_per_actor_is_refused_naming_the_flag(
    tmp_path: Path, value: str, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text('{"question": "q", "response": "r"}\n', encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        main(["score", str(source), "-o", str(tmp_path / "out.jsonl"), "--ray", "--gpus-per-actor", value])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--gpus-per-actor" in err and why in err


def test_ray_output_equal_to_the_input_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text('{"question": "q", "response": "r"}\n', encoding="utf-8")
    assert main(["score", str(source), "-o", str(source), "--ray"]) == 2
    assert "is the input" in capsys.readouterr().err
    assert source.read_text(encoding="utf-8") == '{"question": "q", "response": "r"}\n'
