"""Input and output locations of ``trustscore score --ray``: formats, the lock, resume, the summary's tally.

The output is a directory (Ray writes one file per block, from whichever node scored it): JSONL
files whose lines are exactly the local CLI's result rows, or Parquet files with the typed columns
and that same row as ``result``. Re-running with the same output directory reads the ids already
there (and the setup each row was scored with: a run refuses rows scored another way, see
``_command.py``) and scores only the rest; new files are added beside the old ones. As in the local CLI,
``--retry-incomplete`` first removes the incomplete rows (``complete`` false: a missing signal a rerun
may fix, or no score at all with an ``error``) from the files that hold them, so those samples are
scored again and the output keeps one row per id.

One run at a time writes a directory: the run holds a lock (``flock`` on ``.trustscore.lock`` inside
it, a hidden file no reader takes for output) from before it reads the earlier rows until its last
row is written, and a second run into the same directory is refused at once. The lock is the
kernel's, so a killed run's goes with it. A directory on a remote filesystem (``s3://``) has no
such lock: one run at a time is then the user's to keep.

A run killed mid-write can leave one file cut short. Resume repairs it before reading: a JSONL file
loses its torn last line (that row is scored again), a Parquet file without its footer is removed (its
rows are scored again). A file that is not trustscore output (a line that is not a result row, a
file that is not Parquet) refuses the directory untouched. Nothing else in the directory is touched.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import sys
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from functools import partial
from operator import methodcaller
from pathlib import Path
from typing import Literal

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from trustscore._errors import UsageError
from trustscore.rows._output import carries_the_marker, is_cut_short_row, row_facts, row_state
from trustscore.rows._setup import RowPlace, RowSetup, SetupTally, row_setup

__all__ = [
    "Format",
    "as_location",
    "count_rows",
    "drop_rows",
    "filesystem",
    "format_of",
    "locked_output",
    "output_rows",
    "previous_rows",
]

Format = Literal["jsonl", "parquet"]

_PARQUET = (".parquet", ".pq")
_JSONL = (".jsonl", ".json", ".ndjson")


def as_location(path: Path | str) -> str:
    """The location as Ray and pyarrow take it. argparse hands over a Path, which folds the ``//`` of
    a URI (``s3://b/k`` -> ``s3:/b/k``); put it back."""
    text = str(path)
    match = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]+):/(?!/)(.*)$", text)
    if match is None:
        return text
    scheme, rest = match.groups()
    return f"file:///{rest}" if scheme == "file" else f"{scheme}://{rest}"


def format_of(location: str, *, role: str) -> Format:
    """Parquet when the name ends in .parquet/.pq, JSONL for .jsonl/.json/.ndjson."""
    name = location.rstrip("/").lower()
    if name.endswith(_PARQUET):
        return "parquet"
    if name.endswith(_JSONL):
        return "jsonl"
    raise UsageError(
        f"{role} {location}: cannot tell the format from the name; end it in .jsonl or .parquet "
        f"(a directory works too: in.parquet/ holding part files)"
    )


def filesystem(location: str) -> tuple[pafs.FileSystem, str]:
    """The filesystem ``location`` is on and its path there."""
    if "://" in location:
        return pafs.FileSystem.from_uri(location)
    return pafs.LocalFileSystem(), str(Path(location).absolute())


def _data_files(fs: pafs.FileSystem, root: str) -> list[str]:
    info = fs.get_file_info(root)
    if info.type == pafs.FileType.NotFound:
        return []
    if info.type == pafs.FileType.File:
        raise UsageError(f"output {root} is a file; --ray writes a directory of part files: name a directory")
    selector = pafs.FileSelector(root, recursive=True)
    return sorted(
        f.path
        for f in fs.get_file_info(selector)
        if f.type == pafs.FileType.File and not Path(f.path).name.startswith((".", "_"))
    )


LOCK_NAME = ".trustscore.lock"


