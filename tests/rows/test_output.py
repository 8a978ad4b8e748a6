"""OutputFile.drop rewrites a result file atomically and leaves nothing of its own behind on failure."""

from __future__ import annotations

from pathlib import Path

import pytest

import trustscore.rows._output as output
from trustscore.rows import IdIndex


def _row(sample_id: str) -> dict[str, object]:
    return {"id": sample_id, "score": 0.5, "complete": False}


def test_drop_keeps_the_other_rows(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    with output.OutputFile.open(path) as out:
        out.write(_row("a"))
        out.write(_row("b"))
        gone = IdIndex()
        gone.add("a", 0)
        out.drop(gone)
    assert [line for line in path.read_text().splitlines() if line] == [output.row_line(_row("b")).strip()]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


def test_a_failure_that_is_no_os_error_still_removes_the_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "out.jsonl"
    with output.OutputFile.open(path) as out:
        out.write(_row("a"))
        before = path.read_bytes()

        def broken(text: str) -> tuple[str, bool]:
            raise RuntimeError("unreadable row")

        monkeypatch.setattr(output, "row_state", broken)
        with pytest.raises(RuntimeError, match="unreadable row"):
            out.drop(IdIndex())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]
    assert path.read_bytes() == before
