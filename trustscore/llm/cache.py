"""A content-addressed response cache on diskcache that never unpickles.

diskcache pickles any key or value that is not a plain str/bytes/int/float, and unpickles on read:
anyone able to write the cache directory gets code execution in the reader (CVE-2025-69872, no fixed
release as of diskcache 5.6.3). So keys are sha256 hex strings, values are ChatResult JSON strings,
and :class:`SafeDisk` refuses to store or read anything that would go through pickle.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
import threading
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import diskcache  # type: ignore[import-untyped]
from pydantic import ValidationError

from trustscore.core.hashing import canonical_json, sha256_hex
from trustscore.errors import UnsafeCacheEntry
from trustscore.llm.config import CacheConfig, EndpointConfig
from trustscore.llm.limits import LoopLocal
from trustscore.llm.protocol import ChatRequest, ChatResult

__all__ = ["CACHE_SCHEMA_VERSION", "ResponseCache", "SafeDisk", "cache_key"]

CACHE_SCHEMA_VERSION = 1
"""Bump when the request body mapping or the stored ChatResult shape changes: old entries stop matching."""

logger = logging.getLogger(__name__)

_THREADS_PER_LOOP = 4  # SQLite reads take microseconds; a few threads keep the event loop free


class SafeDisk(diskcache.Disk):  # type: ignore[misc]
    """A diskcache Disk that only handles str keys and str/bytes values: nothing is ever pickled."""

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
        return super().fetch(mode, filename, value, read)


def cache_key(endpoint: EndpointConfig, request: ChatRequest) -> str:
    """sha256 over everything that changes the answer.

    In: schema version, flavour (the body differs by dialect), which server answers, and the full
    request (messages or prompt, every sampling parameter, constraint, tag). The server is
    ``model_identity`` when set (what the weights are: endpoints that set the same one share
    entries), else the served name *and* the endpoint's server URLs (all replicas of a pool, sorted):
    two servers that merely share a model name (two fakes in a test suite, two fine-tunes served as
    "judge") never replay each other's answers, and which replica of a pool answered never matters.
    """
    servers = ",".join(sorted(url.rstrip("/") for url in endpoint.replica_urls()))
    material = {
        "schema": CACHE_SCHEMA_VERSION,
        "flavour": endpoint.flavour,
        "model": endpoint.model_identity or f"{endpoint.model}@{servers}",
        "kind": request.endpoint,
        "request": request.model_dump(mode="json"),
    }
    return sha256_hex(canonical_json(material))


class ResponseCache:
    """Async access to the on-disk cache. Errors are never stored (the client only stores results).

    ``mode``: "off" never touches disk; "read" replays but never writes; "readwrite" does both.
    The directory is created with mode 0700; an existing one that others can read or write is
    tightened to 0700 when we own it, and refused otherwise.
    """

    def __init__(self, config: CacheConfig) -> None:
        self._config = config
        self._cache: diskcache.Cache | None = None
        self._opening = threading.Lock()  # two worker threads may race to open it
        self._limiters: LoopLocal[anyio.CapacityLimiter] = LoopLocal(
            lambda: anyio.CapacityLimiter(_THREADS_PER_LOOP)
        )
        self.hits = 0
        self.misses = 0
        self.stores = 0
        self.write_errors = 0
        self.read_errors = 0

    @property
    def config(self) -> CacheConfig:
        return self._config

    @property
    def readable(self) -> bool:
        return self._config.mode != "off"

    @property
    def writable(self) -> bool:
        return self._config.mode == "readwrite"

    def _open(self) -> diskcache.Cache:
        with self._opening:
            if self._cache is not None:
                return self._cache
            directory = _private_directory(self._config.directory)
            self._cache = diskcache.Cache(
                str(directory),
                disk=SafeDisk,
                size_limit=self._config.size_limit_bytes,
                eviction_policy="least-recently-stored",  # no write on read
            )
            return self._cache

    def _get_sync(self, key: str) -> ChatResult | None:
        raw = self._open().get(key, default=None)
        if raw is None:
            return None
        try:
            return ChatResult.model_validate_json(raw)
        except ValidationError as e:
            raise UnsafeCacheEntry(
                f"cache entry {key[:12]} in {self._config.directory} is not a ChatResult "
                f"({e.error_count()} errors); delete the directory to reset the cache"
            ) from None

    def _put_sync(self, key: str, result: ChatResult) -> None:
        self._open().set(key, result.model_dump_json(exclude={"usage"}))

    async def get(self, key: str) -> ChatResult | None:
        """The stored result, or None (also when the mode is "off"). Raises UnsafeCacheEntry on tampering.

        A failed read (database locked past its timeout, unreadable disk) is logged, counted in
        ``read_errors`` and answered as a miss: the model is asked instead of the judge failing."""
        if not self.readable:
            return None
        try:
            found = await anyio.to_thread.run_sync(partial(self._get_sync, key), limiter=self._limiters.get())
        except (OSError, sqlite3.Error, diskcache.Timeout) as e:
            self.read_errors += 1
            logger.warning("response cache %s: could not read an entry: %s", self._config.directory, e)
            return None
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found

    async def put(self, key: str, result: ChatResult) -> None:
        """Store a successful result (its usage is not stored: a replay costs nothing).

        A failed write (disk full, database locked) is logged and counted in ``write_errors``, and
        the caller keeps its result."""
        if not self.writable:
            return
        try:
            await anyio.to_thread.run_sync(partial(self._put_sync, key, result), limiter=self._limiters.get())
        except (OSError, sqlite3.Error, diskcache.Timeout) as e:
            # The answer is already paid for: a full disk or a locked database must not lose it.
            self.write_errors += 1
            logger.warning("response cache %s: could not store an entry: %s", self._config.directory, e)
            return
        self.stores += 1

    def close(self) -> None:
        with self._opening:
            if self._cache is not None:
                self._cache.close()
                self._cache = None


def _private_directory(directory: Path) -> Path:
    """Create ``directory`` as 0700, or check an existing one is not open to other users."""
    directory = directory.expanduser()
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = directory.stat()
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        if info.st_uid != os.getuid():
            raise PermissionError(
                f"cache directory {directory} is open to other users and not ours to tighten; "
                f"set cache.directory to a private path"
            )
        directory.chmod(0o700)
    return directory