@contextmanager
def locked_output(location: str) -> Iterator[Path | None]:
    """Hold the output directory (created if need be) for this run, yielding the lock file (None
    on a remote filesystem: no lock); UsageError when another ``score --ray`` holds it."""
    fs, root = filesystem(location)
    if not isinstance(fs, pafs.LocalFileSystem):
        yield None
        return
    directory = Path(root)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"output {root} is a file; --ray writes a directory of part files: name a directory")
    created = not directory.exists()
    lock = directory / LOCK_NAME
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except OSError as e:
        raise UsageError(f"output {root} cannot be written: {e.strerror or e}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UsageError(
                f"output {root} is being written by another trustscore run; wait for it to finish or "
                "write to another directory"
            ) from None
        yield lock
    finally:
        if created and [p.name for p in directory.iterdir()] == [LOCK_NAME]:
            lock.unlink()  # a run that wrote nothing leaves no directory behind
            directory.rmdir()
        os.close(fd)  # releases the lock


def previous_rows(location: str, fmt: Format, setups: SetupTally | None = None) -> dict[str, bool]:
    """Id -> complete, for each row already under the output directory, after repairing a file cut
    short. A row without ``complete`` counts as complete, as in the local CLI. ``setups``, when given,
    is told the setup each row was scored with (the run compares them with its own)."""
    fs, root = filesystem(location)
    rows: dict[str, bool] = {}
    for path in _data_files(fs, root):
        rows.update(_jsonl_rows(fs, path, setups) if fmt == "jsonl" else _parquet_rows(fs, path, setups))
    return rows


def drop_rows(location: str, fmt: Format, ids: Collection[str]) -> int:
    """Remove the rows of ``ids`` from the files under the output directory; return how many went.

    Only files holding such a row are rewritten: into a hidden file beside it (never read as
    output), then moved over it, so a run killed meanwhile leaves the old file whole.
    """
    fs, root = filesystem(location)
    dropped = 0
    for path in _data_files(fs, root):
        if fmt == "jsonl":
            with fs.open_input_stream(path) as f:
                lines = f.read().decode("utf-8").splitlines(keepends=True)
            keep = [line for line in lines if not line.strip() or _row_id(line) not in ids]
            gone = len(lines) - len(keep)
            if gone:
                _replace(fs, path, methodcaller("write", "".join(keep).encode("utf-8")))
        else:
            table = pq.read_table(path, filesystem=fs)
            kept = table.filter(pc.invert(pc.is_in(table.column("id"), pa.array(list(ids), pa.string()))))
            gone = table.num_rows - kept.num_rows
            if gone:
                _replace(fs, path, partial(pq.write_table, kept))
        dropped += gone
    return dropped


def _row_id(line: str) -> str | None:
    """The id of a result row line; None for a damaged row (kept as it is)."""
    try:
        return row_state(line)[0]
    except ValueError:
        return None


def _replace(fs: pafs.FileSystem, path: str, write: Callable[[pa.NativeFile], object]) -> None:
    parent, name = path.rsplit("/", 1)
    tmp = f"{parent}/.{name}.tmp"
    with fs.open_output_stream(tmp) as f:
        write(f)
    fs.move(tmp, path)


