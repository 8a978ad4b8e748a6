"""The local-signal cache: embeddings and local-signal results kept on disk across runs.

A warm re-run of a file repeated every forward pass: only LLM answers were cached. This cache keeps,
content-addressed,

* **signal results** of local signals that say what their result depends on
  (:meth:`cache_identity`, e.g. the method version and the model's weights hash), keyed by that
  identity and the sample's question, context and response, stored as Signal JSON;
* **embeddings**, keyed by the model identity and the text, stored as ``.npy`` bytes (float32, one
  row; read back with ``allow_pickle=False``): a new response on a known context embeds only itself.

It is a :class:`~trustscore.core._disk_cache.DiskCache` like the response cache: sha256 keys, nothing
pickled, no file outside its 0700 directory (``<cache.directory>/local``) ever touched, ``[cache]
mode`` ("off" never touches disk, "read" never writes), only successful results stored, and a failed
read or write counted and answered as a miss.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

import diskcache  # type: ignore[import-untyped]
from pydantic import ValidationError

from trustscore._types import Sample, Signal
from trustscore.core._disk_cache import DiskCache, UnsafeCacheEntry
from trustscore.core._hashing import canonical_json, sha256_hex
from trustscore.llm._config import CacheConfig

if TYPE_CHECKING:
    import numpy as np

__all__ = ["LOCAL_CACHE_SCHEMA", "LocalCache", "sample_key"]

LOCAL_CACHE_SCHEMA = 1
"""Bump when the stored shapes change: old entries stop matching."""

T = TypeVar("T")


def sample_key(identity: str, sample: Sample) -> str:
    """The key of one signal result: the signal's identity and the text it reads."""
    return sha256_hex(
        canonical_json(
            {
                "schema": LOCAL_CACHE_SCHEMA,
                "kind": "signal",
                "signal": identity,
                "question": sample.question,
                "context": sample.context,
                "response": sample.response,
            }
        )
    )


def _vector_key(model: str, text: str) -> str:
    return sha256_hex(_vector_key_prefix(model) + text)


@lru_cache(maxsize=16)
def _vector_key_prefix(model: str) -> str:
    """The part of a vector's key that is the same for every text of ``model`` (built once)."""
    return canonical_json({"schema": LOCAL_CACHE_SCHEMA, "kind": "vector", "model": model})


class LocalCache(DiskCache):
    """Blocking access (call it from worker threads); thread-safe. Counts hits, misses and failures.

    Every disk access runs on one thread of its own: diskcache opens an SQLite connection per
    thread, each mapping up to 64 MiB of the database, and callers come from many worker threads.
    """

    def __init__(self, config: CacheConfig) -> None:
        super().__init__(
            config.directory / "local",
            root=config.directory,  # never created inside a cache folder that is not ours
            mode=config.mode,
            size_limit_bytes=config.size_limit_bytes,
            label="local-signal cache",
        )
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="trustscore-local-cache")

    def _run(self, work: Callable[[], T]) -> T:
        return self._thread.submit(work).result()

    # -- signal results ---------------------------------------------------------------------

    def get_signal(self, key: str, name: str, version: str | None) -> Signal | None:
        """The stored signal (None on a miss). Raises UnsafeCacheEntry on a row trustscore did not write,
        unless ``replace_unsafe`` (then: None, and ``put_signal`` replaces it)."""
        try:
            raw = self._read(lambda c: c.get(key, default=None), None)
            if raw is None:
                self._count(misses=1)
                return None
            signal = _stored_signal(raw, key, name, version, self.directory)
        except UnsafeCacheEntry as e:
            self._unsafe(e)
            return None
        self._count(hits=1)
        return signal

    def put_signal(self, key: str, signal: Signal) -> None:
        """Store a result that has a value (a missing signal is never stored); its usage is not kept."""
        if signal.value is None:
            return
        # serialised inside the write: a value JSON cannot hold (a lone surrogate) is a counted miss
        self._write(lambda c: c.set(key, signal.model_dump_json(exclude={"usage"})))

    # -- embeddings -------------------------------------------------------------------------

    def get_vectors(self, model: str, texts: Iterable[str], dim: int) -> dict[str, np.ndarray]:
        """The stored vectors of ``texts`` for ``model`` (misses left out). Raises UnsafeCacheEntry on
        a row that is not one float32 row of ``dim`` values."""

        def read(c: diskcache.Cache) -> dict[str, np.ndarray]:
            found = {}
            for t in texts:
                try:
                    raw = c.get(_vector_key(model, t), default=None)
                    if raw is not None:
                        found[t] = _vector(raw, dim, self.directory)
                except UnsafeCacheEntry as e:
                    self._unsafe(e)  # replacing: a miss, embedded and stored again
            return found

        return self._read(read, {})

    def put_vectors(self, model: str, vectors: Mapping[str, np.ndarray]) -> None:
        def write(c: diskcache.Cache) -> None:
            with c.transact():
                for t, v in vectors.items():
                    c.set(_vector_key(model, t), _npy(v))

        self._write(write)

    def close(self) -> None:
        super().close()  # on its thread: the connection belongs to that thread
        self._thread.shutdown()
        # A closed cache reopens on use, like the response cache; no thread runs until then.
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="trustscore-local-cache")


def _stored_signal(raw: Any, key: str, name: str, version: str | None, directory: Any) -> Signal:
    """The Signal a cache row holds; UnsafeCacheEntry when it is not one this signal stored."""
    try:
        signal = Signal.model_validate_json(raw)
    except ValidationError as e:
        raise UnsafeCacheEntry(
            f"local-signal cache entry {key[:12]} in {directory} is not a Signal "
            f"({e.error_count()} errors); rerun with --retry-incomplete to replace it"
        ) from None
    if signal.name != name or signal.version != version or signal.value is None:
        raise UnsafeCacheEntry(
            f"local-signal cache entry {key[:12]} in {directory} holds {signal.name!r} "
            f"{signal.version!r}, not {name!r} {version!r}; rerun with --retry-incomplete to replace it"
        )
    return signal


def _npy(vector: np.ndarray) -> bytes:
    """The bytes ``np.save`` writes for ``vector`` as float32: the header of its shape, then its data.
    (np.save formats the header anew for every call, holding the GIL each time.)"""
    import numpy as np

    row = np.ascontiguousarray(vector, dtype="<f4")
    return _npy_header(row.shape) + row.tobytes()


@lru_cache(maxsize=16)
def _npy_header(shape: tuple[int, ...]) -> bytes:
    import numpy as np

    buffer = io.BytesIO()
    np.save(buffer, np.zeros(shape, dtype="<f4"), allow_pickle=False)
    raw = buffer.getvalue()
    return raw[: len(raw) - 4 * int(np.prod(shape))]


def _vector(raw: Any, dim: int, directory: Any) -> np.ndarray:
    import numpy as np

    try:
        if not isinstance(raw, bytes):
            raise ValueError(f"a {type(raw).__name__}, not npy bytes")
        v = np.load(io.BytesIO(raw), allow_pickle=False)
        if v.dtype != np.float32 or v.shape != (dim,):
            raise ValueError(f"{v.dtype} {v.shape}, not float32 ({dim},)")
    except ValueError as e:
        raise UnsafeCacheEntry(
            f"a vector in the local-signal cache {directory} is not what trustscore writes ({e}); "
            "rerun with --retry-incomplete to replace it"
        ) from None
    return v
