"""Result rows: one JSON object a line, ``id`` first, then the rest of :data:`RESULT_FIELDS`, then the
fields carried through from the input. Written as strict JSON (never ``NaN`` or ``Infinity``).

:class:`OutputFile` is a result file opened for a run to append to. It only ever writes into a file
that is new, empty, or already a trustscore output, and checks that before changing a byte:

* a device, FIFO, socket, directory or symlink loop is refused;
* every complete line must be a result row (a JSON object with an ``id``), else the file is refused
  naming the line, untouched;
* a last line without its newline is a killed run's torn write only when it begins like a result
  row (``{"id": ``): it is cut off (that sample is scored again), or, when it is a whole row, given
  its newline. Any other last line refuses the file;
* the file is locked (``flock``) while the run appends: a second run on the same file is refused at
  once instead of writing every id a second time.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

from trustscore.errors import InputError
from trustscore.rows.ids import IdIndex
from trustscore.rows.input import MAX_LINE_BYTES, RESULT_FIELDS
from trustscore.types import TrustScore

__all__ = ["OutputFile", "begins_like_a_row", "error_row", "result_row", "row_line", "row_state"]

_ROW_START = b'{"id": '
"""How every result row begins (``id`` is written first, with json's default separators)."""


def result_row(sample_id: str, result: TrustScore, carried: dict[str, Any]) -> dict[str, Any]:
    """The row written for one scored sample."""
    dumped = result.model_dump(mode="json")
    row = {"id": sample_id, **{k: dumped[k] for k in RESULT_FIELDS if k != "id"}}
    row.update(carried)
    return row


def error_row(sample_id: str, line: int, reason: str) -> dict[str, Any]:
    """The row written for an input row that could not be scored, shaped as the Ray pipeline writes
    one: no score, no signals, incomplete (a rerun with ``--retry-incomplete`` tries it again),
    ``error`` with the reason and ``line`` with its input line."""
    return {
        "id": sample_id,
        "score": None,
        "calibrated": False,
        "fusion": "none",
        "used_signals": [],
        "signals": {},
        "usage": {},
        "complete": False,
        "seconds": 0.0,
        "error": reason,
        "line": line,
    }


def row_line(row: dict[str, Any]) -> str:
    """``row`` as one line of strict JSON (ValueError on a NaN or infinite number)."""
    return json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n"


def row_state(text: str) -> tuple[str, bool]:
    """(id, complete) of a result row line; ValueError when it is not one. A row written before
    ``complete`` existed counts as complete."""
    try:
        row = json.loads(text)
        return str(row["id"]), row.get("complete", True) is True
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError, RecursionError) as e:
        raise ValueError(str(e)) from None


class OutputFile:
    """A result file open for appending, locked, its earlier rows read (``rows``: id -> 1 complete,
    0 not; of two rows with one id the later counts). Use as a context manager or call ``close``."""

    def __init__(self, path: Path, file: IO[bytes], rows: IdIndex) -> None:
        self.path = path
        self._file = file
        self.rows = rows

    @classmethod
    def open(cls, path: Path) -> OutputFile:
        _check_kind(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o666)
        except OSError as e:
            raise _write_error(path, e) from None
        file = os.fdopen(fd, "r+b")
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped after the check above
                raise InputError(f"-o {path} is not a regular file; give the path of a JSONL file")
            _lock(file, path)
            rows = _read_rows(file, path)
        except BaseException:
            file.close()
            raise
        return cls(path, file, rows)

    def write(self, row: dict[str, Any]) -> None:
        """Append one row and flush it."""
        data = row_line(row).encode("utf-8")
        try:
            self._file.write(data)
            self._file.flush()
        except OSError as e:
            raise _write_error(self.path, e) from None

    def drop(self, ids: IdIndex) -> None:
        """Rewrite the file without the rows of ``ids``, atomically: the new file is written beside
        it (locked before it takes the name), then moved over it; a crash leaves the old file."""
        fd, tmp_name = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp")
        tmp = Path(tmp_name)
        new = os.fdopen(fd, "r+b")
        try:
            _lock(new, tmp)
            self._file.seek(0)
            while raw := self._file.readline(MAX_LINE_BYTES + 1):
                if raw.strip() and row_state(raw.decode("utf-8"))[0] not in ids:
                    new.write(raw)
            new.flush()
            os.chmod(tmp, stat.S_IMODE(os.fstat(self._file.fileno()).st_mode))
            os.replace(tmp, self.path)
        except BaseException as e:
            new.close()
            tmp.unlink(missing_ok=True)
            if isinstance(e, OSError):
                raise _write_error(self.path, e) from None
            raise
        self._file.close()
        self._file = new
        self._file.seek(0, os.SEEK_END)
        self.rows = _index_without(self.rows, ids)

    def close(self) -> None:
        self._file.close()  # releases the lock

    def __enter__(self) -> OutputFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _index_without(rows: IdIndex, ids: IdIndex) -> IdIndex:
    kept = IdIndex()
    for i, complete in rows.items():
        if i not in ids:
            kept.add(i, complete)
    return kept