def _jsonl_rows(fs: pafs.FileSystem, path: str, setups: SetupTally | None) -> dict[str, bool]:
    """The rows of one part file, every whole line checked before a torn last line (a killed
    writer's, which begins like a result row) is cut off; any other last line refuses the file.
    A damaged row of ours (it carries the marker but does not parse) is skipped and reported: its
    sample is scored again."""
    with fs.open_input_stream(path) as f:
        raw = f.read()
    whole = raw[: raw.rfind(b"\n") + 1]
    tail = raw[len(whole) :]
    rows: dict[str, bool] = {}
    for number, line in enumerate(whole.split(b"\n")[:-1], start=1):
        if not line.strip():
            continue
        try:
            row_id, complete, setup = row_facts(line.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            if not carries_the_marker(line):
                raise UsageError(
                    f"{path}:{number}: not a trustscore result row; remove that file or write to a new "
                    "directory"
                ) from None
            print(
                f"trustscore: {path}: skipping a damaged result row (line {number}: {e}); its sample is "
                "scored again",
                file=sys.stderr,
            )
            continue
        rows[row_id] = complete
        if setups is not None:
            setups.add(row_id, setup, RowPlace("line", number, path), complete=complete)
    if tail:
        if not is_cut_short_row(tail):
            raise UsageError(
                f"{path}: its last line is not a trustscore result row; remove that file or write to a new "
                "directory"
            )
        print(f"trustscore: {path}: dropping an incomplete last line (interrupted write)", file=sys.stderr)
        with fs.open_output_stream(path) as f:
            f.write(whole)
    return rows


def _parquet_rows(fs: pafs.FileSystem, path: str, setups: SetupTally | None) -> dict[str, bool]:
    """The rows of one Parquet part file (id -> complete), their setups read from the ``result``
    column when ``setups`` is given, batch by batch; a file a killed writer left without its footer
    is removed (its rows are scored again), any other file that is not trustscore output refuses the
    directory."""
    try:
        with fs.open_input_file(path) as f:
            if f.read(4) != b"PAR1":  # every Parquet file begins so, even one whose writer was killed
                raise UsageError(
                    f"{path}: not a Parquet file, so not trustscore output; remove it or write to a new "
                    "directory"
                )
            f.seek(0)
            names = pq.ParquetFile(f).schema_arrow.names
    except pa.ArrowInvalid as e:  # no footer: the writer was killed
        print(f"trustscore: {path}: removing an unreadable file (interrupted write: {e})", file=sys.stderr)
        fs.delete_file(path)
        return {}
    if "id" not in names or "result" not in names:
        raise UsageError(
            f"{path}: has no id and result columns, so it is not trustscore output; write to a new directory"
        )
    with fs.open_input_file(path) as f:
        first = next(pq.ParquetFile(f).iter_batches(batch_size=1, columns=["result"]), None)
    if first is not None and first.num_rows:
        text = first.column(0)[0].as_py()
        if not isinstance(text, str) or not carries_the_marker(text.encode("utf-8")):
            raise UsageError(
                f"{path}: its result column does not hold trustscore result rows, so it is not trustscore "
                "output; write to a new directory"
            )
    columns = [c for c in ("id", "complete") if c in names] + (["result"] if setups is not None else [])
    rows: dict[str, bool] = {}
    number = 0
    with fs.open_input_file(path) as f:
        for batch in pq.ParquetFile(f).iter_batches(columns=columns):
            data = batch.to_pydict()
            complete = data.get("complete", [True] * batch.num_rows)
            results = data.get("result", [None] * batch.num_rows)
            for row_id, done, result in zip(data["id"], complete, results, strict=True):
                number += 1
                rows[str(row_id)] = done is True
                if setups is not None:
                    place = RowPlace("row", number, path)
                    setups.add(str(row_id), _result_setup(result), place, complete=done is True)
    return rows


def _result_setup(text: object) -> RowSetup | None:
    """The setup of a Parquet row's ``result`` (the local CLI's line); None when it is not a row."""
    try:
        row = json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        return None
    return row_setup(row) if isinstance(row, dict) else None


def output_rows(location: str, fmt: Format) -> list[dict[str, object]]:
    """Every result row under the output directory (for the summary and for tests)."""
    fs, root = filesystem(location)
    rows: list[dict[str, object]] = []
    for path in _data_files(fs, root):
        if fmt == "jsonl":
            with fs.open_input_stream(path) as f:
                for line in f.read().split(b"\n"):
                    try:
                        rows.append(json.loads(line.decode("utf-8")))
                    except (ValueError, UnicodeDecodeError):
                        continue  # blank, or a damaged row (reported when the directory was read)
        else:
            table = pq.read_table(path, columns=["result"], filesystem=fs)
            rows.extend(json.loads(text) for text in table.column("result").to_pylist())
    return rows


def count_rows(location: str, fmt: Format) -> int:
    """Rows under the output directory, file by file (no id set held in memory)."""
    fs, root = filesystem(location)
    total = 0
    for path in _data_files(fs, root):
        if fmt == "jsonl":
            with fs.open_input_stream(path) as f:
                total += f.read().count(b"\n")
        else:
            with fs.open_input_file(path) as f:
                total += pq.ParquetFile(f).metadata.num_rows
    return total
