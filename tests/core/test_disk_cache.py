"""The store under both caches: a planted row never makes trustscore touch a file outside the cache."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from trustscore import Signal
from trustscore.core._disk_cache import SafeDisk
from trustscore.llm import CacheConfig, ChatResult, Choice, ResponseCache
from trustscore.scoring._local_cache import LocalCache

pytestmark = pytest.mark.anyio

ESCAPES = ["../victim/dir/precious.txt", "{victim}/dir/precious.txt", "ab/../../victim/dir/precious.txt"]


def plant(database: Path, key: str, filename: str, *, expired: bool) -> None:
    """A row as someone with write access to the cache could insert it (a file-backed text value)."""
    with sqlite3.connect(database) as db:
        db.execute(
            "INSERT INTO Cache (key, raw, store_time, expire_time, access_time, access_count, tag, size, "
            "mode, filename, value) VALUES (?, 1, 0, ?, 0, 0, NULL, 10, 3, ?, NULL)",
            (key, 1.0 if expired else None, filename),
        )


def victim_file(tmp_path: Path) -> Path:
    precious = tmp_path / "victim" / "dir" / "precious.txt"
    precious.parent.mkdir(parents=True)
    precious.write_text("keep me")
    return precious


def stored_filename(pattern: str, tmp_path: Path) -> str:
    return pattern.format(victim=tmp_path / "victim")


@pytest.mark.parametrize("pattern", ESCAPES)
async def test_an_expired_row_naming_a_file_outside_the_answer_cache_deletes_nothing(
    tmp_path: Path, pattern: str
) -> None:
    precious = victim_file(tmp_path)
    cache = ResponseCache(CacheConfig(directory=tmp_path / "cache"))
    await cache.put("a" * 64, ChatResult(choices=[Choice(text="PASS")]))  # creates the database
    plant(tmp_path / "cache" / "cache.db", "b" * 64, stored_filename(pattern, tmp_path), expired=True)
    await cache.put("c" * 64, ChatResult(choices=[Choice(text="FAIL")]))  # the write culls expired rows
    cache.close()
    assert precious.read_text() == "keep me"


@pytest.mark.parametrize("pattern", ESCAPES)
def test_an_expired_row_naming_a_file_outside_the_local_cache_deletes_nothing(
    tmp_path: Path, pattern: str
) -> None:
    precious = victim_file(tmp_path)
    cache = LocalCache(CacheConfig(directory=tmp_path / "cache"))
    cache.put_signal("a" * 64, Signal(name="s", value=0.5, version="1"))
    plant(
        tmp_path / "cache" / "local" / "cache.db", "b" * 64, stored_filename(pattern, tmp_path), expired=True
    )
    cache.put_signal("c" * 64, Signal(name="s", value=0.7, version="1"))
    cache.close()
    assert precious.read_text() == "keep me"


async def test_a_live_row_naming_a_file_outside_the_cache_is_a_miss(tmp_path: Path) -> None:
    precious = victim_file(tmp_path)
    precious.write_text('{"choices": [{"text": "PASS"}]}')  # a valid answer, planted outside
    cache = ResponseCache(CacheConfig(directory=tmp_path / "cache"))
    await cache.put("a" * 64, ChatResult(choices=[Choice(text="PASS")]))
    plant(tmp_path / "cache" / "cache.db", "b" * 64, "../victim/dir/precious.txt", expired=False)
    assert await cache.get("b" * 64) is None
    assert cache.misses == 1 and cache.hits == 0
    cache.close()
    local = LocalCache(CacheConfig(directory=tmp_path / "cache"))
    local.put_signal("a" * 64, Signal(name="s", value=0.5, version="1"))
    plant(tmp_path / "cache" / "local" / "cache.db", "b" * 64, "../../victim/dir/precious.txt", expired=False)
    assert local.get_signal("b" * 64, "s", "1") is None
    local.close()
    assert precious.exists()


def test_a_symlinked_folder_inside_the_cache_is_not_followed_out(tmp_path: Path) -> None:
    precious = victim_file(tmp_path)
    import diskcache  # type: ignore[import-untyped]

    store = diskcache.Cache(str(tmp_path / "cache"), disk=SafeDisk)
    (tmp_path / "cache" / "ab").symlink_to(tmp_path / "victim")
    name = "ab/dir/" + "0" * 28 + ".val"
    (tmp_path / "victim" / "dir" / ("0" * 28 + ".val")).write_text("keep me too")
    store.close()
    plant(tmp_path / "cache" / "cache.db", "k", name, expired=True)
    store = diskcache.Cache(str(tmp_path / "cache"), disk=SafeDisk)
    store.set("other", "v")
    store.close()
    assert precious.exists() and (tmp_path / "victim" / "dir" / ("0" * 28 + ".val")).exists()


def test_files_the_cache_wrote_itself_are_still_removed(tmp_path: Path) -> None:
    import diskcache

    store = diskcache.Cache(str(tmp_path / "cache"), disk=SafeDisk, disk_min_file_size=0)
    store.set("k", "a value kept in a file", expire=3600)
    with sqlite3.connect(tmp_path / "cache" / "cache.db") as db:
        (filename,) = db.execute("SELECT filename FROM Cache").fetchone()
        db.execute("UPDATE Cache SET expire_time = 1")  # expired long ago
    assert (tmp_path / "cache" / filename).exists()
    store.set("other", "v")
    store.close()
    assert not (tmp_path / "cache" / filename).exists()


async def test_a_result_that_cannot_be_stored_is_a_counted_miss_never_an_error(tmp_path: Path) -> None:
    cache = ResponseCache(CacheConfig(directory=tmp_path / "cache"))
    unstorable = ChatResult(choices=[Choice(text="PASS \ud800")])  # not encodable as UTF-8
    await cache.put("a" * 64, unstorable)
    assert (cache.stores, cache.write_errors) == (0, 1)
    assert await cache.get("a" * 64) is None
    cache.close()
    local = LocalCache(CacheConfig(directory=tmp_path / "cache"))
    local.put_signal("b" * 64, Signal(name="s", value=0.5, version="1", raw={"text": "\ud800"}))
    assert (local.stores, local.write_errors) == (0, 1)
    local.close()
