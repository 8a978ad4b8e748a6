"""Where result rows go: the :class:`ResultSink` protocol every face writes through, and
:class:`RowSink`, the JSONL file a ``Monitor`` appends to, which never harms the program writing to it.

A sink is opened once (it answers with its resume state: the ids it already holds and whether each
row is complete, empty for a sink that keeps none), written one row at a time, flushed, and closed.
``trustscore score`` writes its result file through one (:class:`~trustscore.rows.JsonlFileSink`,
or any sink passed to :func:`~trustscore.cli._score.score_file`), as a ``Monitor`` does (a path, or
any sink), the service's batch answer (``api/_batch.py``) and ``score --ray``'s part files
(``ray/_part_files.py``, written in Ray's workers; there a row is the scoring actor's columns: the
typed ones and the row's line, already written). A new destination (a database, a queue, a
Parquet file) is one class with these four methods.

:class:`RowSink`:

The file is opened and written in a worker thread, never on the event loop. It is opened with
``O_NONBLOCK`` (opening a FIFO never waits for a reader) and must be a regular file: a FIFO, a device
such as ``/dev/full`` or a directory is refused with its reason. A file whose last line was torn (its
writer killed mid-row) gets a newline first, so the torn line stays one broken line and every row
written after it is whole. A fault (refused, disk full, I/O error, permission) is raised as an
``OSError`` whose text is the one-line reason (the first is kept in :attr:`RowSink.fault`); a Monitor
counts it and logs it once, as it does any sink's, and the host never sees it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import anyio

from trustscore.rows._ids import IdIndex
from trustscore.rows._output import row_line
from trustscore.rows._setup import SetupTally

__all__ = ["ResultSink", "RetryableSink", "RowSink", "SetupRecordingSink"]


_OPEN_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


@runtime_checkable
class ResultSink(Protocol):
    """Where result rows go (result rows and error rows, as :func:`~trustscore.rows.result_row` and
    :func:`~trustscore.rows.error_row` make them)."""

    @property
    def name(self) -> str:
        """Where the rows go, for messages (a path, a table, a URL without credentials)."""
        ...

    async def open(self) -> IdIndex:
        """Get ready; the ids already written, each with 1 when its row is complete, 0 when not (a
        run skips the complete ones); an empty index for a sink that keeps no rows to resume from."""
        ...

    async def write(self, row: dict[str, Any]) -> None:
        """Add one row."""
        ...

    async def flush(self) -> None:
        """Make the rows written so far durable (or visible) where they go."""
        ...

    async def close(self) -> None:
        """Flush and let go; the sink is not written after."""
        ...


@runtime_checkable
class RetryableSink(ResultSink, Protocol):
    """A sink that can take rows back: ``--retry-incomplete`` drops the incomplete rows of an earlier
    run before it scores their samples again."""

    async def drop(self, ids: IdIndex) -> None:
        """Remove the rows of ``ids``."""
        ...


@runtime_checkable
class SetupRecordingSink(ResultSink, Protocol):
    """A sink that resumes and, once open, says what scored its earlier rows: a run refuses to add
    rows scored another way beside them."""

    @property
    def setups(self) -> SetupTally:
        """The setups of the rows the sink held when it was opened."""
        ...


class RowSink:
    """Appends result rows to ``path`` as JSONL (a :class:`ResultSink`); opened on the first write,
    in a worker thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.written = 0
        """Rows written."""
        self.fault: str | None = None
        """The first fault, as one line (None while there was none)."""
        self._fd: int | None = None
        self._opened = False
        self._check_tail = True
        self._lock = anyio.Lock()

    @property
    def name(self) -> str:
        return str(self.path)

    async def open(self) -> IdIndex:
        """Nothing to resume: a Monitor appends; the file itself is opened by the first write."""
        return IdIndex()

    async def flush(self) -> None:
        """Each row is one write to the file: nothing is held back."""

    async def write(self, row: dict[str, Any]) -> None:
        """Append one row; a fault raises OSError with its one-line reason."""
        line = row_line(row)
        async with self._lock:  # one row at a time, so rows never interleave
            try:
                await anyio.to_thread.run_sync(self._write_sync, line.encode("utf-8"))
            except Exception as e:
                self._check_tail = True  # a fault may have left part of the row behind
                why = e.strerror if isinstance(e, OSError) and e.strerror else repr(e)
                self.fault = self.fault or why
                raise OSError(0, why) from e
            else:
                self.written += 1

    async def close(self) -> None:
        async with self._lock:
            fd, self._fd = self._fd, None
            if fd is not None:
                await anyio.to_thread.run_sync(os.close, fd)

    def _write_sync(self, data: bytes) -> None:
        if not self._opened:
            self._opened = True
            self._fd = self._open_sync()
        if self._fd is None:
            raise OSError(0, self.fault or "not open")
        if self._check_tail:
            _end_torn_line(self._fd)
            self._check_tail = False
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]

    def _open_sync(self) -> int:
        fd = os.open(self.path, _OPEN_FLAGS, 0o644)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise OSError(0, "not a regular file (a FIFO, a device or a directory); give a file path")
            os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        return fd


def _end_torn_line(fd: int) -> None:
    """End a row torn by a killed writer (or a full disk), so what follows stays whole."""
    size = os.fstat(fd).st_size
    if size > 0 and os.pread(fd, 1, size - 1) != b"\n":
        os.write(fd, b"\n")
