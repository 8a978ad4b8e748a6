"""Input rows: one JSON object a line with ``question``, ``response``, optional ``context`` (a string
or a list of passages) and optional ``id``; every other field is carried through untouched (it
becomes the Sample's ``metadata`` and is copied into the result row). A row without ``id`` gets the
hash of its question, context and response as its id. A row's own ``domain`` is its sample's domain
(it picks an adapted calibrator's adaptation) and is carried too, as ``sample_domain``
(:data:`DOMAIN_CARRIED`): the result row's ``domain`` is the calibration-domain check.

What a line must be, and what each odd input gets (one :class:`~trustscore._errors.InputError` naming
the line, never a traceback):

* UTF-8 text; a byte-order mark at the start of the file is skipped. A line is read at most
  :data:`MAX_LINE_BYTES` bytes far: a longer one cannot hold a sample within
  :data:`~trustscore._types.MAX_SAMPLE_CHARS` and is refused before it is read whole.
* Strict JSON: ``NaN``, ``Infinity``, a number too large for a float (``1e999``) and integers of more
  than 4,300 digits are refused (the output must stay JSON every parser reads).
* The input may be a regular file, a pipe (``<(cmd)``, a FIFO) or ``-`` for standard input: a pipe is
  read once, its lines kept in an unnamed temporary file for the second pass. A device, a directory
  or a symlink loop is refused.

:class:`InputFile` reads the CLI's input twice but checks each row once: the check parses, validates
and names (hashes the id of) every row and keeps only its id and line; the second pass decodes each
kept line's JSON again and builds its sample from the checked id, with no validation or hashing.

A field that is not a sample field but looks like one (``contexts``, ``answer``) is carried through
like any other, and named with a did-you-mean (:func:`suggest_field`): :class:`InputFile` counts them
for the run's warning, and an invalid row's error says it. With ``on_error="record"``,
:class:`InputFile` gives an invalid row (bad JSON, a missing or empty field, a wrong type) as a
:class:`RowError` instead of stopping; a file that cannot be read as lines (not UTF-8, a line too
long) and an id used twice still stop the run.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import stat
import sys
import tempfile
import zlib
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from trustscore._errors import InputError
from trustscore._types import MAX_SAMPLE_CHARS, Sample, find_bad_text, text_problem
from trustscore.core._hashing import canonical_json, short_hash
from trustscore.core._names import SAMPLE_FIELD_ALIASES, closest_name
from trustscore.rows._ids import IdIndex
from trustscore.scoring._inputs import validate_sample

__all__ = [
    "MAX_LINE_BYTES",
    "RESULT_FIELDS",
    "SAMPLE_FIELDS",
    "InputFile",
    "InputRow",
    "OnError",
    "RowError",
    "parse_row",
    "read_jsonl",
    "suggest_field",
]

SAMPLE_FIELDS = ("question", "context", "response", "id", "domain")
RESULT_FIELDS = (
    "id",
    "trustscore",
    "score",
    "reason",
    "degraded",
    "abstained",
    "calibrated",
    "not_calibrated_reason",
    "interval",
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
``trustscore`` is the format marker every result row carries (see :mod:`trustscore.rows._output`)."""

DOMAIN_CARRIED = "sample_domain"
"""The name a row's own ``domain`` is carried under into its result row, whose ``domain`` is the
calibration-domain check."""

OnError = Literal["record", "stop"]
"""What an invalid input row does: becomes an error row ("record") or stops the run ("stop")."""

MAX_LINE_BYTES = 12 * MAX_SAMPLE_CHARS + 2**20
"""Longest line read (~121 MB): a sample's characters at 12 bytes each (an astral character written
as two ``\\uXXXX`` escapes, the longest JSON spelling of one character) plus 1 MiB of keys, commas
and numbers."""

_BOM = b"\xef\xbb\xbf"

logger = logging.getLogger("trustscore")


@dataclass(frozen=True)
class InputRow:
    line: int
    sample: Sample
    carried: dict[str, Any]
    """Fields other than question/context/response/id, copied into the output row as they are."""
    lookalikes: dict[str, str] = field(default_factory=dict)
    """Carried fields that look like a sample field this row lacks: {"contexts": "context"}."""


@dataclass(frozen=True)
class RowError:
    """An input line that cannot be scored: its number, the id it goes by (its own ``id``, else
    ``invalid-`` and a hash of the line) and why."""

    line: int
    id: str
    reason: str


def suggest_field(name: str, present: Iterable[str] = ()) -> str | None:
    """The sample field ``name`` was probably meant to be (``contexts`` -> ``context``, ``answer`` ->
    ``response``), unless the row already has that field (``present``); None when it looks like none."""
    guess = closest_name(name, SAMPLE_FIELDS, SAMPLE_FIELD_ALIASES)
    return guess if guess is not None and guess not in present else None


