"""The on-disk store under both trustscore caches (judge answers, local signals): diskcache, made safe.

diskcache pickles any key or value that is not a plain str/bytes/int/float and unpickles on read:
anyone able to write the cache directory would get code execution in the reader (CVE-2025-69872).
It also trusts the file name stored in a row: ``Cache.cull``/``set`` delete ``<directory>/<filename>``
and its emptied parent folders, so a planted row naming ``../victim/precious.txt`` would delete a
file outside the cache. :class:`SafeDisk` refuses both: nothing is pickled or unpickled, and a stored
file name that is not one diskcache itself makes (``ab/cd/<28 hex>.val``, resolving inside the
directory) is never opened or removed: such a row reads as a miss.

:class:`DiskCache` is what each cache builds on: a private (0700) directory opened on first use, the
``mode`` ("off", "read", "readwrite"), and the counters. The directory (and the cache folder it lies in)
must be ours, and every file in it is checked before use (see :mod:`trustscore.core._private_files`):
the database files before SQLite opens them, a value file as it is opened or created. A failed read or
write (disk full, database locked, a value that cannot be serialised, a file that is not ours) is
logged, counted and answered as a miss: a cache never changes what a caller computed.

**An entry trustscore did not write** (valid JSON that is not a result, a pickled value) on a key a
run asks for raises :class:`UnsafeCacheEntry`: the signal that asked is missing with that reason, a
rerun may fix it, so its row is incomplete. With ``replace_unsafe`` set (``score
--retry-incomplete`` sets it) such an entry reads as a miss instead, counted in ``replaced``, and the
fresh answer is stored over it under the same key: the one bad row is overwritten, and still no file
outside the directory is opened or removed (:class:`SafeDisk` decides that, not this flag).
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

import diskcache  # type: ignore[import-untyped]

from trustscore._errors import UnsafeCacheEntry
from trustscore.core._private_files import check_own_file, open_own_file, private_directory, private_subfolder

__all__ = ["CacheMode", "DiskCache", "SafeDisk", "UnsafeCacheEntry", "private_directory"]

logger = logging.getLogger(__name__)

T = TypeVar("T")
CacheMode = Literal["off", "read", "readwrite"]

_READ_FAILURES = (OSError, sqlite3.Error, diskcache.Timeout)
_WRITE_FAILURES = (*_READ_FAILURES, ValueError)
"""ValueError: a value that cannot be serialised (pydantic's serialisation error, a lone surrogate)."""

_DATABASE_FILES = ("cache.db", "cache.db-wal", "cache.db-shm")
"""The files SQLite opens by name in a cache folder: each is checked before the database opens."""
_CREATE_VALUE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)

_OWN_FILENAME = re.compile(r"[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{28}\.val")
"""The only file names diskcache's ``Disk.filename`` makes (two folder levels of a random hex name)."""


class SafeDisk(diskcache.Disk):  # type: ignore[misc]
    """A diskcache Disk that only handles str keys and str/bytes values (nothing is ever pickled) and
    only touches files it could have written itself, inside its directory."""

    def put(self, key: Any) -> tuple[Any, bool]:
        if not isinstance(key, str):
            raise TypeError(f"cache keys must be str (a sha256 hex digest), got {type(key).__name__}")
        db_key, raw = super().put(key)
        return db_key, bool(raw)

    def get(self, key: Any, raw: bool) -> Any:
        if not raw:
            raise UnsafeCacheEntry("the cache holds a pickled key; trustscore never writes one")
        return super().get(key, raw)

    def store(self, value: Any, read: bool, key: Any = diskcache.core.UNKNOWN) -> Any:
        if not read and not isinstance(value, str | bytes):
            raise TypeError(f"cache values must be str or bytes (JSON), got {type(value).__name__}")
        return super().store(value, read, key=key)

    def fetch(self, mode: int, filename: str | None, value: Any, read: bool) -> Any:
        if mode == diskcache.core.MODE_PICKLE:
            raise UnsafeCacheEntry("the cache holds a pickled value; refusing to unpickle it")
        if filename is not None and not self._own(filename):
            # diskcache's get answers an OSError from fetch as a miss (the file went away).
            raise FileNotFoundError(f"cache row names a file outside the cache: {filename!r}")
        if filename is None or mode not in (diskcache.core.MODE_BINARY, diskcache.core.MODE_TEXT):
            return super().fetch(mode, filename, value, read)
        reader = os.fdopen(open_own_file(os.path.join(self._directory, filename)), "rb")
        if read:
            return reader
        with reader:
            data = reader.read()
        return data if mode == diskcache.core.MODE_BINARY else data.decode("utf-8")

    def _write(self, full_path: str, iterator: Any, mode: str, encoding: str | None = None) -> int:
        """diskcache's value-file write, into folders and a new file that are ours (never through a
        planted symlink or into a planted file)."""
        folder = Path(full_path).parent
        private_directory(folder.parent)
        private_directory(folder)
        fd = os.open(full_path, _CREATE_VALUE, 0o600)
        with os.fdopen(fd, "wb") as writer:
            size = 0
            for chunk in iterator:
                size += len(chunk)
                writer.write(chunk.encode(encoding or "utf-8") if isinstance(chunk, str) else chunk)
            return size

    def remove(self, file_path: str) -> None:
        if not self._own(file_path):
            logger.warning(
                "cache %s: a row names a file outside the cache (%r); left alone", self._directory, file_path
            )
            return
        super().remove(file_path)

    def _own(self, filename: object) -> bool:
        """Whether ``filename`` is a name diskcache makes and, symlinks resolved, lies in the directory."""
        if not isinstance(filename, str) or _OWN_FILENAME.fullmatch(filename) is None:
            return False
        root = os.path.realpath(self._directory)
        return os.path.realpath(os.path.join(root, filename)).startswith(root + os.sep)


