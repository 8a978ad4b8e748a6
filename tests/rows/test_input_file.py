"""InputFile checks each row once: the check parses, validates and hashes it; iterating rebuilds it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import trustscore.rows._input as input_module
from trustscore import InputError
from trustscore.rows import InputFile, InputRow, RowError, parse_row

ROWS: list[Any] = [
    {"id": "a", "question": "Who wrote Dune?", "context": "Dune is by Herbert.", "response": "Herbert."},
    {"question": "Who?", "context": ["p1", "p2"], "response": "Herbert.", "label": 1, "domain": "books"},
    {"id": 7, "question": "Who?", "context": "  ", "response": "Asimov.", "task": {"kind": "QA"}},
    {"id": "b", "question": "Who?", "response": "Herbert.", "contexts": ["p"]},
]


def write(path: Path, rows: list[Any], *, newline: str = "\n", bom: bool = False) -> Path:
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + newline for r in rows)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return path


def expected(rows: list[Any]) -> list[InputRow]:
    return [parse_row(json.dumps(r), "x", i) for i, r in enumerate(rows, start=1)]


@pytest.mark.parametrize(("newline", "bom"), [("\n", False), ("\r\n", True)])
def test_iterating_gives_the_rows_the_check_validated(tmp_path: Path, newline: str, bom: bool) -> None:
    checked = InputFile.check(write(tmp_path / "in.jsonl", ROWS, newline=newline, bom=bom))
    rows = list(checked)
    for got, want in zip(rows, expected(ROWS), strict=True):
        assert isinstance(got, InputRow)
        assert (got.line, got.sample, got.carried) == (want.line, want.sample, want.carried)
    assert list(checked) == rows  # read again, the same rows


def test_each_row_is_parsed_validated_and_hashed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = {"parse": 0, "validate": 0, "hash": 0}

    def counted(name: str, real: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(input_module, "_strict_json", counted("parse", input_module._strict_json))
    monkeypatch.setattr(input_module, "validate_sample", counted("validate", input_module.validate_sample))
    monkeypatch.setattr(input_module, "short_hash", counted("hash", input_module.short_hash))
    src = write(tmp_path / "in.jsonl", [*ROWS, "not json"])
    checked = InputFile.check(src, on_error="record")
    assert calls == {"parse": 5, "validate": 4, "hash": 2}  # the row without id; the invalid line's id
    rows = list(checked) + list(checked)
    assert calls == {"parse": 5, "validate": 4, "hash": 2}
    assert [r.line for r in rows] == [1, 2, 3, 4, 5] * 2


def test_invalid_rows_come_back_in_file_order_as_the_check_recorded_them(tmp_path: Path) -> None:
    src = write(tmp_path / "in.jsonl", [ROWS[0], "{", ROWS[1], {"id": "x", "question": "q"}, ROWS[3]])
    checked = InputFile.check(src, on_error="record")
    rows = list(checked)
    assert [type(r).__name__ for r in rows] == ["InputRow", "RowError", "InputRow", "RowError", "InputRow"]
    assert checked.errors == 2 and checked.first_error is rows[1]
    assert isinstance(rows[3], RowError) and rows[3].id == "x" and "response" in rows[3].reason


def test_a_file_changed_between_the_check_and_the_read_is_refused_naming_the_line(tmp_path: Path) -> None:
    src = write(tmp_path / "in.jsonl", ROWS)
    checked = InputFile.check(src)
    write(src, [ROWS[0], {**ROWS[2], "id": "other"}, ROWS[2], ROWS[3]])
    with pytest.raises(InputError, match=r"in.jsonl:2: the input changed while it was read"):
        list(checked)
    write(src, ROWS[:2])
    with pytest.raises(InputError, match=r"in.jsonl:3: the input changed"):
        list(checked)


def test_a_row_edited_in_place_after_the_check_is_refused_not_scored_unvalidated(tmp_path: Path) -> None:
    """Same id, same line: the row is read again without validating it, so it must be the bytes the
    check validated (an emptied response would otherwise reach the Scorer)."""
    src = write(tmp_path / "in.jsonl", ROWS)
    checked = InputFile.check(src)
    write(src, [ROWS[0], {**ROWS[1], "response": ""}, *ROWS[2:]])
    with pytest.raises(InputError, match=r"in.jsonl:2: the input changed while it was read"):
        list(checked)
