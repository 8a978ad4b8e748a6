"""A field that looks like a sample field is named with a did-you-mean, once per field."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from trustscore import read_jsonl
from trustscore.rows import parse_row, suggest_field


@pytest.mark.parametrize(
    ("name", "present", "meant"),
    [
        ("contexts", (), "context"),
        ("Context", (), "context"),
        ("responses", (), "response"),
        ("answer", (), "response"),
        ("query", (), "question"),
        ("passages", (), "context"),
        ("contexts", ("context",), None),  # the row has the real one: contexts is its own data
        ("question_id", ("question",), None),
        ("label", (), None),
        ("context", (), None),
    ],
)
def test_suggest_field(name: str, present: tuple[str, ...], meant: str | None) -> None:
    assert suggest_field(name, present) == meant


def test_a_row_keeps_its_lookalikes_and_carries_them_through() -> None:
    line = json.dumps({"question": "q", "contexts": ["c"], "response": "r", "task": "QA"})
    row = parse_row(line, "in:1", 1)
    assert row.lookalikes == {"contexts": "context"}
    assert row.carried == {"contexts": ["c"], "task": "QA"} and row.sample.context == []


def test_read_jsonl_warns_once_per_field(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "in.jsonl"
    rows = [{"question": "q", "contexts": ["c"], "response": f"r{i}"} for i in range(3)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="trustscore"):
        assert len(list(read_jsonl(path))) == 3
    warned = [r.getMessage() for r in caplog.records if "contexts" in r.getMessage()]
    assert len(warned) == 1 and "did you mean 'context'?" in warned[0] and "in.jsonl:1" in warned[0]
