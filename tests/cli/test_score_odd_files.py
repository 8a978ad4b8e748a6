"""``trustscore score`` on files that are not what it expects: nothing lost, nothing destroyed, one
clear line each."""

from __future__ import annotations

import fcntl
import json
import os
import sys
import threading
from pathlib import Path

import pytest
from scorer_fakes import FakeLocal

import trustscore.cli._score as cli_score
import trustscore.rows._input as rows_input
from trustscore import Config, Scorer
from trustscore.cli import main

ROWS = [
    {"id": f"s{i}", "question": "Who wrote Dune?", "context": "Dune is by Frank Herbert.",
     "response": "Frank Herbert.", "label": i % 2}
    for i in range(5)
]  # fmt: skip
TEXT = "".join(json.dumps(r) + "\n" for r in ROWS)


@pytest.fixture(autouse=True)
def local_scorer(monkeypatch: pytest.MonkeyPatch) -> None:
    def build(config: Path | None, *, no_cache: bool) -> Scorer:
        return Scorer(Config(), judges=[], local_signals=[FakeLocal("grounded", lambda s: 0.9)])

    monkeypatch.setattr(cli_score, "build_scorer", build)


def score(src: str | Path, out: Path, *flags: str) -> int:
    return main(["score", str(src), "-o", str(out), "--no-progress", *flags])


