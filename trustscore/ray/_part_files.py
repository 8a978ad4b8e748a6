"""The output of ``trustscore score --ray`` as :class:`~trustscore.rows.ResultSink` s: a directory of
part files, each part file written through one.

* :class:`PartFileSink` is one part file (JSONL: the local CLI's result rows; Parquet: the typed
  columns and that same row as ``result``). Ray Data's write task for a block opens one on the
  stream Ray opened for the file, writes each row through it, flushes and closes it
  (:class:`~trustscore.ray._datasink.PartFileDatasink`). A part file is new, so it has nothing to
  resume from.
* :class:`PartFileDirectory` is the whole output directory, a
  :class:`~trustscore.rows.RetryableSink`: opening it repairs a part file a killed run cut short and
  answers the ids in the finished part files (the resume state), ``drop`` removes rows from the
  files that hold them (``--retry-incomplete``), and rows written to it go into one part file of its
  own. It takes no lock: ``score --ray`` holds the directory's (:func:`~trustscore.ray._files.locked_output`)
  around it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from trustscore.ray._files import Format, drop_rows, filesystem, previous_rows
from trustscore.ray._rows import OUTPUT_SCHEMA, typed_columns
from trustscore.rows import IdIndex
from trustscore.rows._output import written_row

__all__ = ["PartFileDirectory", "PartFileSink"]


class PartFileSink:
    """One part file, written row by row to the stream ``open_stream`` gives; ``name``: its path.
    JSONL rows are written as they come; Parquet rows are held until ``flush``, which writes them
    as one row group. A row too large to write becomes an error row, as in every sink."""

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
        written = written_row(row)
        if self._format == "parquet":
            self._pending.append(typed_columns(written, written.row.get("error")))
        else:
            self._opened().write(written.line.encode("utf-8"))

    async def flush(self) -> None:
        if self._parquet is not None and self._pending:
            self._parquet.write_table(pa.Table.from_pylist(self._pending, schema=OUTPUT_SCHEMA))
            self._pending.clear()
        self._opened().flush()

    async def close(self) -> None:
        if self._stream is None:
            return
        await self.flush()
        if self._parquet is not None:
            self._parquet.close()
            self._parquet = None
        self._stream.close()
        self._stream = None

    def _opened(self) -> pa.NativeFile:
        if self._stream is None:
            raise RuntimeError(f"the part file {self._name} is not open: await open() first")
        return self._stream


class PartFileDirectory:
    """The output directory of ``score --ray`` (``location``, a path or a URI; ``fmt``: its format)."""

    def __init__(self, location: str, fmt: Format) -> None:
        self.location = location
        self.format = fmt
        self.dropped = 0
        """Rows the last ``drop`` removed."""
        self._part: PartFileSink | None = None

    @property
    def name(self) -> str:
        return self.location

    async def open(self) -> IdIndex:
        """The ids in the finished part files, each 1 when its row is complete, 0 when not, after a
        part file cut short by a killed run is repaired (its torn rows are scored again)."""
        held = IdIndex()
        for row_id, complete in previous_rows(self.location, self.format).items():
            held.set(row_id, int(complete))
        return held

    async def drop(self, ids: IdIndex) -> None:
        """Remove the rows of ``ids`` from the part files that hold them (each rewritten atomically)."""
        self.dropped = drop_rows(self.location, self.format, ids)

    async def write(self, row: dict[str, Any]) -> None:
        """Add one row to this sink's own part file, a new one beside the others."""
        if self._part is None:
            fs, root = filesystem(self.location)
            fs.create_dir(root, recursive=True)
            path = f"{root}/{uuid.uuid4().hex}_000000.{self.format}"
            self._part = PartFileSink(path, self.format, lambda: fs.open_output_stream(path))
            await self._part.open()
        await self._part.write(row)

    async def flush(self) -> None:
        if self._part is not None:
            await self._part.flush()

    async def close(self) -> None:
        part, self._part = self._part, None
        if part is not None:
            await part.close()
