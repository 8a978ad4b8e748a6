"""Input rows: one JSON object a line with ``question``, ``response``, optional ``context`` (a string
or a list of passages) and optional ``id``; every other field is carried through untouched (it
becomes the Sample's ``metadata`` and is copied into the result row). A row without ``id`` gets the
hash of its question, context and response as its id.

What a line must be, and what each odd input gets (one :class:`~trustscore.errors.InputError` naming
the line, never a traceback):

* UTF-8 text; a byte-order mark at the start of the file is skipped. A line is read at most
  :data:`MAX_LINE_BYTES` bytes far: a longer one cannot hold a sample within
  :data:`~trustscore.types.MAX_SAMPLE_CHARS` and is refused before it is read whole.
* Strict JSON: ``NaN``, ``Infinity``, a number too large for a float (``1e999``) and integers of more
  than 4,300 digits are refused (the output must stay JSON every parser reads).
* The input may be a regular file, a pipe (``<(cmd)``, a FIFO) or ``-`` for standard input: a pipe is
  read once, its lines kept in an unnamed temporary file for the second pass. A device, a directory
  or a symlink loop is refused.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from trustscore.core.hashing import canonical_json, short_hash
from trustscore.errors import InputError
from trustscore.rows.ids import IdIndex
from trustscore.scoring.inputs import validate_sample
from trustscore.types import MAX_SAMPLE_CHARS, Sample, find_bad_text, text_problem

__all__ = [
    "MAX_LINE_BYTES",
    "RESULT_FIELDS",
    "SAMPLE_FIELDS",
    "InputFile",
    "InputRow",
    "parse_row",
    "read_jsonl",
]

SAMPLE_FIELDS = ("question", "context", "response", "id")
RESULT_FIELDS = (
    "id",
    "trustscore",
    "score",
    "calibrated",
    "not_calibrated_reason",
    "fusion",
    "used_signals",
    "signals",
    "usage",
    "complete",
    "incomplete_signals",
    "seconds",
    "domain",
    "cascade",
)
"""The fields of a result row, in the order they are written (then the carried-through fields).
``trustscore`` is the format marker every result row carries (see :mod:`trustscore.rows.output`)."""

MAX_LINE_BYTES = 12 * MAX_SAMPLE_CHARS + 2**20
"""Longest line read (~121 MB): a sample's characters at 12 bytes each (an astral character written
as two ``\\uXXXX`` escapes, the longest JSON spelling of one character) plus 1 MiB of keys, commas
and numbers."""

_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class InputRow:
    line: int
    sample: Sample
    carried: dict[str, Any]
    """Fields other than question/context/response/id, copied into the output row as they are."""


def read_jsonl(path: str | Path) -> Iterator[Sample]:
    """The samples of a JSONL file (``-`` reads standard input), one at a time, each with its extra
    fields (``hallucinated``, ``task``, ...) in ``metadata``. A bad line raises
    :class:`~trustscore.errors.InputError` naming it when it is reached::

        async with Scorer.from_config("trustscore.toml") as scorer:
            async with scorer.stream(read_jsonl("samples.jsonl")) as results:
                async for index, result in results:
                    ...
    """
    name = str(path)
    with open_input(Path(path)) as stream:
        for number, line in numbered_lines(stream, name):
            yield parse_row(line, f"{name}:{number}", number).sample


def parse_row(text: str, where: str, line: int = 0) -> InputRow:
    """One input line (number ``line``) as a row; an error is an InputError beginning ``where: ``."""
    try:
        data = _strict_json(text)
    except json.JSONDecodeError as e:
        raise InputError(
            f"{where}: not valid JSON ({e.msg.removesuffix(' at')} at column {e.colno})"
        ) from None
    except _NotANumber as e:
        raise InputError(f"{where}: {e}") from None
    except ValueError as e:  # int() refuses > 4,300 digits
        raise InputError(f"{where}: a number is too long to read ({e})") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply to be a sample") from None
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a JSON object with question, context and response")
    clashes = [k for k in data if k in RESULT_FIELDS and k != "id"]
    if clashes:
        raise InputError(f"{where}: field(s) {clashes} would be overwritten by the result; rename them")
    carried = {k: v for k, v in data.items() if k not in SAMPLE_FIELDS}
    # Checked here so the message names the JSONL field; a lone surrogate would otherwise abort
    # the output write of this row and of every resume after it.
    for key, value in carried.items():
        shown = key.encode("utf-8", "backslashreplace").decode()
        if problem := text_problem(key):
            raise InputError(f"{where}: field name {shown!r} {problem}")
        if found := find_bad_text(value, f"field {shown!r}"):
            raise InputError(f"{where}: {found}")
    fields = {k: data[k] for k in SAMPLE_FIELDS if k in data}
    if isinstance(fields.get("id"), int) and not isinstance(fields["id"], bool):
        fields["id"] = str(fields["id"])
    try:
        sample = validate_sample({**fields, "metadata": carried}, where="")
    except InputError as e:
        raise InputError(f"{where}: {e}") from None
    if sample.id is None:
        content = canonical_json(
            {"question": sample.question, "context": sample.context, "response": sample.response}
        )
        sample = sample.model_copy(update={"id": short_hash(content, 16)})
    return InputRow(line=line, sample=sample, carried=carried)


class _NotANumber(ValueError):
    pass


def _refuse_constant(name: str) -> Any:
    raise _NotANumber(f"{name} is not a JSON number; write null or a finite number")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _NotANumber(f"{text[:20]} is beyond the range of a float; write a smaller number")
    return value


def _strict_json(line: str) -> Any:
    return json.loads(line, parse_constant=_refuse_constant, parse_float=_finite_float)


class InputFile:
    """A checked input, read again lazily (one row at a time) each time it is iterated, so a run's
    memory does not grow with it. Only the ids are kept (resume needs them), each with its line.
    A pipe is read once: its lines are kept in an unnamed temporary file for the later passes."""

    def __init__(self, path: Path, ids: IdIndex, spool: IO[bytes] | None) -> None:
        self.path = path
        self.ids = ids
        self._spool = spool

    @classmethod
    def check(cls, path: Path) -> InputFile:
        """Validate every line; the first problem raises InputError with its line number."""
        first_line_of = IdIndex()
        name = str(path)
        spool: IO[bytes] | None = None
        with open_input(path) as stream:
            if not _is_regular(stream):
                spool = tempfile.TemporaryFile()  # noqa: SIM115 (kept open for the later passes; unnamed)
            for number, line in numbered_lines(stream, name, copy_to=spool):
                row = parse_row(line, f"{name}:{number}", number)
                previous = first_line_of.add(row.sample.id or "", number)
                if previous is not None:
                    raise InputError(
                        f"{name}:{number}: id {row.sample.id!r} already used on line {previous}; ids must "
                        f"be unique (they are how an interrupted run resumes)"
                    )
        if not first_line_of:
            raise InputError(f"input file {path} has no samples (expected one JSON object a line)")
        return cls(path, first_line_of, spool)

    def __iter__(self) -> Iterator[InputRow]:
        name = str(self.path)
        if self._spool is not None:
            self._spool.seek(0)
            for number, line in numbered_lines(self._spool, name):
                yield parse_row(line, f"{name}:{number}", number)
            return
        with open_input(self.path) as stream:
            for number, line in numbered_lines(stream, name):
                yield parse_row(line, f"{name}:{number}", number)


def open_input(path: Path) -> IO[bytes]:
    """The input as a binary stream: a regular file, a pipe, or standard input for ``-``."""
    if str(path) == "-":
        return os.fdopen(os.dup(sys.stdin.fileno()), "rb")
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise InputError(f"input file {path} does not exist") from None
    except OSError as e:
        raise InputError(f"input file {path} cannot be read: {_why(e)}") from None
    if stat.S_ISDIR(mode):
        raise InputError(f"input file {path} is a directory; give the path of a JSONL file")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise InputError(f"input file {path} is a device, not a file; give a JSONL file, a pipe or -")
    try:
        return path.open("rb")
    except OSError as e:
        raise InputError(f"input file {path} cannot be read: {_why(e)}") from None


def _why(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return "a symlink loop"
    return error.strerror or str(error)


def _is_regular(stream: IO[bytes]) -> bool:
    return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)


def _keep(spool: IO[bytes], raw: bytes) -> None:
    """Write a piped line to the unnamed temporary file; a failure (a full TMPDIR) names where."""
    try:
        spool.write(raw)
    except OSError as e:
        raise OSError(
            e.errno,
            f"cannot keep a copy of the piped input for its second pass: {e.strerror or e}; set TMPDIR "
            "to a disk with room, or give a file instead of a pipe",
            f"{tempfile.gettempdir()} (the temporary directory)",
        ) from None


def numbered_lines(
    stream: IO[bytes], name: str, *, copy_to: IO[bytes] | None = None
) -> Iterator[tuple[int, str]]:
    """(line number, text) of each non-blank line, each read at most :data:`MAX_LINE_BYTES` far and
    decoded as UTF-8 (a byte-order mark opening the file is skipped); ``copy_to`` gets every line's
    bytes as read."""
    number = 0
    while True:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES:
            raise InputError(
                f"{name}:{number}: line is longer than {MAX_LINE_BYTES:,} bytes, more than one sample may "
                f"hold ({MAX_SAMPLE_CHARS:,} characters); is this a JSONL file of samples?"
            )
        if copy_to is not None:
            _keep(copy_to, raw)
        if number == 1 and raw.startswith(_BOM):
            raw = raw[len(_BOM) :]
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(
                f"{name}:{number}: not UTF-8 text (byte {e.start + 1} of the line is not valid UTF-8)"
            ) from None
        if line.strip():
            yield number, line