def ids_in(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def src(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text(TEXT, encoding="utf-8")
    return path


# -- -o that is not a trustscore output --------------------------------------------------------


def test_a_device_as_output_is_refused_without_reading_it(
    src: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert score(src, Path("/dev/full")) == 2
    assert "-o /dev/full is not a regular file" in capsys.readouterr().err


def test_a_large_file_that_is_not_ours_is_refused_untouched(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "disk.img"
    with big.open("wb") as f:
        f.truncate(3 * 2**30)  # sparse: 3 GB of zeros, no newline
    assert score(src, big) == 2
    assert "not a trustscore result row" in capsys.readouterr().err
    assert big.stat().st_size == 3 * 2**30


@pytest.mark.parametrize(
    "content",
    [b"notes\nmy last line", b'{"id": "s0", "score": 0.5}\nmy last line', b'{"id": "s0"}\n{"a": 1}'],
)
def test_a_file_without_final_newline_that_is_not_ours_keeps_every_byte(
    src: Path, tmp_path: Path, content: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes(content)
    assert score(src, out) == 2
    assert "not a trustscore result row" in capsys.readouterr().err
    assert out.read_bytes() == content


def test_an_output_of_blank_lines_is_as_good_as_empty(src: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("\n \n")
    assert score(src, out) == 0
    assert sorted(json.loads(line)["id"] for line in out.read_text().splitlines() if line.strip()) == [
        "s0", "s1", "s2", "s3", "s4"
    ]  # fmt: skip


def test_a_whole_last_row_without_its_newline_is_kept(src: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes(b'{"id": "s0", "trustscore": "result/1", "score": 0.9, "complete": true}')
    assert score(src, out) == 0
    assert sorted(ids_in(out)) == ["s0", "s1", "s2", "s3", "s4"]


def test_a_torn_row_of_a_killed_run_is_still_cut_and_scored_again(src: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes(
        b'{"id": "s0", "trustscore": "result/1", "score": 0.9, "complete": true}\n'
        b'{"id": "s1", "trustscore": "result/1", "sco'
    )
    assert score(src, out) == 0
    assert sorted(ids_in(out)) == ["s0", "s1", "s2", "s3", "s4"]


def test_a_second_run_on_the_same_output_is_refused_while_the_first_writes(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text('{"id": "s0", "trustscore": "result/1", "score": 0.9}\n', encoding="utf-8")
    with out.open("rb") as first:
        fcntl.flock(first.fileno(), fcntl.LOCK_EX)  # what a running `trustscore score` holds
        assert score(src, out) == 2
    assert "being written by another trustscore run" in capsys.readouterr().err
    assert ids_in(out) == ["s0"]
    assert score(src, out) == 0  # the lock went with the first run
    assert sorted(ids_in(out)) == ["s0", "s1", "s2", "s3", "s4"]


def test_retry_incomplete_keeps_the_output_locked(src: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text('{"id": "s0", "trustscore": "result/1", "score": null, "complete": false}\n')
    seen: list[bool] = []
    real = cli_score._score_into

    async def check_lock(out_file, *args):  # type: ignore[no-untyped-def]
        with out.open("rb") as other:
            try:
                fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                seen.append(True)
        return await real(out_file, *args)

    cli_score._score_into = check_lock  # type: ignore[assignment]
    try:
        assert main(["score", str(src), "-o", str(out), "--no-progress", "--retry-incomplete"]) == 0
    finally:
        cli_score._score_into = real  # type: ignore[assignment]
    assert seen == [True]
    assert sorted(ids_in(out)) == ["s0", "s1", "s2", "s3", "s4"]
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_eval_refuses_an_output_that_holds_an_id_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    row = {"id": "s0", "score": 0.9, "calibrated": False, "signals": {}, "label": 0}
    scored = tmp_path / "scored.jsonl"
    scored.write_text(
        json.dumps(row) + "\n" + json.dumps({**row, "id": "s1"}) + "\n" + json.dumps(row) + "\n"
    )
    assert main(["eval", str(scored), "--label", "label"]) == 2
    assert "id 's0' is on line 1 and line 3" in capsys.readouterr().err


# -- odd inputs -------------------------------------------------------------------------------


def test_symlink_loops_as_input_or_output_are_one_line(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)
    assert score(loop, tmp_path / "out.jsonl") == 2
    assert f"input file {loop} cannot be read: a symlink loop" in capsys.readouterr().err
    assert score(src, loop) == 2
    assert f"-o {loop} cannot be used: a symlink loop" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("NaN", "NaN is not a JSON number"),
        ("-Infinity", "-Infinity is not a JSON number"),
        ("1e999", "1e999 is beyond the range of a float"),
        ("9" * 5000, "a number is too long to read"),
    ],
)
def test_numbers_that_strict_json_cannot_hold_are_refused_naming_the_line(
    tmp_path: Path, value: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(TEXT + '{"question": "q", "response": "r", "weight": ' + value + "}\n", encoding="utf-8")
    assert score(src, tmp_path / "out.jsonl", "--on-error", "stop") == 2
    err = capsys.readouterr().err
    assert f"in.jsonl:6: {message}" in err and "Traceback" not in err
    assert not (tmp_path / "out.jsonl").exists()


def test_a_line_longer_than_any_sample_is_refused_before_it_is_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(rows_input, "MAX_LINE_BYTES", 1000)
    src = tmp_path / "in.jsonl"
    src.write_text(TEXT + '{"question": "' + "x" * 5000 + '"}\n', encoding="utf-8")
    assert score(src, tmp_path / "out.jsonl") == 2
    assert "in.jsonl:6: line is longer than 1,000 bytes" in capsys.readouterr().err


@pytest.mark.slow
def test_a_3_gb_file_of_one_line_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "one-line.jsonl"
    with src.open("wb") as f:
        f.truncate(3 * 2**30)
    assert score(src, tmp_path / "out.jsonl") == 2
    assert f"line is longer than {rows_input.MAX_LINE_BYTES:,} bytes" in capsys.readouterr().err


def test_a_fifo_is_read_once_and_every_row_scored(tmp_path: Path) -> None:
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)

    def feed() -> None:
        with fifo.open("w", encoding="utf-8") as f:
            f.write(TEXT)

    writer = threading.Thread(target=feed)
    writer.start()
    out = tmp_path / "out.jsonl"
    assert score(fifo, out) == 0
    writer.join()
    assert sorted(ids_in(out)) == ["s0", "s1", "s2", "s3", "s4"]


def test_dash_reads_standard_input_from_a_pipe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    read_end, write_end = os.pipe()

    def feed() -> None:
        with os.fdopen(write_end, "w", encoding="utf-8") as f:
            f.write(TEXT)

    writer = threading.Thread(target=feed)
    writer.start()
    with os.fdopen(read_end, "r", encoding="utf-8") as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        out = tmp_path / "out.jsonl"
        assert score("-", out) == 0
    writer.join()
    assert sorted(ids_in(out)) == ["s0", "s1", "s2", "s3", "s4"]


def test_a_device_as_input_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert score("/dev/zero", tmp_path / "out.jsonl") == 2
    assert "input file /dev/zero is a device" in capsys.readouterr().err


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"\xef\xbb\xbf" + TEXT.encode("utf-8"))
    out = tmp_path / "out.jsonl"
    assert score(src, out) == 0
    assert sorted(ids_in(out)) == ["s0", "s1", "s2", "s3", "s4"]


def test_errors_name_the_line_in_plain_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.jsonl"
    src.write_bytes(TEXT.encode() + b'{"question": "a\x01b", "response": "r"}\n')
    assert score(src, tmp_path / "out.jsonl", "--on-error", "stop") == 2
    err = capsys.readouterr().err
    assert "in.jsonl:6: not valid JSON (Invalid control character at column 16)" in err
    src.write_bytes(TEXT.encode() + b'{"question": "caf\xe9", "response": "r"}\n')
    assert score(src, tmp_path / "out.jsonl") == 2
    assert "in.jsonl:6: not UTF-8 text (byte 18 of the line is not valid UTF-8)" in capsys.readouterr().err


def test_a_full_temporary_directory_under_a_piped_input_is_one_line_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class FullSpool:
        def write(self, data: bytes) -> int:
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(rows_input.tempfile, "TemporaryFile", FullSpool)
    monkeypatch.setattr(rows_input.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    read, write = os.pipe()
    with os.fdopen(write, "wb") as w:
        w.write(TEXT.encode())
    out = tmp_path / "out.jsonl"
    assert score(f"/dev/fd/{read}", out) == 1
    err = capsys.readouterr().err
    where = f"{tmp_path / 'tmp'} (the temporary directory)"
    assert err.startswith(f"trustscore: error: {where}: cannot keep a copy of the piped input")
    assert not out.exists()
