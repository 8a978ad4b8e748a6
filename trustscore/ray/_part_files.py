"""The output of ``trustscore score --ray``: a directory of part files.

* :class:`PartFileSink` is one part file, a :class:`~trustscore.rows.ResultSink` (JSONL: the local
  CLI's result rows; Parquet: the typed columns and that same row as ``result``). Ray Data's write
  task for a block opens one on the stream Ray opened for the file, writes each of the block's rows
  through it (the columns the scoring actors made, passed through as they are), flushes and closes
  it (:class:`~trustscore.ray._datasink.PartFileDatasink`). A part file is new, so it has nothing to
  resume from.
* :class:`PartFileDirectory` is the whole output directory's state between runs: opening it repairs
  a part file a killed run cut short and answers the ids in the finished part files (the resume
  state) and what scored their rows (``setups``, which the run compares with its own), ``drop``
  removes rows from the files that hold them (``--retry-incomplete``). Rows reach the directory only
  through Ray's write tasks. It takes no lock: ``score --ray`` holds the directory's
  (:func:`~trustscore.ray._files.locked_output`) around it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from trustscore.ray._files import Format, drop_rows, previous_rows
from trustscore.ray._rows import OUTPUT_SCHEMA
from trustscore.rows import IdIndex
from trustscore.rows._setup import SetupTally

__all__ = ["PartFileDirectory", "PartFileSink"]

_COLUMNS = frozenset(OUTPUT_SCHEMA.names)


class PartFileSink:
    """One part file, written row by row to the stream ``open_stream`` gives; ``name``: its path.

    A row is one scored row as the scoring actor made it: the :data:`OUTPUT_SCHEMA` columns, its
    typed columns and ``result``, its line already written (the size limit applied). JSONL takes
    each ``result`` as its line, as it comes; Parquet holds the rows until ``flush``, which writes
    them as one row group. Nothing is parsed again: an input row's own fields stay in ``result``."""

    def __init__(self, name: str, fmt: Format, open_stream: Callable[[], pa.NativeFile]) -> None:
        self._name = name
        self._format = fmt
        self._open_stream = open_stream
        self._stream: pa.NativeFile | None = None
        self._parquet: pq.ParquetWriter | None = None
        self._pending: list[dict[str, Any]] = []

    @property
    def name(self) -> str:
        return self._name

    async def open(self) -> IdIndex:
        """Open the stream; a new part file holds no rows to resume from."""
        self._stream = self._open_stream()
        if self._format == "parquet":
            self._parquet = pq.ParquetWriter(self._stream, OUTPUT_SCHEMA)
        return IdIndex()

    async def write(self, row: dict[str, Any]) -> None:
        """Add one row of the actors' columns (ValueError naming the columns when it is not one)."""
        stream = self._opened()
        if set(row) != _COLUMNS:
            raise ValueError(
                f"a part file row has the columns {sorted(row)}; it takes the scoring actors' "
                f"{sorted(_COLUMNS)} (OUTPUT_SCHEMA)"
            )
        if self._format == "parquet":
            self._pending.append(row)
        else:
            stream.write((row["result"] + "\n").encode("utf-8"))

    async def flush(self) -> None:
        if self._parquet is not None and self._pending:
            self._parquet.write_table(pa.Table.from_pylist(self._pending, schema=OUTPUT_SCHEMA))
            self._pending.clear()
        self._opened().flush()

    async def close(self) -> None:
        """Flush, then close the Parquet writer and the stream even when the flush fails."""
        if self._stream is None:
            return
        try:
            await self.flush()
        finally:
            parquet, self._parquet = self._parquet, None
            stream, self._stream = self._stream, None
            self._pending.clear()
            try:
                if parquet is not None:
                    parquet.close()
            finally:
                stream.close()

    def _opened(self) -> pa.NativeFile:
        if self._stream is None:
            raise RuntimeError(f"the part file {self._name} is not open: await open() first")
        return self._stream


class PartFileDirectory:
    """The output directory of ``score --ray`` (``location``, a path or a URI; ``fmt``: its format):
    its resume state and ``--retry-incomplete``'s drop, the two things a run asks of it before Ray
    writes the new part files."""

    def __init__(self, location: str, fmt: Format) -> None:
        self.location = location
        self.format = fmt
        self.dropped = 0
        """Rows the last ``drop`` removed."""
        self.setups = SetupTally()
        """What scored the rows the part files held when the directory was opened."""

    @property
    def name(self) -> str:
        return self.location

    async def open(self) -> IdIndex:
        """The ids in the finished part files, each 1 when its row is complete, 0 when not, after a
        part file cut short by a killed run is repaired (its torn rows are scored again); ``setups``
        then holds what scored those rows."""
        held, self.setups = IdIndex(), SetupTally()
        for row_id, complete in previous_rows(self.location, self.format, self.setups).items():
            held.set(row_id, int(complete))
        return held

    async def drop(self, ids: IdIndex) -> None:
        """Remove the rows of ``ids`` from the part files that hold them (each rewritten atomically)."""
        self.dropped = drop_rows(self.location, self.format, ids)
