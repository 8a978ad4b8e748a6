"""Result rows: one JSON object a line, ``id`` first, then the format marker, then the rest of
:data:`RESULT_FIELDS`, then the fields carried through from the input. Written as strict JSON (never
``NaN`` or ``Infinity``).

**The marker.** Every result row's second field is ``"trustscore": "result/1"`` (:data:`RESULT_FORMAT`:
the format's name and version), so a row begins ``{"id": "<id>", "trustscore": "result/1"`` and a
reader can tell trustscore's rows from any other JSONL with ids (a training set beside the test set)
by the first bytes of a line, even a line too long or too broken to parse. Readers that do not know
the marker see one more field.

**The size.** No row is written longer than :data:`MAX_ROW_BYTES` (what every reader reads of a
line): a result whose line would be longer is written as an error row instead (``score`` null,
``complete`` false, ``error`` saying how large it was), without its signals and carried fields.

:class:`OutputFile` is a result file opened for a run to append to. It only ever writes into a file
that is new, empty, or already a trustscore output, and checks that before changing a byte:

* a device, FIFO, socket, directory or symlink loop is refused;
* every complete line must be a result row (begin with the marker), else the file is refused naming
  the line, untouched;
* a line that begins with the marker but does not parse, or is longer than :data:`MAX_ROW_BYTES`
  (a row damaged on disk, or written by a trustscore without the size limit), is skipped and reported
  with its line number: its sample is scored again, and the rest of the file stays usable;
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
import re
import stat
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NamedTuple

from trustscore._errors import InputError
from trustscore._types import TrustScore
from trustscore.rows._ids import IdIndex
from trustscore.rows._input import MAX_LINE_BYTES, RESULT_FIELDS
from trustscore.rows._setup import RowPlace, RowSetup, SetupTally, row_setup

__all__ = [
    "MARKER_FIELD",
    "MAX_ROW_BYTES",
    "RESULT_FORMAT",
    "JsonlFileSink",
    "OutputFile",
    "WrittenRow",
    "begins_like_a_row",
    "carries_the_marker",
    "error_row",
    "is_cut_short_row",
    "result_row",
    "row_facts",
    "row_line",
    "row_state",
    "unscored_row",
    "written_row",
]

MARKER_FIELD = "trustscore"
RESULT_FORMAT = "result/1"
"""The value of :data:`MARKER_FIELD` in every result row: the row format's name and version."""

MAX_ROW_BYTES = MAX_LINE_BYTES
"""Longest result row written (its UTF-8 bytes with the newline): the longest line any reader reads."""

_ROW_START = b'{"id": '
"""How every result row begins (``id`` is written first, with json's default separators)."""

_MARKED_START = re.compile(rb'\{"id": "(?:[^"\\]|\\.)*", "trustscore": "result/1"[,}]')
"""How every result row of this format begins: its id (a JSON string), then the marker."""

_HEAD_BYTES = 2**16
"""How much of a line too long to read is kept to tell whose it is (ids are short)."""


def result_row(sample_id: str, result: TrustScore, carried: dict[str, Any]) -> dict[str, Any]:
    """The row written for one scored sample."""
    dumped = result.model_dump(mode="json")
    row = {
        "id": sample_id,
        MARKER_FIELD: RESULT_FORMAT,
        **{k: dumped[k] for k in RESULT_FIELDS if k not in ("id", MARKER_FIELD)},
    }
    row.update(carried)
    return row


def error_row(sample_id: str, line: int, reason: str) -> dict[str, Any]:
    """The row written for an input row that could not be scored, shaped as the Ray pipeline writes
    one: no score, no signals, incomplete (a rerun with ``--retry-incomplete`` tries it again),
    ``error`` with the reason and ``line`` with its input line (the marker is added as it is written)."""
    return {"id": sample_id, **unscored_row(0.0, reason), "line": line}


def unscored_row(seconds: float, reason: str) -> dict[str, Any]:
    """The result fields of a sample that has no score: not calibrated, no signals, incomplete, ``error``."""
    return {
        "score": None,
        "calibrated": False,
        "fusion": "none",
        "used_signals": [],
        "signals": {},
        "usage": {},
        "complete": False,
        "seconds": seconds,
        "error": reason,
    }


class WrittenRow(NamedTuple):
    row: dict[str, Any]
    line: str
    too_large: bool
    """Whether ``row`` is the error row that stands for a result too large to write."""


