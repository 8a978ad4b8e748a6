"""A row sink that never harms the program writing to it: the JSONL file a ``Monitor`` appends to.

The file is opened and written in a worker thread, never on the event loop. It is opened with
``O_NONBLOCK`` (opening a FIFO never waits for a reader) and must be a regular file: a FIFO, a device
such as ``/dev/full`` or a directory is refused with its reason. A file whose last line was torn (its
writer killed mid-row) gets a newline first, so the torn line stays one broken line and every row
written after it is whole. A fault (refused, disk full, I/O error, permission) never raises: the rows
it cost are counted in :attr:`RowSink.failed`, its reason is kept in :attr:`RowSink.fault`, and it is
logged once per sink, not once per row.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import anyio

__all__ = ["RowSink"]

logger = logging.getLogger("trustscore.monitor")

_OPEN_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


class RowSink:
    """Appends lines to ``path``; opened on the first write, in a worker thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.written = 0
        """Rows written."""
        self.failed = 0
        """Rows not written because of a fault."""
        self.fault: str | None = None
        """The first fault, as one line (None while there was none)."""
        self._fd: int | None = None
        self._opened = False
        self._check_tail = True
        self._lock = anyio.Lock()

    async def write(self, line: str) -> None:
        """Append one row line; a fault is counted and logged, never raised."""
        async with self._lock:  # one row at a time, so rows never interleave
            try:
                await anyio.to_thread.run_sync(self._write_sync, line.encode("utf-8"))
            except Exception as e:  # whatever it is, the host never sees it
                self._check_tail = True  # a fault may have left part of the row behind
                self._count_fault(e.strerror if isinstance(e, OSError) and e.strerror else repr(e))
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

    def _count_fault(self, why: str) -> None:
        self.failed += 1
        if self.fault is None:
            self.fault = why
            logger.warning(
                "monitoring: the sink %s cannot be written (%s); rows go unwritten and are counted in "
                "Monitor.stats.sink_failed",
                self.path,
                why,
            )


def _end_torn_line(fd: int) -> None:
    """End a row torn by a killed writer (or a full disk), so what follows stays whole."""
    size = os.fstat(fd).st_size
    if size > 0 and os.pread(fd, 1, size - 1) != b"\n":
        os.write(fd, b"\n")
