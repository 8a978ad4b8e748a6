"""Reading the files trustscore loads (config, calibrators, profiles) safely: size first, then parse.

Every failure is one exception of the caller's error class whose message names the file and says
what is wrong: missing, a directory, unreadable, too large (checked with ``stat`` before a byte is
read, so a 200 MB "profile" costs nothing), not UTF-8 (with the byte offset), not valid JSON, or
nested deeper than the parser allows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["MAX_CONFIG_BYTES", "MAX_JSON_BYTES", "loads_json", "read_capped_text"]

MAX_JSON_BYTES = 32 * 2**20
"""Largest calibrator, ReDeEP profile or cached-heads file read (32 MiB; real ones are < 1 MiB)."""
MAX_CONFIG_BYTES = 2**20
"""Largest config file read (1 MiB)."""


def read_capped_text(path: Path, *, what: str, limit: int, error: type[Exception]) -> str:
    """The UTF-8 text of ``path`` (``what`` names it in messages, e.g. "calibrator file")."""
    try:
        size = path.stat().st_size
        if path.is_dir():
            raise error(f"{what} {path} is a directory; give the path of the file")
        if size > limit:
            raise error(
                f"{what} {path} is {size:,} bytes; the limit is {limit:,} bytes: this is not a trustscore "
                f"{what.removesuffix(' file')} (check the path)"
            )
        raw = path.read_bytes()
    except FileNotFoundError:
        raise error(f"{what} {path} does not exist") from None
    except OSError as e:
        raise error(f"{what} {path} cannot be read: {e.strerror or e}") from None
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
