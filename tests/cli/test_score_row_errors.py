"""``trustscore score``: an invalid row is an error row and the run goes on; input mistakes are loud."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scorer_fakes import FakeLocal

import trustscore.cli._score as cli_score
from trustscore import Config, Scorer
from trustscore.cli import main
from trustscore.rows._scored import read_scored

GOOD = {"question": "Who wrote Dune?", "context": "Dune is a novel by Frank Herbert.", "response": "Herbert."}


def write(path: Path, rows: list[Any]) -> Path:
    lines = ((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)
    path.write_text("".join(lines), encoding="utf-8")
    return path


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def use(monkeypatch: pytest.MonkeyPatch, config: Config | None = None, *, fake: bool = True) -> None:
    def build(path: Path | None, *, no_cache: bool) -> Scorer:
        if fake:
            return Scorer(Config(), judges=[], local_signals=[FakeLocal("l", lambda s: 0.7)])
        return Scorer(config or Config())

    monkeypatch.setattr(cli_score, "build_scorer", build)


def score(src: Path, out: Path, *flags: str) -> int:
    return main(["score", str(src), "-o", str(out), "--no-progress", *flags])


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    return write(
        tmp_path / "in.jsonl",
        [
            {**GOOD, "id": "a"},
            {**GOOD, "id": "empty", "response": ""},  # an LLM returned nothing
            {**GOOD, "id": "b"},
            {**GOOD, "id": 5, "question": ["not", "text"]},
            "{not json",
            {**GOOD, "id": "c"},
        ],
    )


def test_invalid_rows_become_error_rows_and_the_rest_is_scored_with_exit_3(
    mixed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    use(monkeypatch)
    out = tmp_path / "out.jsonl"
    assert score(mixed, out) == 3
    captured = capsys.readouterr()
    assert "scored 3" in captured.out and "errors 3" in captured.out
    assert "3 row(s) could not be scored" in captured.err and "line 2" in captured.err
    rows = {r["id"]: r for r in read(out)}
    assert {k for k, r in rows.items() if r["score"] is not None} == {"a", "b", "c"}
    empty = rows["empty"]
    assert empty["line"] == 2 and "response is empty" in empty["error"]
    assert empty["complete"] is False and empty["score"] is None and empty["signals"] == {}
    assert rows["5"]["line"] == 4 and "question" in rows["5"]["error"]
    (bad_json,) = [r for k, r in rows.items() if k not in {"a", "b", "c", "empty", "5"}]
    assert bad_json["line"] == 5 and bad_json["error"].startswith("not valid JSON")
    assert bad_json["id"].startswith("invalid-")  # as the Ray pipeline names it
    assert sorted(r.id or "" for r in read_scored(out)) == ["a", "b", "c"]  # eval and calibrate skip errors

    # A rerun keeps them (they are incomplete); --retry-incomplete tries them again, once each.
    assert score(mixed, out) == 0
    assert "kept 3 incomplete row(s)" in capsys.readouterr().out
    assert score(mixed, out, "--retry-incomplete") == 3
    assert len(read(out)) == 6


def test_on_error_stop_stops_before_scoring(
    mixed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    use(monkeypatch)
    out = tmp_path / "out.jsonl"
    assert score(mixed, out, "--on-error", "stop") == 2
    assert "in.jsonl:2: invalid sample: response" in capsys.readouterr().err
    assert not out.exists()


def test_a_file_of_only_invalid_rows_exits_2_naming_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    use(monkeypatch)
    src = write(tmp_path / "in.jsonl", [{**GOOD, "response": " "}, {**GOOD, "question": 3}])
    assert score(src, tmp_path / "out.jsonl") == 2
    err = capsys.readouterr().err
    assert "no row could be scored: all 2 row(s) are invalid, e.g. line 1" in err


def test_a_misspelt_field_is_named_with_a_did_you_mean_and_a_run_scoring_nothing_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    use(monkeypatch, Config.from_dict({"signals": {"embedding": {"enabled": False}}}), fake=False)
    typo = {"question": GOOD["question"], "contexts": [GOOD["context"]]}
    rows = [{**typo, "response": r} for r in ("Herbert.", "Asimov.")]
    src = write(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out.jsonl"
    assert score(src, out) == 2
    captured = capsys.readouterr()
    assert "in.jsonl:1: field 'contexts' is not a sample field (on 2 row(s))" in captured.err
    assert "did you mean 'context'?" in captured.err
    assert "no row could be scored: no signal gave a value on any of 2 row(s)" in captured.err
    assert "most common reason, 2 time(s): claims: no context" in captured.err  # a tie: the first by name
    assert "degraded: 2 of 2 row(s)" in captured.out
    assert [r["score"] for r in read(out)] == [None, None]


def test_a_misspelt_required_field_says_what_was_meant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    use(monkeypatch)
    rows = [{"question": "q", "context": "c", "answer": "r"}, {**GOOD, "id": "x"}]
    src = write(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out.jsonl"
    assert score(src, out) == 3
    (error,) = [r for r in read(out) if r.get("error")]
    assert "response: is required" in error["error"]
    assert "field 'answer' is not a sample field: did you mean 'response'?" in error["error"]


def test_carry_copies_the_question_and_response_into_each_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    use(monkeypatch)
    src = write(tmp_path / "in.jsonl", [{**GOOD, "id": "a", "label": 1}])
    out = tmp_path / "out.jsonl"
    assert score(src, out, "--carry", "question,response") == 0
    (row,) = read(out)
    assert (row["question"], row["response"], row["label"]) == (GOOD["question"], GOOD["response"], 1)
    assert "context" not in row
    assert score(src, tmp_path / "plain.jsonl") == 0
    assert "question" not in read(tmp_path / "plain.jsonl")[0]
    with pytest.raises(SystemExit):
        score(src, tmp_path / "x.jsonl", "--carry", "label")
    assert "label cannot be carried" in capsys.readouterr().err


def test_a_carried_error_field_on_a_scored_row_is_not_taken_for_an_error_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch)
    src = write(tmp_path / "in.jsonl", [{**GOOD, "id": "a", "error": "typo in the source"}])
    out = tmp_path / "out.jsonl"
    assert score(src, out) == 0
    assert [r.id for r in read_scored(out)] == ["a"]
