"""calibration.merge_signal puts one signal's rescored rows into a scored file and says what changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from calibration.merge_signal import main


def _row(
    row_id: str, value: float, contradicted: int, unsupported: int, hallucinated: bool | None
) -> dict[str, Any]:
    claims = {"value": value, "raw": {"contradicted": contradicted, "unsupported": unsupported}}
    row = {
        "id": row_id,
        "dataset": "records",
        "score": 0.9,
        "signals": {"claims": claims, "lexical": {"value": 1.0}},
    }
    if hallucinated is not None:
        row["hallucinated"] = hallucinated
    return row


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_merge_replaces_the_signal_drops_the_score_and_counts_the_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = _write(
        tmp_path / "into.jsonl",
        [_row("a", 1.0, 0, 0, True), _row("b", 0.5, 0, 1, False), _row("c", 1.0, 0, 0, None)],
    )
    source = _write(
        tmp_path / "source.jsonl",
        [_row("a", 0.15, 1, 0, True), _row("b", 0.33, 0, 2, False), _row("c", 1.0, 0, 0, None)],
    )
    out = tmp_path / "out.jsonl"
    assert main(["--signal", "claims", "--into", str(into), "--source", str(source), "-o", str(out)]) == 0
    merged = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["signals"]["claims"]["value"] for r in merged] == [0.15, 0.33, 1.0]
    assert all(r["score"] is None and r["signals"]["lexical"] == {"value": 1.0} for r in merged)
    printed = capsys.readouterr().out
    assert "value changed in records: 2 rows" in printed
    assert "a first contradiction (hallucinated): 1 rows" in printed
    assert "more unsupported (faithful): 1 rows" in printed
    assert "unlabeled" not in printed  # row c changed nothing


def test_a_row_without_its_rescored_signal_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = _write(tmp_path / "into.jsonl", [_row("a", 1.0, 0, 0, True), _row("b", 1.0, 0, 0, True)])
    source = _write(tmp_path / "source.jsonl", [_row("a", 1.0, 0, 0, True)])
    out = tmp_path / "out.jsonl"
    assert main(["--signal", "claims", "--into", str(into), "--source", str(source), "-o", str(out)]) == 2
    assert "row 'b' has no claims signal" in capsys.readouterr().err
    assert not out.exists()