def _check_kind(path: Path) -> None:
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    except OSError as e:
        why = "a symlink loop" if e.errno == errno.ELOOP else (e.strerror or str(e))
        raise InputError(f"-o {path} cannot be used: {why}") from None
    if stat.S_ISDIR(mode):
        raise InputError(f"-o {path} is a directory; give the path of a JSONL file to write")
    if not stat.S_ISREG(mode):
        raise InputError(
            f"-o {path} is not a regular file (a device, a FIFO or a socket); give the path of a JSONL file"
        )


def _lock(file: IO[bytes], path: Path) -> None:
    try:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise InputError(
            f"-o {path} is being written by another trustscore run; wait for it to finish or write to "
            "another file"
        ) from None


def begins_like_a_row(raw: bytes) -> bool:
    """Whether ``raw`` begins like a result row (or is cut short inside that beginning)."""
    return raw.startswith(_ROW_START) or _ROW_START.startswith(raw)


def _not_ours(path: Path, where: str) -> InputError:
    return InputError(
        f"{path}{where}: not a trustscore result row, so this is not a trustscore output; it is left "
        "as it is: write to a new file (or fix or remove that line)"
    )


def _read_rows(file: IO[bytes], path: Path) -> IdIndex:
    """The rows of an existing output, every line checked before anything is changed; then a torn
    last line is cut off (or a whole last row given its newline)."""
    ids = IdIndex()
    file.seek(0)
    raw_head = file.read(2**16)
    head = raw_head.lstrip()  # blank lines before the first row are no reason to refuse
    if head and not begins_like_a_row(head[: len(_ROW_START)]):
        line = raw_head[: len(raw_head) - len(head)].count(b"\n") + 1
        raise _not_ours(path, f":{line}")
    file.seek(0)
    offset, number, torn_at, whole_tail = 0, 0, None, False
    while raw := file.readline(MAX_LINE_BYTES + 1):
        number += 1
        ends = raw.endswith(b"\n")
        if not ends and len(raw) > MAX_LINE_BYTES:
            raise _not_ours(path, f":{number}")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(
                f"{path}:{number}: byte {e.start + 1} of the line is not UTF-8, so this is not a "
                "trustscore output; it is left as it is: write to a new file"
            ) from None
        if text.strip():
            try:
                row_id, complete = row_state(text)
            except ValueError:
                if ends or not begins_like_a_row(raw):
                    raise _not_ours(path, f":{number}") from None
                torn_at = offset  # a killed run's half-written row
            else:
                ids.set(row_id, int(complete))
                whole_tail = not ends
        offset += len(raw)
    if torn_at is not None:
        print(f"trustscore: {path}: dropping an incomplete last line (interrupted write)", file=sys.stderr)
        file.truncate(torn_at)
    elif whole_tail:
        file.write(b"\n")
        file.flush()
    file.seek(0, os.SEEK_END)
    return ids


def _write_error(path: Path, error: OSError) -> OSError:
    """The error as one line naming the output file (disk full and read-only have no filename)."""
    return OSError(error.errno, f"cannot write the results: {error.strerror or error}", str(path))