class DiskCache:
    """A :class:`SafeDisk` cache in a private directory, with the mode and the counters both caches
    report (``hits``, ``misses``, ``stores``, ``read_errors``, ``write_errors``). Thread-safe.

    ``_read``/``_write`` run a function on the open ``diskcache.Cache`` through :meth:`_run` (on
    the calling thread; a subclass may hand it to a thread of its own) and turn a failure into the
    default answer, counted and logged under ``label``.
    """

    def __init__(
        self, directory: Path, *, mode: CacheMode, size_limit_bytes: int, label: str, root: Path | None = None
    ) -> None:
        self._directory = directory
        self._root = root or directory
        self._mode = mode
        self._size_limit = size_limit_bytes
        self._label = label
        self._cache: diskcache.Cache | None = None
        self._opening = threading.Lock()  # two threads may race to open it
        self._counting = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.stores = 0
        self.read_errors = 0
        self.write_errors = 0
        self.replace_unsafe = False
        """Read an entry trustscore did not write as a miss (and store the fresh answer over it)."""
        self.replaced = 0
        """Entries trustscore did not write that were read as a miss to be replaced."""

    @property
    def directory(self) -> Path:
        return self._directory.expanduser()

    @property
    def readable(self) -> bool:
        return self._mode != "off"

    @property
    def writable(self) -> bool:
        return self._mode == "readwrite"

    def _open(self) -> diskcache.Cache:
        with self._opening:
            if self._cache is None:
                directory = private_subfolder(self.directory, self._root.expanduser())
                for name in _DATABASE_FILES:
                    check_own_file(directory / name)
                self._cache = diskcache.Cache(
                    str(directory),
                    disk=SafeDisk,
                    size_limit=self._size_limit,
                    eviction_policy="least-recently-stored",  # no write on read
                )
            return self._cache

    def _run(self, work: Callable[[], T]) -> T:
        """Run one disk access (here: on the calling thread)."""
        return work()

    def _count(self, **deltas: int) -> None:
        with self._counting:
            for name, delta in deltas.items():
                setattr(self, name, getattr(self, name) + delta)

    def _read(self, read: Callable[[diskcache.Cache], T], default: T) -> T:
        """``read(cache)``, or ``default`` when the mode is "off" or the read fails (counted)."""
        if not self.readable:
            return default
        try:
            return self._run(lambda: read(self._open()))
        except _READ_FAILURES as e:
            self._count(read_errors=1)
            logger.warning("%s %s: could not read: %s", self._label, self.directory, e)
            return default

    def _unsafe(self, error: UnsafeCacheEntry) -> None:
        """An entry trustscore did not write was read: raise ``error``, or, when replacing such
        entries, count it (the caller answers a miss)."""
        if not self.replace_unsafe:
            raise error
        self._count(replaced=1, misses=1)
        logger.warning(
            "%s %s: replacing an entry trustscore did not write: %s", self._label, self.directory, error
        )

    def _write(self, write: Callable[[diskcache.Cache], None]) -> None:
        """``write(cache)`` unless the mode forbids it; a failure is counted, logged and dropped."""
        if not self.writable:
            return
        try:
            self._run(lambda: write(self._open()))
        except _WRITE_FAILURES as e:
            self._count(write_errors=1)
            logger.warning("%s %s: could not store: %s", self._label, self.directory, e)
        else:
            self._count(stores=1)

    def _close_now(self) -> None:
        with self._opening:
            if self._cache is not None:
                self._cache.close()
                self._cache = None

    def close(self) -> None:
        """Close the database; the cache reopens on next use."""
        self._run(self._close_now)
