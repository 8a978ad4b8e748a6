"""Output directories of ``score --ray``: formats from names, URIs, and the repair a resume does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.ray
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("ray")

from trustscore._errors import UsageError  # noqa: E402
from trustscore.ray._files import (  # noqa: E402
    as_location,
    count_rows,
    drop_rows,
    format_of,
    locked_output,
    previous_rows,
)
from trustscore.rows import row_line  # noqa: E402


def _results(ids: list[str]) -> pa.Table:
    """Part-file columns as ``score --ray`` writes them (the ones resume reads)."""
    return pa.table({"id": ids, "result": [row_line({"id": i}).strip() for i in ids]})


def test_formats_come_from_the_name() -> None:
    assert format_of("s3://b/logs.parquet/", role="input") == "parquet"
    assert format_of("/data/in.JSONL", role="input") == "jsonl"
    with pytest.raises(UsageError, match=r"output /data/out: .*\.jsonl or \.parquet"):
        format_of("/data/out", role="output")


def test_a_uri_folded_by_argparse_is_restored() -> None:
    assert as_location(Path("s3://bucket/logs.parquet")) == "s3://bucket/logs.parquet"
    assert as_location(Path("file:///tmp/x.jsonl")) == "file:///tmp/x.jsonl"
    assert as_location(Path("relative/in.jsonl")) == "relative/in.jsonl"


def test_a_torn_jsonl_line_is_cut_and_its_row_left_to_score(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.mkdir()
    (out / "a_000000.jsonl").write_text(row_line({"id": "r1"}) + '{"id": "r2", "trustscore": "res')
    (out / "b_000000.jsonl").write_text(row_line({"id": "r3"}))
    assert previous_rows(str(out), "jsonl") == {"r1": True, "r3": True}
    assert (out / "a_000000.jsonl").read_text() == row_line({"id": "r1"})
    assert count_rows(str(out), "jsonl") == 2


def test_a_parquet_file_cut_short_is_removed(tmp_path: Path) -> None:
    out = tmp_path / "out.parquet"
    out.mkdir()
    pq.write_table(_results(["r1", "r2"]), out / "a.parquet")
    whole = (out / "a.parquet").read_bytes()
    (out / "b.parquet").write_bytes(whole[: len(whole) // 2])
    assert previous_rows(str(out), "parquet") == {"r1": True, "r2": True}
    assert sorted(p.name for p in out.iterdir()) == ["a.parquet"]


def test_foreign_output_is_refused_not_touched(tmp_path: Path) -> None:
    out = tmp_path / "out.parquet"
    out.mkdir()
    pq.write_table(pa.table({"name": ["x"]}), out / "a.parquet")
    with pytest.raises(UsageError, match="no id and result columns"):
        previous_rows(str(out), "parquet")
    jsonl = tmp_path / "out.jsonl"
    jsonl.mkdir()
    (jsonl / "a.jsonl").write_text("hello\n")
    with pytest.raises(UsageError, match=r"a\.jsonl:1: not a trustscore result row"):
        previous_rows(str(jsonl), "jsonl")
    file_output = tmp_path / "single.jsonl"
    file_output.write_text("")
    with pytest.raises(UsageError, match="is a file"):
        previous_rows(str(file_output), "jsonl")


def test_a_stray_file_in_the_output_directory_is_never_cut_or_removed(tmp_path: Path) -> None:
    jsonl = tmp_path / "out.jsonl"
    jsonl.mkdir()
    (jsonl / "a.jsonl").write_text(row_line({"id": "r1"}))
    notes = jsonl / "notes.jsonl"
    kept = row_line({"id": "r2"}).encode() + b"my notes, no final newline"
    notes.write_bytes(kept)
    with pytest.raises(UsageError, match="last line is not a trustscore result row"):
        previous_rows(str(jsonl), "jsonl")
    assert notes.read_bytes() == kept
    parquet = tmp_path / "out.parquet"
    parquet.mkdir()
    stray = parquet / "photo.parquet"
    stray.write_bytes(b"\xff\xd8 not parquet at all")
    with pytest.raises(UsageError, match="not a Parquet file"):
        previous_rows(str(parquet), "parquet")
    assert stray.exists()


def test_drop_rows_rewrites_only_the_files_holding_them(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.mkdir()
    a = [{"id": "r1", "complete": True}, {"id": "r2", "complete": False}]
    (out / "a.jsonl").write_text("".join(row_line(r) for r in a))
    (out / "b.jsonl").write_text(row_line({"id": "r3", "complete": True}))
    untouched = (out / "b.jsonl").stat().st_mtime_ns
    assert previous_rows(str(out), "jsonl") == {"r1": True, "r2": False, "r3": True}
    assert drop_rows(str(out), "jsonl", {"r2"}) == 1
    assert previous_rows(str(out), "jsonl") == {"r1": True, "r3": True}
    assert (out / "b.jsonl").stat().st_mtime_ns == untouched
    assert sorted(p.name for p in out.iterdir()) == ["a.jsonl", "b.jsonl"], "no temporary file left"

    parquet = tmp_path / "out.parquet"
    parquet.mkdir()
    table = _results(["p1", "p2", "p3"]).append_column("complete", pa.array([False, True, None]))
    pq.write_table(table, parquet / "a.parquet")
    assert previous_rows(str(parquet), "parquet") == {"p1": False, "p2": True, "p3": False}
    assert drop_rows(str(parquet), "parquet", {"p1", "p3", "elsewhere"}) == 2
    assert pq.read_table(parquet / "a.parquet").column("id").to_pylist() == ["p2"]


def test_a_foreign_jsonl_with_ids_or_a_parquet_without_marked_rows_is_refused(tmp_path: Path) -> None:
    jsonl = tmp_path / "out.jsonl"
    jsonl.mkdir()
    train = jsonl / "train.jsonl"
    train.write_text(json.dumps({"id": "r1", "question": "q", "response": "r"}) + "\n")
    with pytest.raises(UsageError, match=r"train\.jsonl:1: not a trustscore result row"):
        previous_rows(str(jsonl), "jsonl")
    parquet = tmp_path / "out.parquet"
    parquet.mkdir()
    pq.write_table(pa.table({"id": ["r1"], "result": ['{"id": "r1"}']}), parquet / "a.parquet")
    with pytest.raises(UsageError, match="does not hold trustscore result rows"):
        previous_rows(str(parquet), "parquet")


def test_a_damaged_row_in_a_part_file_is_skipped_and_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    out.mkdir()
    (out / "a.jsonl").write_text(row_line({"id": "r1"}) + '{"id": "r2", "trustscore": "result/1", "x\n')
    assert previous_rows(str(out), "jsonl") == {"r1": True}
    assert "a.jsonl: skipping a damaged result row (line 2" in capsys.readouterr().err
    assert drop_rows(str(out), "jsonl", {"r1"}) == 1


def test_a_second_run_into_one_directory_is_refused_while_the_first_holds_it(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    busy = pytest.raises(UsageError, match="being written by another trustscore run")
    with locked_output(str(out)), busy, locked_output(str(out)):
        pass
    with locked_output(str(out)):  # the lock went with the first run
        assert count_rows(str(out), "jsonl") == 0  # the lock file is no output
    assert not out.exists()  # a run that wrote nothing leaves no directory