def _did_you_mean(lookalikes: dict[str, str]) -> str:
    return "".join(f"; field {k!r} is not a sample field: did you mean {v!r}?" for k, v in lookalikes.items())


def read_jsonl(path: str | Path) -> Iterator[Sample]:
    """The samples of a JSONL file (``-`` reads standard input), one at a time, each with its extra
    fields (``hallucinated``, ``task``, ...) in ``metadata``. A bad line raises
    :class:`~trustscore._errors.InputError` naming it when it is reached::

        async with Scorer.from_config("trustscore.toml") as scorer:
            async with scorer.stream(read_jsonl("samples.jsonl")) as results:
                async for index, result in results:
                    ...
    """
    name = str(path)
    warned: set[str] = set()
    with open_input(Path(path)) as stream:
        for number, line in numbered_lines(stream, name):
            row = parse_row(line, f"{name}:{number}", number)
            for key in row.lookalikes.keys() - warned:
                warned.add(key)
                logger.warning(
                    "%s:%d: field %r is not a sample field: it is carried as metadata and not scored; "
                    "did you mean %r?",
                    name,
                    number,
                    key,
                    row.lookalikes[key],
                )
            yield row.sample


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
    clashes = [k for k in data if k in RESULT_FIELDS and k not in SAMPLE_FIELDS]
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
    if data.get("domain") is not None and DOMAIN_CARRIED in data:
        raise InputError(
            f"{where}: fields 'domain' and {DOMAIN_CARRIED!r} both given; the result row carries "
            f"'domain' as {DOMAIN_CARRIED!r}: rename {DOMAIN_CARRIED!r}"
        )
    carried = _with_domain(carried, data)
    fields = {k: data[k] for k in SAMPLE_FIELDS if k in data}
    if isinstance(fields.get("id"), int) and not isinstance(fields["id"], bool):
        fields["id"] = str(fields["id"])
    lookalikes = {k: guess for k in carried if (guess := suggest_field(k, data)) is not None}
    try:
        sample = validate_sample({**fields, "metadata": carried}, where="")
    except InputError as e:
        raise InputError(f"{where}: {e}{_did_you_mean(lookalikes)}") from None
    if sample.id is None:
        content = canonical_json(
            {"question": sample.question, "context": sample.context, "response": sample.response}
        )
        sample = sample.model_copy(update={"id": short_hash(content, 16)})
    return InputRow(line=line, sample=sample, carried=carried, lookalikes=lookalikes)