def written_row(row: dict[str, Any]) -> WrittenRow:
    """The row as it is written and its line: ``row`` with the marker after its id (ValueError on a
    NaN or infinite number), or an error row in its place when its line would be longer than
    :data:`MAX_ROW_BYTES`."""
    marked = {"id": row["id"], MARKER_FIELD: RESULT_FORMAT, **row}
    line = _dumps(marked)
    size = len(line.encode("utf-8", "surrogatepass"))
    if size <= MAX_ROW_BYTES:
        return WrittenRow(marked, line, too_large=False)
    reason = (
        f"the result row would be {size:,} bytes, over the limit of {MAX_ROW_BYTES:,}: a signal's "
        "explanation or a carried field is too large; it was not written (shorten the input's "
        "extra fields, or check the judge's answers)"
    )
    unscored = unscored_row(marked.get("seconds", 0.0), reason)
    too_large = {"id": marked["id"], MARKER_FIELD: RESULT_FORMAT, **unscored}
    return WrittenRow(too_large, _dumps(too_large), too_large=True)


def row_line(row: dict[str, Any]) -> str:
    """``row`` as it is written: one line of strict JSON (see :func:`written_row`)."""
    return written_row(row).line


def _dumps(row: dict[str, Any]) -> str:
    return json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n"


def row_state(text: str) -> tuple[str, bool]:
    """(id, complete) of a result row line; ValueError when it is not one (not JSON, no id, or no
    marker). A row written before ``complete`` existed counts as complete."""
    row_id, complete, _ = row_facts(text)
    return row_id, complete


def row_facts(text: str) -> tuple[str, bool, RowSetup | None]:
    """:func:`row_state` of a result row line, and the setup it was scored with (None when it records
    none: see :func:`~trustscore.rows._setup.row_setup`)."""
    try:
        row = json.loads(text)
        row_id, marker = row["id"], row[MARKER_FIELD]
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError, RecursionError) as e:
        raise ValueError(f"not a result row ({e})") from None
    if not isinstance(row_id, str) or marker != RESULT_FORMAT:
        raise ValueError(f"not a result row of format {RESULT_FORMAT!r}")
    return row_id, row.get("complete", True) is True, row_setup(row)


def carries_the_marker(raw: bytes) -> bool:
    """Whether a line (or its first bytes) begins as a result row of this format does."""
    return _MARKED_START.match(raw) is not None


def begins_like_a_row(raw: bytes) -> bool:
    """Whether ``raw`` begins like a result row (or is cut short inside that beginning)."""
    return raw.startswith(_ROW_START) or _ROW_START.startswith(raw)


_ID_SO_FAR = re.compile(rb'\{"id": "(?:[^"\\]|\\.)*\\?')
_AFTER_ID = b'", "trustscore": "result/1"'


def is_cut_short_row(raw: bytes) -> bool:
    """Whether a last line without its newline is a result row of this format, whole or cut short
    anywhere (also before the marker was written)."""
    if carries_the_marker(raw):
        return True
    id_so_far = _ID_SO_FAR.match(raw)
    if id_so_far is None:
        return b'{"id": "'.startswith(raw)
    return _AFTER_ID.startswith(raw[id_so_far.end() :])


@dataclass(frozen=True)
class _Line:
    number: int
    offset: int
    raw: bytes
    """The whole line, or its first :data:`_HEAD_BYTES` when it is over :data:`MAX_ROW_BYTES`."""
    size: int
    ends: bool
    """Whether it ends with its newline."""

    @property
    def oversized(self) -> bool:
        return self.size > MAX_ROW_BYTES


def _lines(file: IO[bytes]) -> Iterator[_Line]:
    """Every line from the file's position on, a line over :data:`MAX_ROW_BYTES` read in pieces and
    kept as its head only, so memory stays bounded by the limit whatever the file holds."""
    number, offset = 0, file.tell()
    while raw := file.readline(MAX_ROW_BYTES + 1):
        number += 1
        size = len(raw)
        if size > MAX_ROW_BYTES and not raw.endswith(b"\n"):
            raw = raw[:_HEAD_BYTES]
            while (piece := file.readline(2**20)) and not piece.endswith(b"\n"):
                size += len(piece)
            size += len(piece)
            ends = piece.endswith(b"\n")
        else:
            ends = raw.endswith(b"\n")
        yield _Line(number, offset, raw, size, ends)
        offset += size


class OutputFile:
    """A result file open for appending, locked, its earlier rows read (``rows``: id -> 1 complete,
    0 not; of two rows with one id the later counts; ``setups``: what scored them, as read). Use as
    a context manager or call ``close``."""

    def __init__(self, path: Path, file: IO[bytes], rows: IdIndex, setups: SetupTally) -> None:
        self.path = path
        self._file = file
        self.rows = rows
        self.setups = setups

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
            rows, setups = _read_rows(file, path)
        except BaseException:
            file.close()
            raise
        return cls(path, file, rows, setups)

    def write(self, row: dict[str, Any]) -> None:
        """Append one row and flush it."""
        data = row_line(row).encode("utf-8")
        try:
            self._file.write(data)
            self._file.flush()
        except OSError as e:
            raise _write_error(self.path, e) from None

    def drop(self, ids: IdIndex) -> None:
        """Rewrite the file without the rows of ``ids`` and without the damaged rows the open
        skipped (their samples are scored again), atomically: the new file is written beside it
        (locked before it takes the name), then moved over it; a crash leaves the old file."""
        fd, tmp_name = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp")
        tmp = Path(tmp_name)
        new = os.fdopen(fd, "r+b")
        try:
            _lock(new, tmp)
            self._file.seek(0)
            for line in _lines(self._file):
                if line.oversized or not line.raw.strip():
                    continue
                try:
                    row_id = row_state(line.raw.decode("utf-8"))[0]
                except (ValueError, UnicodeDecodeError):
                    if carries_the_marker(line.raw):
                        continue  # a damaged row of ours, skipped when the file was opened
                    raise
                if row_id not in ids:
                    new.write(line.raw)
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


