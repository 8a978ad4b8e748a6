"""The response cache: keys, modes, no pickle, a private directory."""

from __future__ import annotations

import os
import pickle
import sqlite3
import stat
from pathlib import Path

import diskcache  # type: ignore[import-untyped]
import pytest

from trustscore import Usage
from trustscore._errors import UnsafeCacheEntry
from trustscore.llm import (
    CacheConfig,
    ChatRequest,
    ChatResult,
    Choice,
    Constraint,
    EndpointConfig,
    Message,
    ResponseCache,
    SafeDisk,
    cache_key,
)

pytestmark = pytest.mark.anyio

ENDPOINT = EndpointConfig(base_url="http://a.local/v1", model="judge")
REQUEST = ChatRequest(messages=[Message(role="user", content="Is the sky green?")], tag="lynx@abc")
RESULT = ChatResult(
    choices=[Choice(text="FAIL", finish_reason="stop")],
    model="judge",
    prompt_tokens=5,
    completion_tokens=1,
    usage=Usage(requests=1, seconds=0.5),
)


def test_key_names_the_server_unless_a_model_identity_is_shared() -> None:
    base = cache_key(ENDPOINT, REQUEST)
    assert len(base) == 64 and int(base, 16) >= 0
    elsewhere = EndpointConfig(base_url="http://b.local:9000/v1", model="judge")
    assert cache_key(elsewhere, REQUEST) != base  # same served name, maybe other weights
    same_weights = {"model": "judge", "model_identity": "org/judge@abc123"}
    urls = ("http://a.local/v1", "http://b.local/v1")
    replicas = [EndpointConfig(base_url=u, **same_weights) for u in urls]
    assert cache_key(replicas[0], REQUEST) == cache_key(replicas[1], REQUEST)
    changed = [
        REQUEST.model_copy(update={"temperature": 0.7}),
        REQUEST.model_copy(update={"top_p": 0.9}),
        REQUEST.model_copy(update={"max_tokens": 16}),
        REQUEST.model_copy(update={"n": 2}),
        REQUEST.model_copy(update={"seed": 1}),
        REQUEST.model_copy(update={"stop": ["\n"]}),
        REQUEST.model_copy(update={"logprobs": True}),
        REQUEST.model_copy(update={"top_logprobs": 5}),
        REQUEST.model_copy(update={"tag": "lynx@def"}),
        REQUEST.model_copy(update={"constraint": Constraint(choice=["PASS", "FAIL"])}),
        REQUEST.model_copy(update={"messages": [Message(role="user", content="Is the sky blue?")]}),
    ]
    keys = {cache_key(ENDPOINT, r) for r in changed}
    assert len(keys) == len(changed) and base not in keys
    assert cache_key(ENDPOINT.model_copy(update={"model_identity": "org/judge@rev2"}), REQUEST) != base
    assert cache_key(ENDPOINT.model_copy(update={"flavour": "openai"}), REQUEST) != base


async def test_roundtrip_and_hit_accounting(tmp_path: Path) -> None:
    cache = ResponseCache(CacheConfig(directory=tmp_path / "c"))
    key = cache_key(ENDPOINT, REQUEST)
    assert await cache.get(key) is None
    await cache.put(key, RESULT)
    found = await cache.get(key)
    assert found is not None and found.text == "FAIL" and found.prompt_tokens == 5
    assert found.usage == Usage()  # what the first call cost is not replayed
    assert (cache.hits, cache.misses, cache.stores) == (1, 1, 1)
    cache.close()


async def test_modes(tmp_path: Path) -> None:
    key = cache_key(ENDPOINT, REQUEST)
    writer = ResponseCache(CacheConfig(directory=tmp_path / "c"))
    await writer.put(key, RESULT)
    writer.close()
    reader = ResponseCache(CacheConfig(directory=tmp_path / "c", mode="read"))
    assert await reader.get(key) is not None
    other = cache_key(ENDPOINT, REQUEST.model_copy(update={"seed": 3}))
    await reader.put(other, RESULT)
    assert await reader.get(other) is None and reader.stores == 0
    reader.close()
    off = ResponseCache(CacheConfig(directory=tmp_path / "never", mode="off"))
    await off.put(key, RESULT)
    assert await off.get(key) is None
    assert not (tmp_path / "never").exists()


