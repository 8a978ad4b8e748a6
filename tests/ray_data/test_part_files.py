"""``score --ray``'s output as result sinks, without Ray: one part file (what each Ray write task
writes through) and the whole directory (the resume state a run opens, the rows it drops), taken
by ``trustscore score``'s runner like any other sink."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyarrow", reason="part files are written with pyarrow (the ray extra)")

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from tests.rows.test_result_sink import input_rows
from tests.scorer_fakes import FakeLocal
from trustscore import Config, Sample, Scorer, TrustScore
from trustscore.cli._score import score_file
from trustscore.ray._files import Format, output_rows, tally_rows
from trustscore.ray._part_files import PartFileDirectory, PartFileSink
from trustscore.ray._rows import error_result, scored_result
from trustscore.rows import (
    IdIndex,
    ResultSink,
    RetryableSink,
)

OFFLINE = Config.from_dict({"signals": {"embedding": {"enabled": False}}, "cache": {"mode": "off"}})


def _actor_rows() -> list[dict[str, Any]]:
    """The columns the scoring actors hand the writer: a scored row and an error row."""
    sample = Sample(
        id="s1", question="Who wrote Dune?", context=["Dune is by Frank Herbert."], response="Herbert."
    )
    result = TrustScore.model_validate(
        {
            "score": 0.8,
            "calibrated": True,
            "signals": {},
            "used_signals": [],
            "fusion": "pool",
            "seconds": 0.25,
        }
    )
    return [
        scored_result(sample, result, carry=("question",)),
        error_result("bad", "response: is required", {}, 3),
    ]


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
    held = await _write(sink, [json.loads(c["result"]) for c in columns])
    assert len(held) == 0, "a new part file has nothing to resume from"
    expected = "".join(c["result"] + "\n" for c in columns)
    assert (tmp_path / "a.jsonl").read_text() == expected


@pytest.mark.anyio
async def test_a_parquet_part_file_holds_the_actors_typed_columns(tmp_path: Path) -> None:
    columns = _actor_rows()
    await _write(_part(tmp_path / "a.parquet", "parquet"), [json.loads(c["result"]) for c in columns])
    table = pq.read_table(tmp_path / "a.parquet")
    assert table.to_pylist() == columns
    assert table.schema.field("score").type == pa.float64() and table.num_rows == 2


@pytest.mark.anyio
async def test_a_part_file_refuses_rows_before_it_is_opened(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="await open"):
        await _part(tmp_path / "a.jsonl", "jsonl").write({"id": "x"})


@pytest.mark.anyio
@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
async def test_the_output_directory_resumes_and_drops_like_any_retryable_sink(
    tmp_path: Path, fmt: Format
) -> None:
    out = str(tmp_path / f"out.{fmt}")
    assert isinstance(PartFileDirectory(out, fmt), RetryableSink)
    async with Scorer(OFFLINE, local_signals=[FakeLocal("fake")]) as scorer:
        first = await score_file(
            input_rows(2), PartFileDirectory(out, fmt), scorer, progress=False, on_error="record"
        )
        held = await PartFileDirectory(out, fmt).open()
        assert dict(held.items()) == {"r0": 1, "r1": 1, "bad": 0}
        again = await score_file(
            input_rows(3), PartFileDirectory(out, fmt), scorer, progress=False, on_error="record"
        )
        retry = PartFileDirectory(out, fmt)
        await score_file(
            input_rows(3), retry, scorer, progress=False, on_error="record", retry_incomplete=True
        )
    assert (first.scored, first.errors) == (2, 1)
    assert (again.scored, again.skipped, again.errors) == (1, 2, 0), "done rows were scored again"
    assert retry.dropped == 1, "the incomplete row was removed before its sample was tried again"
    rows = output_rows(out, fmt)
    assert sorted(str(r["id"]) for r in rows) == ["bad", "r0", "r1", "r2"]
    assert len(list((tmp_path / f"out.{fmt}").iterdir())) == 3, "each run wrote a part file of its own"
    tally = tally_rows(out, fmt, {str(p) for p in (tmp_path / f"out.{fmt}").iterdir()})
    assert (tally.rows, tally.errors) == (4, 1) and tally.first_error == "line 4: response: is required"


@pytest.mark.anyio
async def test_opening_the_directory_repairs_a_part_file_a_kill_cut_short(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.mkdir()
    whole = _actor_rows()[0]["result"] + "\n"
    (out / "a_000000.jsonl").write_text(whole + '{"id": "s2", "trustscore": "res')
    held = await PartFileDirectory(str(out), "jsonl").open()
    assert dict(held.items()) == {"s1": 1}
    assert (out / "a_000000.jsonl").read_text() == whole
