"""Writing a fitted file (a calibrator, a cascade, a ReDeEP profile) to the path the user named.

trustscore replaces only an earlier file of the same kind. Anything else at that path (the scored rows
the fit read, a labeled file, a directory, a device, a FIFO) is refused, by the CLI before the fit
starts and again just before the write, so a slip of ``-o`` costs no data. The text is written to a
file beside the path and moved over it, so an interrupted write leaves the old file whole.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from trustscore.core._files import MAX_JSON_BYTES, loads_json, read_capped_text

__all__ = ["FittedKind", "check_fitted_output", "write_fitted_file"]

FittedKind = Literal["calibrator", "cascade", "ReDeEP profile"]

_IS_KIND: dict[str, Callable[[Any], bool]] = {
    "calibrator": lambda doc: doc.get("kind") == "stacked_lr" and "content_sha256" in doc,
    "cascade": lambda doc: doc.get("kind") == "cascade" and "content_sha256" in doc,
    "ReDeEP profile": lambda doc: set(doc) == {"checksum", "profile"},
}


class _Unreadable(Exception):
    pass


def check_fitted_output(path: Path, kind: FittedKind, *, error: type[Exception]) -> None:
    """Raise ``error`` unless ``path`` is free or holds a trustscore ``kind`` that may be replaced."""
    refuse = (
        f"trustscore writes a {kind} only to a new path or over an earlier {kind}; "
        "choose another output path or move that file away"
    )
    try:
        info = path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            raise error(f"{path} is a symlink to a missing file; {refuse}") from None
        return
    except OSError as e:
        why = "a symlink loop" if e.errno == errno.ELOOP else (e.strerror or str(e))
        raise error(f"{path} cannot be read: {why}; {refuse}") from None
    if stat.S_ISDIR(info.st_mode):
        raise error(f"{path} is a directory; give the path of the {kind} file to write in it")
    if not stat.S_ISREG(info.st_mode):
        raise error(f"{path} is not a regular file (a device or a FIFO); {refuse}")
    try:
        text = read_capped_text(path, what="file", limit=MAX_JSON_BYTES, error=_Unreadable)
        doc = loads_json(text, what="file", error=_Unreadable)
    except _Unreadable:
        doc = None
    if not (isinstance(doc, dict) and _IS_KIND[kind](doc)):
        raise error(f"{path} exists and is not a trustscore {kind}; {refuse}")


def write_fitted_file(path: Path, text: str, kind: FittedKind, *, error: type[Exception]) -> Path:
    """Write ``text`` to ``path`` (creating its folder) after :func:`check_fitted_output`. A symlink to
    an earlier file is written through (the file it names is replaced, the link stays), and a replaced
    file keeps its mode; a new one gets 0o666 less the umask, as a plain write."""
    check_fitted_output(path, kind, error=error)
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None
    tmp = target.with_name(f".{target.name[:200]}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # O_EXCL: never through a stray file
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            if mode is not None:
                os.fchmod(f.fileno(), mode)
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path