def _with_domain(carried: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """``carried`` and, when the row names a ``domain``, that domain as :data:`DOMAIN_CARRIED`."""
    return carried if data.get("domain") is None else {**carried, DOMAIN_CARRIED: data["domain"]}


def row_error(text: str, line: int, error: InputError, where: str = "") -> RowError:
    """The :class:`RowError` of an input line ``parse_row`` refused (its message less the ``where``
    prefix): its id is the row's own (when the line is a JSON object with a string or integer id),
    else ``invalid-`` and a hash of the line, as the Ray pipeline names such a row."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        data = None
    given = data.get("id") if isinstance(data, dict) else None
    if isinstance(given, int) and not isinstance(given, bool):
        given = str(given)
    usable = isinstance(given, str) and given.strip() and text_problem(given) is None
    row_id = given if usable else "invalid-" + short_hash(text.strip(), 16)
    return RowError(line=line, id=str(row_id), reason=str(error).removeprefix(f"{where}: "))


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


@dataclass
class LookalikeTally:
    """Rows carrying one field that looks like a sample field, for the run's warning."""

    suggestion: str
    rows: int
    first_line: int


class InputFile:
    """A checked input, read again lazily (one row at a time) each time it is iterated, so a run's
    memory does not grow with it. Only the ids are kept (resume needs them), each with its line.
    A pipe is read once: its lines are kept in an unnamed temporary file for the later passes.
    The check validates each row once: iterating decodes a kept line's JSON and builds its sample
    unchecked, with the id the check gave it (a row's ``lookalikes`` are in :attr:`lookalikes`).

    With ``on_error="record"`` an invalid row is yielded as a :class:`RowError` (``errors`` counts
    them, ``first_error`` is the first; each is kept from the check); with "stop" the check raises
    at it."""

    def __init__(
        self,
        path: Path,
        ids: IdIndex,
        spool: IO[bytes] | None,
        *,
        on_error: OnError = "stop",
        errors: int = 0,
        invalid: dict[int, RowError] | None = None,
        lookalikes: dict[str, LookalikeTally] | None = None,
        digests: array[int] | None = None,
    ) -> None:
        self.path = path
        self.ids = ids
        self._spool = spool
        self._digests = digests
        """CRC-32 of each valid line the check read, in file order: a line read again must match it."""
        self.on_error = on_error
        self._invalid = invalid or {}
        self.errors = len(self._invalid)
        self.first_error = next(iter(self._invalid.values()), None)
        self.lookalikes = lookalikes or {}
        """Fields that look like a sample field a row lacks: {"contexts": tally suggesting "context"}."""

    @classmethod
    def check(cls, path: Path, *, on_error: OnError = "stop") -> InputFile:
        """Validate every line; with "stop" the first problem raises InputError with its line number,
        with "record" an invalid row is counted (a line that is not UTF-8 or too long, and an id
        used twice, still raise)."""
        first_line_of = IdIndex()
        name = str(path)
        spool: IO[bytes] | None = None
        invalid: dict[int, RowError] = {}
        lookalikes: dict[str, LookalikeTally] = {}
        digests = array("I")
        with open_input(path) as stream:
            if not _is_regular(stream):
                spool = tempfile.TemporaryFile()  # noqa: SIM115 (kept open for the later passes; unnamed)
            for number, line in numbered_lines(stream, name, copy_to=spool):
                row = _parse_or_record(line, name, number, on_error)
                if isinstance(row, RowError):
                    invalid[number] = row
                    continue
                for name_, guess in row.lookalikes.items():
                    tally = lookalikes.setdefault(name_, LookalikeTally(guess, 0, number))
                    tally.rows += 1
                digests.append(_digest(line))
                previous = first_line_of.add(row.sample.id or "", number)
                if previous is not None:
                    raise InputError(
                        f"{name}:{number}: id {row.sample.id!r} already used on line {previous}; ids must "
                        f"be unique (they are how an interrupted run resumes)"
                    )
        if not first_line_of and not invalid:
            raise InputError(f"input file {path} has no samples (expected one JSON object a line)")
        return cls(
            path,
            first_line_of,
            spool,
            on_error=on_error,
            invalid=invalid,
            lookalikes=lookalikes,
            digests=digests,
        )

    def warnings(self) -> list[str]:
        """One line for each field that looks like a sample field some rows lack."""
        return [
            f"{self.path}:{t.first_line}: field {key!r} is not a sample field (on {t.rows} row(s)): it is "
            f"carried through as data and not scored; did you mean {t.suggestion!r}?"
            for key, t in self.lookalikes.items()
        ]

    def __iter__(self) -> Iterator[InputRow | RowError]:
        """The checked rows in file order: each valid line rebuilt from its JSON and checked id, each
        invalid one as the check recorded it."""
        name = str(self.path)
        checked = iter(self.ids.items())
        if self._spool is not None:
            self._spool.seek(0)
            yield from self._rows(numbered_lines(self._spool, name), checked)
            return
        with open_input(self.path) as stream:
            yield from self._rows(numbered_lines(stream, name), checked)

    def _rows(
        self, lines: Iterator[tuple[int, str]], checked: Iterator[tuple[str, int]]
    ) -> Iterator[InputRow | RowError]:
        next_id, next_line = next(checked, ("", 0))
        digests = iter(self._digests) if self._digests is not None else None
        for number, line in lines:
            if number == next_line:
                if digests is not None and next(digests, None) != _digest(line):
                    raise _changed(self.path, number)  # edited since the check: not as validated
                yield _checked_row(line, next_id, number, self.path)
                next_id, next_line = next(checked, ("", 0))
            elif number in self._invalid:
                yield self._invalid[number]
            else:
                raise _changed(self.path, number)
        if next_line:
            raise _changed(self.path, next_line)


def _checked_row(line: str, row_id: str, number: int, path: Path) -> InputRow:
    """A line :meth:`InputFile.check` accepted, as its row: the JSON decoded again, the sample built
    without validation, its id the one the check gave it."""
    try:
        data = json.loads(line)
    except ValueError:
        raise _changed(path, number) from None
    given = data.get("id") if isinstance(data, dict) else None
    if not isinstance(data, dict) or (given is not None and str(given) != row_id):
        raise _changed(path, number)
    carried = _with_domain({k: v for k, v in data.items() if k not in SAMPLE_FIELDS}, data)
    fields = {k: data[k] for k in ("question", "response", "domain") if k in data}
    context = Sample._context_as_list(data.get("context"))
    sample = Sample.model_construct(**fields, context=context, id=row_id, metadata=carried)
    return InputRow(line=number, sample=sample, carried=carried)


def _digest(line: str) -> int:
    return zlib.crc32(line.encode("utf-8", "surrogatepass"))


def _changed(path: Path, number: int) -> InputError:
    return InputError(f"{path}:{number}: the input changed while it was read; run again on a settled file")


def _parse_or_record(line: str, name: str, number: int, on_error: OnError) -> InputRow | RowError:
    where = f"{name}:{number}"
    try:
        return parse_row(line, where, number)
    except InputError as e:
        if on_error == "stop":
            raise
        return row_error(line, number, e, where)


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
