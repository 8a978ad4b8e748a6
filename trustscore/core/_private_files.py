"""Folders and files that must be ours before a cache uses them.

A cache folder may once have been open to others (0777, a shared ``XDG_CACHE_HOME``), or belong to
another user. Whatever was planted in it before it was tightened is not ours: a ``cache.db`` symlink
to an attacker's folder would take every judge answer there and serve answers back from it, a hard
link would write into a file elsewhere, a FIFO would block a read forever. So a folder is used only
when it (what a symlink to it points at) is owned by this user, and a file only when it is a regular
file (not a symlink, device or FIFO) owned by this user with one link. Each check is made on what is
opened (``lstat`` before a database opens, ``O_NOFOLLOW`` and ``fstat`` on a value file), and a
failure is a :class:`PermissionError` naming the path and what is wrong with it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["check_own_file", "open_own_file", "private_directory", "private_subfolder"]

_OPEN_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def private_directory(directory: Path) -> Path:
    """Create ``directory`` as 0700, or check an existing one is ours (tightening it to 0700 if it is
    open to others). A folder of another user is refused: set cache.directory elsewhere."""
    directory = directory.expanduser()
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = directory.lstat()
    if stat.S_ISLNK(info.st_mode):
        raise PermissionError(
            f"cache directory {directory} is a symlink; set cache.directory to a real folder"
        )
    if info.st_uid != os.getuid():
        raise PermissionError(
            f"cache directory {directory} belongs to another user (uid {info.st_uid}); "
            "set cache.directory to a private path"
        )
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        directory.chmod(0o700)
    return directory


def private_subfolder(directory: Path, root: Path) -> Path:
    """``directory`` (inside ``root``) made private after ``root`` is checked: a subfolder is never
    created inside a folder that is not ours."""
    private_directory(root)
    return private_directory(directory)


def check_own_file(path: Path) -> None:
    """Refuse ``path`` if it exists and is not a regular file of ours with one link (it is checked
    before a library opens it by name)."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    _check(path, info)


def open_own_file(path: str) -> int:
    """A read-only descriptor of ``path``, refused unless it is a regular file of ours with one link
    (a symlink fails to open; a FIFO opens without waiting and is refused)."""
    fd = os.open(path, _OPEN_READ)
    try:
        _check(Path(path), os.fstat(fd))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _check(path: Path, info: os.stat_result) -> None:
    if stat.S_ISLNK(info.st_mode):
        why = "a symlink"
    elif not stat.S_ISREG(info.st_mode):
        why = "not a regular file"
    elif info.st_uid != os.getuid():
        why = f"owned by another user (uid {info.st_uid})"
    elif info.st_nlink != 1:
        why = f"a hard link ({info.st_nlink} names)"
    else:
        return
    raise PermissionError(f"cache file {path} is {why}: trustscore did not write it; remove it to go on")
