"""`trustscore api`'s start-up refusals: one clear line, no traceback, no hang."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")

from trustscore.cli import main


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda tmp: Path("/dev/zero"), "not a regular file"),
        (lambda tmp: _fifo(tmp), "not a regular file"),
        (lambda tmp: _write(tmp, b"\xff\xfekey\n"), "not UTF-8"),
        (lambda tmp: _write(tmp, b"k" * (2**20 + 1)), "bytes"),
    ],
    ids=["dev-zero", "fifo", "not-utf8", "huge"],
)
def test_a_bad_api_key_file_is_one_line(
    make: object, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    assert main(["api", "--api-key-file", str(path), "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert says in err and "API key file" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def _fifo(tmp: Path) -> Path:
    path = tmp / "keys.fifo"
    os.mkfifo(path)
    return path


def _write(tmp: Path, data: bytes) -> Path:
    path = tmp / "keys.txt"
    path.write_bytes(data)
    return path