async def test_directory_is_private(tmp_path: Path) -> None:
    fresh = tmp_path / "deep" / "cache"
    cache = ResponseCache(CacheConfig(directory=fresh))
    await cache.put(cache_key(ENDPOINT, REQUEST), RESULT)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o700
    cache.close()
    loose = tmp_path / "loose"
    loose.mkdir()
    os.chmod(loose, 0o777)
    cache = ResponseCache(CacheConfig(directory=loose))
    await cache.get("0" * 64)
    assert stat.S_IMODE(loose.stat().st_mode) == 0o700
    cache.close()


async def test_pickled_rows_are_refused(tmp_path: Path) -> None:
    directory = tmp_path / "c"
    key = cache_key(ENDPOINT, REQUEST)
    plain = diskcache.Cache(str(directory))  # what an attacker with write access could do
    plain.set(key, {"not": "json"})  # a dict is pickled
    plain.close()
    with sqlite3.connect(directory / "cache.db") as db:
        (mode,) = db.execute("SELECT mode FROM Cache WHERE key = ?", (key,)).fetchone()
    assert mode == diskcache.core.MODE_PICKLE
    cache = ResponseCache(CacheConfig(directory=directory))
    with pytest.raises(UnsafeCacheEntry, match="pickled"):
        await cache.get(key)
    cache.close()


async def test_non_chatresult_rows_are_refused(tmp_path: Path) -> None:
    directory = tmp_path / "c"
    key = cache_key(ENDPOINT, REQUEST)
    plain = diskcache.Cache(str(directory))
    plain.set(key, '{"choices": "nope"}')
    plain.close()
    cache = ResponseCache(CacheConfig(directory=directory))
    with pytest.raises(UnsafeCacheEntry, match="not a ChatResult"):
        await cache.get(key)
    cache.close()


def test_safe_disk_refuses_non_str_keys_and_values(tmp_path: Path) -> None:
    store = diskcache.Cache(str(tmp_path / "c"), disk=SafeDisk)
    with pytest.raises(TypeError, match="keys must be str"):
        store.set(("a", 1), "v")
    with pytest.raises(TypeError, match="values must be str or bytes"):
        store.set("k", {"a": 1})
    store.set("k", "v")
    assert store.get("k") == "v"
    store.close()
    # a pickled key planted by someone else
    with sqlite3.connect(tmp_path / "c" / "cache.db") as db:
        db.execute(
            "INSERT INTO Cache (key, raw, store_time, expire_time, access_time, access_count, tag, size, "
            "mode, filename, value) VALUES (?, 0, 0, NULL, 0, 0, NULL, 0, 1, NULL, 'x')",
            (pickle.dumps(("a", 1)),),
        )
    store = diskcache.Cache(str(tmp_path / "c"), disk=SafeDisk)
    with pytest.raises(UnsafeCacheEntry, match="pickled key"):
        list(store.iterkeys())
    store.close()


async def test_a_failed_write_is_logged_and_counted_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    cache = ResponseCache(CacheConfig(directory=tmp_path / "c"))

    def disk_full() -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache, "_open", disk_full)
    await cache.put(cache_key(ENDPOINT, REQUEST), RESULT)
    assert (cache.stores, cache.write_errors) == (0, 1)
    where = tmp_path / "c"
    assert f"response cache {where}: could not store: [Errno 28] No space left on device" in caplog.text
    cache.close()


async def test_a_failed_read_is_a_logged_and_counted_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    cache = ResponseCache(CacheConfig(directory=tmp_path / "c"))

    def locked() -> None:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(cache, "_open", locked)
    assert await cache.get(cache_key(ENDPOINT, REQUEST)) is None
    assert (cache.hits, cache.read_errors) == (0, 1)
    assert "database is locked" in caplog.text
    cache.close()
