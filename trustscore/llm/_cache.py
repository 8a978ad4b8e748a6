"""The judge-answer cache: ChatResults, content-addressed, on a
:class:`~trustscore.core._disk_cache.DiskCache`.

Keys are sha256 hex strings, values ChatResult JSON strings; the store underneath never pickles and
never touches a file outside its directory (see :mod:`trustscore.core._disk_cache`).
"""

from __future__ import annotations

from functools import partial

import anyio
from pydantic import ValidationError

from trustscore.core._disk_cache import DiskCache, SafeDisk, UnsafeCacheEntry
from trustscore.core._hashing import canonical_json, sha256_hex
from trustscore.llm._config import CacheConfig, EndpointConfig
from trustscore.llm._limits import LoopLocal
from trustscore.llm._protocol import ChatRequest, ChatResult

__all__ = ["CACHE_SCHEMA_VERSION", "ResponseCache", "SafeDisk", "cache_key"]

CACHE_SCHEMA_VERSION = 1
"""Bump when the request body mapping or the stored ChatResult shape changes: old entries stop matching."""

_THREADS_PER_LOOP = 4  # SQLite reads take microseconds; a few threads keep the event loop free


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


class ResponseCache(DiskCache):
    """Async access to the on-disk cache. Errors are never stored (the client only stores results).

    ``mode``: "off" never touches disk; "read" replays but never writes; "readwrite" does both.
    The directory is created with mode 0700; an existing one of another user is refused, one of ours
    that others can read or write is tightened to 0700, and every file in it is checked before use.
    """

    def __init__(self, config: CacheConfig) -> None:
        super().__init__(
            config.directory,
            mode=config.mode,
            size_limit_bytes=config.size_limit_bytes,
            label="response cache",
        )
        self._config = config
        self._limiters: LoopLocal[anyio.CapacityLimiter] = LoopLocal(
            lambda: anyio.CapacityLimiter(_THREADS_PER_LOOP)
        )

    @property
    def config(self) -> CacheConfig:
        return self._config

    def _get_sync(self, key: str) -> ChatResult | None:
        try:
            raw = self._read(lambda c: c.get(key, default=None), None)
            if raw is None:
                self._count(misses=1)
                return None
            try:
                found = ChatResult.model_validate_json(raw)
            except ValidationError as e:
                raise UnsafeCacheEntry(
                    f"cache entry {key[:12]} in {self.directory} is not a ChatResult "
                    f"({e.error_count()} errors); rerun with --retry-incomplete to replace it"
                ) from None
        except UnsafeCacheEntry as e:
            self._unsafe(e)
            return None
        self._count(hits=1)
        return found

    def _put_sync(self, key: str, result: ChatResult) -> None:
        self._write(lambda c: c.set(key, result.model_dump_json(exclude={"usage"})))

    async def get(self, key: str) -> ChatResult | None:
        """The stored result, or None (also when the mode is "off"). Raises UnsafeCacheEntry on an
        entry trustscore did not write, unless ``replace_unsafe`` (then: None, and ``put`` replaces it).

        A failed read (database locked past its timeout, unreadable disk) is logged, counted in
        ``read_errors`` and answered as a miss: the model is asked instead of the judge failing."""
        if not self.readable:
            return None
        return await anyio.to_thread.run_sync(partial(self._get_sync, key), limiter=self._limiters.get())

    async def put(self, key: str, result: ChatResult) -> None:
        """Store a successful result (its usage is not stored: a replay costs nothing).

        A failed write (disk full, database locked, a result that cannot be serialised) is logged
        and counted in ``write_errors``, and the caller keeps its result."""
        if not self.writable:
            return
        await anyio.to_thread.run_sync(partial(self._put_sync, key, result), limiter=self._limiters.get())
