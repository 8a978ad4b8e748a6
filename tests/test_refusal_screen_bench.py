"""benchmarks.quality.refusal_screen: per file, the responses the refusal screen would leave unchecked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.quality import refusal_screen


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_it_counts_and_lists_the_responses_read_as_refusals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {"response": "Unable to answer based on given passages.", "hallucinated": False},
        {"response": "The library opened in 2011.", "hallucinated": True},
        {"response": "The passages do not mention it. " + "It opened in 2011 and holds books. " * 10},
    ]
    for name in ("test.jsonl", "train_extra.jsonl"):
        _write(tmp_path / "ragtruth" / name, rows)
    extra = _write(tmp_path / "mine.jsonl", rows[1:])
    assert refusal_screen.main(["--data", str(tmp_path), str(extra)]) == 0
    out = capsys.readouterr().out
    assert "| test.jsonl | 3 | 2 | 1 |" in out and "| mine.jsonl | 2 | 1 | 0 |" in out
    assert out.count("(hallucinated: False): Unable to answer based on given passages.") == 2


def test_a_missing_file_is_named_with_the_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert refusal_screen.main(["--data", str(tmp_path)]) == 2
    assert "pass --data DIR" in capsys.readouterr().err
