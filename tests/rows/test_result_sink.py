"""A new destination for result rows is one class with the ResultSink methods: here an in-memory
table that keeps rows by id, taken by ``trustscore score``'s runner and by a Monitor alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.scorer_fakes import FakeLocal
from trustscore import Config, Scorer
from trustscore.cli._score import score_file
from trustscore.monitor import Monitor
from trustscore.rows import (
    IdIndex,
    InputRow,
    JsonlFileSink,
    ResultSink,
    RetryableSink,
    RowError,
    RowSink,
    parse_row,
)

pytestmark = pytest.mark.anyio

OFFLINE = Config.from_dict({"signals": {"embedding": {"enabled": False}}, "cache": {"mode": "off"}})


class TableSink:
    """Rows kept by id, as a database table would keep them; it resumes from what it holds."""

    def __init__(self, held: dict[str, dict[str, Any]] | None = None) -> None:
        self.table = dict(held or {})
        self.events: list[str] = []

    @property
    def name(self) -> str:
        return "memory table"

    async def open(self) -> IdIndex:
        self.events.append("open")
        done = IdIndex()
        for row_id, row in self.table.items():
            done.add(row_id, 1 if row.get("complete") else 0)
        return done

    async def write(self, row: dict[str, Any]) -> None:
        self.table[row["id"]] = row

    async def flush(self) -> None:
        self.events.append("flush")

    async def close(self) -> None:
        self.events.append("close")


def input_rows(n: int) -> list[InputRow | RowError]:
    """Rows ``r0`` .. ``r{n-1}`` to score, then one invalid row (id ``bad``, line n + 1)."""
    line = (
        '{"id": "r%s", "question": "Who wrote Dune?", "context": ["Dune is by Frank Herbert."], '
        '"response": "Herbert."}'
    )
    rows: list[InputRow | RowError] = [
        parse_row(line.replace("%s", str(i)), "input", i + 1) for i in range(n)
    ]
    return [*rows, RowError(line=n + 1, id="bad", reason="response: is required")]


def test_the_shipped_sinks_are_result_sinks() -> None:
    assert isinstance(TableSink(), ResultSink) and not isinstance(TableSink(), RetryableSink)
    assert isinstance(JsonlFileSink(Path("out.jsonl")), RetryableSink)
    assert isinstance(RowSink(Path("scores.jsonl")), ResultSink)


async def test_a_new_sink_takes_a_score_run_and_resumes_from_what_it_holds() -> None:
    sink = TableSink(held={"r0": {"id": "r0", "complete": True}})
    async with Scorer(OFFLINE, local_signals=[FakeLocal("fake")]) as scorer:
        summary = await score_file(input_rows(3), sink, scorer, progress=False)
    assert sorted(sink.table) == ["bad", "r0", "r1", "r2"]
    assert sink.table["r0"] == {"id": "r0", "complete": True}, "the complete row it held was not scored again"
    assert sink.table["bad"]["error"] and sink.table["r1"]["score"] is not None
    assert (summary.scored, summary.skipped, summary.errors, str(summary.output)) == (2, 1, 1, "memory table")
    assert sink.events == ["open", "flush", "close"]


async def test_a_sink_that_cannot_drop_rows_refuses_retry_incomplete() -> None:
    from trustscore._errors import UsageError

    async with Scorer(OFFLINE, local_signals=[FakeLocal("fake")]) as scorer:
        with pytest.raises(UsageError, match="memory table cannot"):
            await score_file(input_rows(1), TableSink(), scorer, progress=False, retry_incomplete=True)


async def test_a_new_sink_takes_a_monitors_rows_and_its_faults_never_reach_the_host() -> None:
    sink = TableSink()
    async with Scorer(OFFLINE) as scorer, Monitor(scorer, sink=sink) as monitor:
        monitor.submit(
            question="Who wrote Dune?", context=["Dune is by Frank Herbert."], response="Herbert.", id="m1"
        )
    assert list(sink.table) == ["m1"] and sink.events == ["open", "close"]

    class Broken(TableSink):
        async def write(self, row: dict[str, Any]) -> None:
            raise RuntimeError("the table is gone")

    broken = Broken()
    async with Scorer(OFFLINE) as scorer, Monitor(scorer, sink=broken) as monitor:
        for i in range(3):
            monitor.submit(question="q", context=["c"], response="r", id=f"b{i}")
    assert monitor.stats.scored == 3 and monitor.stats.sink_failed == 3
    assert "the table is gone" in (monitor.stats.sink_fault or "")
