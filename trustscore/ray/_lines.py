"""JSONL input for Ray Data, split into lines exactly as the local command splits them.

``ray.data.read_text`` splits on every Unicode line break (a JSON string may hold a raw U+2028), drops
the line numbers and fails the whole read on one line that is not UTF-8. This datasource reads each
file with :func:`trustscore.rows._input.numbered_lines`, the local command's reader: lines end at
``\\n`` only, blank lines are skipped, a byte-order mark opening the file is skipped, and every row
keeps its line number, so an invalid row's error row names its line as the local command's does.
A file that cannot be read as lines (not UTF-8, a line too long) stops the run with the local
command's :class:`~trustscore._errors.InputError`, naming the file and the line.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pyarrow as pa
from ray.data.datasource import FileBasedDatasource

from trustscore.rows._input import numbered_lines

if TYPE_CHECKING:
    from ray.data.block import Block

__all__ = ["LINES_SCHEMA", "JsonlLines"]

LINES_SCHEMA = pa.schema([("text", pa.string()), ("line", pa.int64())])
"""One row per non-blank input line: its text and its number in its file (from 1)."""


class JsonlLines(FileBasedDatasource):
    """``ray.data.read_datasource(JsonlLines(paths))``: rows ``text`` and ``line``."""

    def _read_stream(self, f: pa.NativeFile, path: str) -> Iterator[Block]:
        texts: list[str] = []
        numbers: list[int] = []
        for number, text in numbered_lines(io.BytesIO(f.readall()), path):
            texts.append(text)
            numbers.append(number)
        columns = [pa.array(texts, pa.string()), pa.array(numbers, pa.int64())]
        yield pa.Table.from_arrays(columns, schema=LINES_SCHEMA)
