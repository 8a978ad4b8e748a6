"""``score --ray``'s output without Ray: one part file (the sink each Ray write task writes the
actors' columns through) and the whole directory (the resume state a run opens, the rows it drops)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyarrow", reason="part files are written with pyarrow (the ray extra)")

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from trustscore import Sample, TrustScore
from trustscore.ray._files import Format, output_rows
from trustscore.ray._part_files import PartFileDirectory, PartFileSink
from trustscore.ray._rows import error_result, prepare_line, scored_result
from trustscore.rows import IdIndex, ResultSink

RESULT = TrustScore.model_validate(
    {"score": 0.8, "calibrated": True, "signals": {}, "used_signals": [], "fusion": "pool", "seconds": 0.25}
)


def _actor_rows() -> list[dict[str, Any]]:
    """The columns the scoring actors hand the writer: a scored row and an error row."""
    sample = Sample(
        id="s1", question="Who wrote Dune?", context=["Dune is by Frank Herbert."], response="Herbert."
    )
    return [
        scored_result(sample, RESULT, carry=("question",)),
        error_result("bad", "response: is required", {}, 3),
    ]


def _scored_with_own_error_field(value: object) -> dict[str, Any]:
    """The actor's columns for an input row that carries a field of its own named ``error``."""
    line = json.dumps({"id": "own", "question": "Q?", "response": "A.", "error": value})
    prepared = prepare_line(line, "in.jsonl", 1)
    assert prepared["error"] is None, prepared["error"]
    return scored_result(Sample.model_validate_json(str(prepared["sample"])), RESULT)


async def _write(sink: PartFileSink, rows: list[dict[str, Any]]) -> IdIndex:
    held = await sink.open()
    for row in rows:
        await sink.write(row)
    await sink.flush()
    await sink.close()
    return held


def _part(path: Path, fmt: Format) -> PartFileSink:
    return PartFileSink(str(path), fmt, lambda: pafs.LocalFileSystem().open_output_stream(str(path)))


@pytest.mark.anyio
async def test_a_jsonl_part_file_holds_the_actors_lines_byte_for_byte(tmp_path: Path) -> None:
    columns = _actor_rows()
    sink = _part(tmp_path / "a.jsonl", "jsonl")
    assert isinstance(sink, ResultSink)
    held = await _write(sink, columns)
    assert len(held) == 0, "a new part file has nothing to resume from"
    expected = "".join(c["result"] + "\n" for c in columns)
    assert (tmp_path / "a.jsonl").read_text() == expected


@pytest.mark.anyio
async def test_a_parquet_part_file_holds_the_actors_typed_columns(tmp_path: Path) -> None:
    columns = _actor_rows()
    await _write(_part(tmp_path / "a.parquet", "parquet"), columns)
    table = pq.read_table(tmp_path / "a.parquet")
    assert table.to_pylist() == columns
    assert table.schema.field("score").type == pa.float64() and table.num_rows == 2


@pytest.mark.anyio
@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
@pytest.mark.parametrize("value", [False, 3, "x"])
async def test_an_input_rows_own_error_field_stays_in_its_row(
    tmp_path: Path, fmt: Format, value: object
) -> None:
    out = tmp_path / f"out.{fmt}"
    out.mkdir()
    path = out / f"a_000000.{fmt}"
    await _write(_part(path, fmt), [_scored_with_own_error_field(value)])
    (row,) = output_rows(str(out), fmt)
    assert row["error"] == value and row["score"] == 0.8, "the input's own field, carried through"
    if fmt == "parquet":
        assert pq.read_table(path).column("error").to_pylist() == [None], "a scored row has no error"


@pytest.mark.anyio
@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
async def test_an_error_rows_reason_is_not_hidden_by_an_input_field_named_error(
    tmp_path: Path, fmt: Format
) -> None:
    out = tmp_path / f"out.{fmt}"
    out.mkdir()
    path = out / f"a_000000.{fmt}"
    carried = {"error": "typo in the source", "label": 1}
    await _write(_part(path, fmt), [error_result("own", "scoring raised: boom", carried)])
    (row,) = output_rows(str(out), fmt)
    assert row["error"] == "scoring raised: boom" and row["label"] == 1
    written = pq.read_table(path).column("result")[0].as_py() if fmt == "parquet" else path.read_text()
    assert json.loads(written)["error"] == "scoring raised: boom", "the written line says the reason too"