class JsonlFileSink:
    """``trustscore score``'s result file as a :class:`~trustscore.rows.RetryableSink`: an
    :class:`OutputFile` opened (locked, its earlier rows read for the resume state) by :meth:`open`,
    each row appended and flushed as it is written."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._out: OutputFile | None = None

    @property
    def name(self) -> str:
        return str(self.path)

    async def open(self) -> IdIndex:
        self._out = OutputFile.open(self.path)
        return self._out.rows

    @property
    def setups(self) -> SetupTally:
        """What scored the rows the file held when it was opened."""
        return self._opened().setups

    async def write(self, row: dict[str, Any]) -> None:
        self._opened().write(row)

    async def flush(self) -> None:
        """Every row is flushed as it is written."""

    async def drop(self, ids: IdIndex) -> None:
        self._opened().drop(ids)

    async def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None

    def _opened(self) -> OutputFile:
        if self._out is None:
            raise RuntimeError(f"the result file {self.path} is not open: await open() first")
        return self._out


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


def _not_ours(path: Path, where: str) -> InputError:
    return InputError(
        f"{path}{where}: not a trustscore result row (rows trustscore writes begin "
        f'{{"id": ..., "{MARKER_FIELD}": "{RESULT_FORMAT}"), so this is not a trustscore output; it is '
        "left as it is: write to a new file (or fix or remove that line)"
    )


def _read_rows(file: IO[bytes], path: Path) -> tuple[IdIndex, SetupTally]:
    """The rows of an existing output and their setups, every line checked before anything is
    changed; then a torn last line is cut off (or a whole last row given its newline). Damaged rows
    of ours are skipped and reported."""
    ids, setups = IdIndex(), SetupTally()
    file.seek(0)
    raw_head = file.read(_HEAD_BYTES)
    head = raw_head.lstrip()  # blank lines before the first row are no reason to refuse
    if head and not begins_like_a_row(head[: len(_ROW_START)]):
        first = raw_head[: len(raw_head) - len(head)].count(b"\n") + 1
        raise _not_ours(path, f":{first}")
    file.seek(0)
    torn_at, whole_tail = None, False
    damaged: list[str] = []
    for line in _lines(file):
        if not line.raw.strip():
            continue
        if not line.ends and is_cut_short_row(line.raw):
            try:
                row_id, complete, setup = row_facts(line.raw.decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                torn_at = line.offset  # a killed run's half-written row
            else:
                ids.set(row_id, int(complete))
                setups.add(row_id, setup, RowPlace("line", line.number), complete=complete)
                whole_tail = True
            continue
        if line.oversized:
            if not carries_the_marker(line.raw):
                raise _not_ours(path, f":{line.number}")
            damaged.append(f"line {line.number} is {line.size:,} bytes, over the limit of {MAX_ROW_BYTES:,}")
            continue
        try:
            text = line.raw.decode("utf-8")
        except UnicodeDecodeError as e:
            if carries_the_marker(line.raw):
                damaged.append(f"line {line.number}: byte {e.start + 1} is not UTF-8")
                continue
            raise InputError(
                f"{path}:{line.number}: byte {e.start + 1} of the line is not UTF-8, so this is not a "
                "trustscore output; it is left as it is: write to a new file"
            ) from None
        try:
            row_id, complete, setup = row_facts(text)
        except ValueError as e:
            if not carries_the_marker(line.raw):
                raise _not_ours(path, f":{line.number}") from None
            damaged.append(f"line {line.number}: {e}")
            continue
        ids.set(row_id, int(complete))
        setups.add(row_id, setup, RowPlace("line", line.number), complete=complete)
    for why in damaged:
        print(
            f"trustscore: {path}: skipping a damaged result row ({why}); its sample is scored again",
            file=sys.stderr,
        )
    if torn_at is not None:
        print(f"trustscore: {path}: dropping an incomplete last line (interrupted write)", file=sys.stderr)
        file.truncate(torn_at)
    elif whole_tail:
        file.write(b"\n")
        file.flush()
    file.seek(0, os.SEEK_END)
    return ids, setups


def _write_error(path: Path, error: OSError) -> OSError:
    """The error as one line naming the output file (disk full and read-only have no filename)."""
    return OSError(error.errno, f"cannot write the results: {error.strerror or error}", str(path))
