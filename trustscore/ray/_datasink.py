"""Ray Data's writer of ``score --ray``'s part files: each write task writes its rows through a
:class:`~trustscore.ray._part_files.PartFileSink`, so the Ray run writes through the same
:class:`~trustscore.rows.ResultSink` protocol as the local CLI, a Monitor and the service.

Ray keeps what it does for any file datasink: the part file's name (unique to the run and the
task), the filesystem, and a write retried on the errors Ray retries. The rows reach the writer as
the actors made them (typed columns, and ``result``: the row's JSON line) and are passed through as
they are: a JSONL part file holds each ``result`` byte for byte, a Parquet one every column as the
actor typed it (nothing parsed back, so an input row's own fields stay in ``result``).
"""

from __future__ import annotations

from typing import Any

import anyio
import pyarrow as pa
from ray.data.block import BlockAccessor
from ray.data.datasource import BlockBasedFileDatasink

from trustscore.ray._files import Format
from trustscore.ray._part_files import PartFileSink

__all__ = ["PartFileDatasink"]


class PartFileDatasink(BlockBasedFileDatasink):
    """Writes a scored Dataset (the actors' columns) into ``location``, one part file per write task,
    in ``fmt``."""

    def __init__(self, location: str, fmt: Format) -> None:
        super().__init__(location, file_format=fmt)
        self._location = location
        self._format: Format = fmt

    def write_block_to_file(self, block: BlockAccessor, file: pa.NativeFile) -> None:
        rows = block.to_arrow().to_pylist()
        sink = PartFileSink(f"a part file in {self._location}", self._format, lambda: file)
        anyio.run(_write_all, sink, rows)


async def _write_all(sink: PartFileSink, rows: list[dict[str, Any]]) -> None:
    await sink.open()
    try:
        for row in rows:
            await sink.write(row)
        await sink.flush()
    finally:
        await sink.close()
