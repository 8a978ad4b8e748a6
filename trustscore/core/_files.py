"""Reading the files trustscore loads (config, calibrators, profiles) safely: size first, then parse.

Every failure is one exception of the caller's error class whose message names the file and says
what is wrong: missing, a directory, not a regular file (a device such as ``/dev/zero`` or a FIFO:
their size says nothing and reading them may never end), a symlink loop, unreadable, too large
(checked with ``stat`` before a byte is read, so a 200 MB "profile" costs nothing, and again while
reading), not UTF-8 (with the byte offset), not valid JSON, or nested deeper than the parser allows.
"""

from __future__ import annotations

import errno
import json
import stat
from pathlib import Path
from typing import Any

__all__ = ["MAX_CONFIG_BYTES", "MAX_JSON_BYTES", "loads_json", "read_capped_text"]

MAX_JSON_BYTES = 32 * 2**20
"""Largest calibrator, ReDeEP profile or cached-heads file read (32 MiB; real ones are < 1 MiB)."""
MAX_CONFIG_BYTES = 2**20
"""Largest config file read (1 MiB)."""


def read_capped_text(path: Path, *, what: str, limit: int, error: type[Exception]) -> str:
    """The UTF-8 text of ``path`` (``what`` names it in messages, e.g. "calibrator file")."""
    kind = what.removesuffix(" file")
    too_large = f"the limit is {limit:,} bytes: this is not a trustscore {kind} (check the path)"
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise error(f"{what} {path} is a directory; give the path of the file")
        if not stat.S_ISREG(info.st_mode):
            raise error(
                f"{what} {path} is not a regular file (a device or a FIFO); give the path of the file"
            )
        if info.st_size > limit:
            raise error(f"{what} {path} is {info.st_size:,} bytes; {too_large}")
        with path.open("rb") as f:
            raw = f.read(limit + 1)  # the file may have grown since stat
        if len(raw) > limit:
            raise error(f"{what} {path} is over {limit:,} bytes; {too_large}")
    except FileNotFoundError:
        raise error(f"{what} {path} does not exist") from None
    except OSError as e:
        why = "a symlink loop" if e.errno == errno.ELOOP else (e.strerror or e)
        raise error(f"{what} {path} cannot be read: {why}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise error(f"{what} {path} is not UTF-8 text (byte {e.start} is not valid UTF-8)") from None


def loads_json(text: str, *, what: str, error: type[Exception]) -> Any:
    """``json.loads`` whose failures (bad JSON, too deep) are ``error`` naming ``what``."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise error(f"{what} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except RecursionError:
        raise error(
            f"{what} nests JSON deeper than trustscore reads; it is not a file trustscore wrote"
        ) from None
