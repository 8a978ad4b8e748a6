"""``-o`` takes only a file of trustscore's own result rows (they carry the format marker), and one
damaged or oversized row never costs the rest of the file: it is skipped, reported with its line,
and its sample scored again; the writer never writes a row over the limit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scorer_fakes import FakeLocal

import trustscore.cli._score as cli_score
import trustscore.rows._output as output
from trustscore import Config, Scorer, Signal
from trustscore.cli import main
from trustscore.rows import row_line
from trustscore.rows._scored import read_scored

ROWS = [
    {"id": f"s{i}", "question": "Who wrote Dune?", "context": "Dune is by Frank Herbert.",
     "response": "Frank Herbert.", "label": i % 2}
    for i in range(5)
]  # fmt: skip


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    scored: list[str] = []

    def value(sample: object) -> float:
        scored.append(str(getattr(sample, "id", "")))
        return 0.9

    def build(config: Path | None, *, no_cache: bool) -> Scorer:
        return Scorer(Config(), judges=[], local_signals=[FakeLocal("grounded", value)])

    monkeypatch.setattr(cli_score, "build_scorer", build)
    return scored


@pytest.fixture
def src(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def score(src: Path, out: Path, *more: str) -> int:
    return main(["score", str(src), "-o", str(out), "--no-progress", *more])


def lines_of(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("ids", [["s0", "s1"], ["t0", "t1"]], ids=["matching ids", "other ids"])
def test_another_jsonl_with_ids_is_refused_untouched(
    src: Path, tmp_path: Path, seen: list[str], ids: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # The training set beside the test set: rows with ids, not results.
    train = tmp_path / "train.jsonl"
    train.write_text("".join(json.dumps({**ROWS[0], "id": i}) + "\n" for i in ids), encoding="utf-8")
    before = train.read_bytes()
    assert score(src, train) == 2
    err = capsys.readouterr().err
    assert f"{train}:1: not a trustscore result row" in err and "result/1" in err
    assert train.read_bytes() == before and seen == []


def test_a_foreign_single_row_without_its_newline_is_not_taken_for_a_torn_write(
    src: Path, tmp_path: Path, seen: list[str]
) -> None:
    other = tmp_path / "other.jsonl"
    other.write_bytes(b'{"id": "s0", "question": "q", "response": "r"}')
    assert score(src, other) == 2
    assert other.read_bytes() == b'{"id": "s0", "question": "q", "response": "r"}'


def test_every_row_written_carries_the_marker_and_is_accepted_again(
    src: Path, tmp_path: Path, seen: list[str]
) -> None:
    out = tmp_path / "out.jsonl"
    assert score(src, out) == 0
    assert all(line.startswith(f'{{"id": "{r["id"]}", "trustscore": "result/1", ') for line, r in
               zip(sorted(out.read_text().splitlines()), ROWS, strict=True))  # fmt: skip
    seen.clear()
    assert score(src, out) == 0 and seen == []


def test_a_damaged_row_is_skipped_reported_and_scored_again(
    src: Path, tmp_path: Path, seen: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    good = [row_line({"id": f"s{i}", "score": 0.5, "complete": True}) for i in (0, 2)]
    out.write_text(good[0] + '{"id": "s1", "trustscore": "result/1", "score": 0.5, "sig\n' + good[1])
    assert score(src, out) == 0
    assert "out.jsonl: skipping a damaged result row (line 2: not a result row" in capsys.readouterr().err
    assert sorted(seen) == ["s1", "s3", "s4"]
    assert out.read_text().startswith(good[0])  # the rest of the file is kept as it was


def test_a_row_over_the_limit_is_skipped_in_pieces_and_dropped_on_retry(
    src: Path, tmp_path: Path, seen: list[str], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.setattr(output, "MAX_ROW_BYTES", 4096)
    out = tmp_path / "out.jsonl"
    note = '"note": "' + "x" * 3 * 2**20 + '", "score"'
    huge = row_line({"id": "s0", "score": 0.5}).replace('"score"', note)
    out.write_text(huge + row_line({"id": "s1", "score": 0.5, "complete": False}))
    assert score(src, out) == 0
    err = capsys.readouterr().err
    assert f"(line 1 is {len(huge.encode()):,} bytes, over the limit of 4,096)" in err
    assert sorted(seen) == ["s0", "s2", "s3", "s4"]
    seen.clear()
    assert score(src, out, "--retry-incomplete") == 0
    assert seen == ["s1"]  # the damaged row went with the retry's rewrite; s0 has its new row
    assert sorted(str(r["id"]) for r in lines_of(out)) == ["s0", "s1", "s2", "s3", "s4"]


def test_a_result_over_the_limit_is_written_as_an_error_row(
    src: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(output, "MAX_ROW_BYTES", 4096)

    class Wordy:
        name = "grounded"
        version = "wordy@1"

        async def run(self, sample: object) -> Signal:
            return Signal(name=self.name, value=0.9, explanation="y" * 10_000)

    def build(config: Path | None, *, no_cache: bool) -> Scorer:
        return Scorer(Config(), judges=[], local_signals=[Wordy()])

    monkeypatch.setattr(cli_score, "build_scorer", build)
    out = tmp_path / "out.jsonl"
    assert score(src, out) == 0
    rows = lines_of(out)
    assert all(len(line.encode()) < 4096 for line in out.read_text().splitlines())
    assert {r["id"] for r in rows} == {f"s{i}" for i in range(5)}
    first = rows[0]
    assert first["score"] is None and first["complete"] is False and first["signals"] == {}
    assert "over the limit of 4,096" in str(first["error"])


def test_eval_skips_and_reports_a_damaged_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = [
        row_line({"id": f"s{i}", "score": 0.5, "calibrated": False, "signals": {}, "label": i % 2})
        for i in range(2)
    ]
    scored = tmp_path / "scored.jsonl"
    scored.write_text(good[0] + '{"id": "s9", "trustscore": "result/1", "sco\n' + good[1])
    assert [r.id for r in read_scored(scored)] == ["s0", "s1"]
    assert "scored.jsonl:2: skipping a damaged result row" in capsys.readouterr().err
