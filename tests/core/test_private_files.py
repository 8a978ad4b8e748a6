"""Cache folders and files must be ours: a planted symlink, hard link, FIFO or a folder of another
user is refused for both caches, and nothing is written through it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.llm.test_cache import ENDPOINT, REQUEST, RESULT
from trustscore import Sample, Signal
from trustscore.core._private_files import check_own_file, open_own_file, private_directory
from trustscore.llm import CacheConfig, ResponseCache, cache_key
from trustscore.scoring._local_cache import LocalCache, sample_key

SAMPLE = Sample(question="When?", context=["It opened in 1998."], response="In 1998.")
SIGNAL = Signal(name="sig", value=0.8, version="v1")
NOBODY = 65534
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")


def use_both(directory: Path) -> tuple[ResponseCache, LocalCache]:
    """Store and read one entry in each cache over ``directory``."""
    config = CacheConfig(directory=directory)
    response, local = ResponseCache(config), LocalCache(config)
    key = cache_key(ENDPOINT, REQUEST)
    response._put_sync(key, RESULT)
    response._get_sync(key)
    local.put_signal(sample_key("sig@1", SAMPLE), SIGNAL)
    local.get_signal(sample_key("sig@1", SAMPLE), "sig", "v1")
    response.close()
    local.close()
    return response, local


def test_a_planted_database_symlink_is_refused_and_nothing_reaches_its_target(tmp_path: Path) -> None:
    attacker = tmp_path / "attacker"
    attacker.mkdir()
    cache = tmp_path / "cache"
    (cache / "local").mkdir(parents=True, mode=0o777)
    cache.chmod(0o777)  # a folder once open to others
    (cache / "cache.db").symlink_to(attacker / "evil.db")
    (cache / "local" / "cache.db-wal").symlink_to(attacker / "evil.db-wal")
    response, local = use_both(cache)
    assert list(attacker.iterdir()) == [], "nothing written through the symlinks"
    assert response.stores == 0 and response.write_errors == 1 and response.read_errors == 1
    assert local.stores == 0 and local.write_errors == 1 and local.read_errors == 1


@as_root
def test_a_folder_of_another_user_is_refused_for_both_caches(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign"
    foreign.mkdir(mode=0o700)
    os.chown(foreign, NOBODY, NOBODY)
    response, local = use_both(foreign)
    assert list(foreign.iterdir()) == [], "no database and no local/ folder created inside it"
    assert response.write_errors == 1 and local.write_errors == 1
    with pytest.raises(PermissionError, match="another user"):
        private_directory(foreign)


@as_root
def test_a_local_folder_of_another_user_is_refused(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    (cache / "local").mkdir(parents=True)
    os.chown(cache / "local", NOBODY, NOBODY)
    _, local = use_both(cache)
    assert local.write_errors == 1 and list((cache / "local").iterdir()) == []


def test_only_a_regular_file_of_ours_with_one_link_is_opened(tmp_path: Path) -> None:
    ours = tmp_path / "ours.val"
    ours.write_bytes(b"x")
    os.close(open_own_file(str(ours)))
    check_own_file(ours)
    check_own_file(tmp_path / "absent")  # not there yet: SQLite creates it
    (tmp_path / "link.val").symlink_to(ours)
    os.link(ours, tmp_path / "hard.val")
    os.mkfifo(tmp_path / "fifo.val")  # opening it must not wait for a writer
    refused = {"link.val": "symbolic link", "hard.val": "hard link", "fifo.val": "regular"}
    for name, why in refused.items():
        with pytest.raises(OSError, match=why):
            os.close(open_own_file(str(tmp_path / name)))
    with pytest.raises(PermissionError, match="symlink"):
        check_own_file(tmp_path / "link.val")


@as_root
def test_a_file_of_another_user_is_refused(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs.val"
    theirs.write_bytes(b"x")
    os.chown(theirs, NOBODY, NOBODY)
    with pytest.raises(PermissionError, match="another user"):
        os.close(open_own_file(str(theirs)))