@pytest.mark.anyio
async def test_a_failing_flush_still_closes_the_part_file(tmp_path: Path) -> None:
    stream = pafs.LocalFileSystem().open_output_stream(str(tmp_path / "a.parquet"))
    sink = PartFileSink("a.parquet", "parquet", lambda: stream)
    await sink.open()
    await sink.write({**_actor_rows()[0], "score": "not a number"})
    with pytest.raises(pa.ArrowInvalid):
        await sink.close()
    assert stream.closed, "the stream was left open"
    await sink.close()  # already let go: nothing left to flush or close
    with pytest.raises(RuntimeError, match="await open"):
        await sink.write(_actor_rows()[0])


@pytest.mark.anyio
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (a full disk)")
async def test_a_full_disk_raises_and_the_jsonl_part_file_is_closed() -> None:
    stream = pafs.LocalFileSystem().open_output_stream("/dev/full", buffer_size=1 << 16)
    sink = PartFileSink("/dev/full", "jsonl", lambda: stream)
    await sink.open()
    await sink.write(_actor_rows()[0])
    with pytest.raises(OSError):
        await sink.close()
    assert stream.closed


@pytest.mark.anyio
async def test_a_part_file_refuses_rows_before_it_is_opened(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="await open"):
        await _part(tmp_path / "a.jsonl", "jsonl").write(_actor_rows()[0])


@pytest.mark.anyio
async def test_a_part_file_refuses_a_row_that_is_not_the_actors_columns(tmp_path: Path) -> None:
    sink = _part(tmp_path / "a.jsonl", "jsonl")
    await sink.open()
    with pytest.raises(ValueError, match="OUTPUT_SCHEMA"):
        await sink.write(json.loads(_actor_rows()[0]["result"]))
    await sink.close()
    assert (tmp_path / "a.jsonl").read_text() == ""


@pytest.mark.anyio
@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
async def test_the_output_directory_resumes_and_drops_incomplete_rows(tmp_path: Path, fmt: Format) -> None:
    out = tmp_path / f"out.{fmt}"
    out.mkdir()
    await _write(_part(out / f"a_000000.{fmt}", fmt), _actor_rows())
    directory = PartFileDirectory(str(out), fmt)
    held = await directory.open()
    assert dict(held.items()) == {"s1": 1, "bad": 0}
    incomplete = IdIndex()
    incomplete.set("bad", 0)
    await directory.drop(incomplete)
    assert directory.dropped == 1
    assert [r["id"] for r in output_rows(str(out), fmt)] == ["s1"]
    assert dict((await PartFileDirectory(str(out), fmt).open()).items()) == {"s1": 1}


@pytest.mark.anyio
async def test_opening_the_directory_repairs_a_part_file_a_kill_cut_short(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.mkdir()
    whole = _actor_rows()[0]["result"] + "\n"
    (out / "a_000000.jsonl").write_text(whole + '{"id": "s2", "trustscore": "res')
    held = await PartFileDirectory(str(out), "jsonl").open()
    assert dict(held.items()) == {"s1": 1}
    assert (out / "a_000000.jsonl").read_text() == whole


def _scored_with(sample_id: str, version: str) -> dict[str, Any]:
    """The actor's columns for a sample scored with the lexical signal at ``version``."""
    signal = {"name": "lexical", "value": 0.9, "version": version}
    result = RESULT.model_validate({**RESULT.model_dump(), "signals": {"lexical": signal}})
    return scored_result(Sample(id=sample_id, question="Q?", response="A."), result)


@pytest.mark.anyio
@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
async def test_the_directory_tallies_only_the_setups_of_rows_that_stand(tmp_path: Path, fmt: Format) -> None:
    """A later part file's row of an id replaces the earlier one (the resume state reads it so): the
    replaced row's setup is not one the run must match."""
    out = tmp_path / f"out.{fmt}"
    out.mkdir()
    await _write(_part(out / f"a_000000.{fmt}", fmt), [_scored_with("s0", "lexical/1")])
    await _write(_part(out / f"b_000000.{fmt}", fmt), [_scored_with("s0", "lexical/2")])
    directory = PartFileDirectory(str(out), fmt)
    assert dict((await directory.open()).items()) == {"s0": 1}
    unit = "line" if fmt == "jsonl" else "row"
    assert [(s.versions, str(w), done, undone) for s, w, done, undone in directory.setups.items()] == [
        (frozenset({("lexical", "lexical/2")}), f"{unit} 1 of {out / f'b_000000.{fmt}'}", 1, 0)
    ]
