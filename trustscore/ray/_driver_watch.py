"""Scoring actors stop the moment the driver that runs their dataset is gone.

When a driver dies without shutting Ray down (SIGKILL, the OOM killer, a lost terminal), Ray ends its
actors only once it notices, seconds later, and meanwhile they go on scoring, each judge call a request
someone pays for. So the driver hands each actor its identity (:func:`this_driver`: the machine's boot
id, its pid and the pid's start time) and an actor on the same machine watches that process
(:func:`watch_driver`): a thread blocks on a pidfd (``os.pidfd_open``), which the kernel wakes when the
process exits, and the actor's process then exits at once, in-flight calls and all (their results
would have nowhere to go). A pid reused by another process has another start time and reads as gone.

An actor on another machine (a cluster joined with ``--address``), or off Linux, does not watch: there
Ray's own clean-up of a dead driver's job ends it.
"""

from __future__ import annotations

import os
import select
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from trustscore.ray._leftovers import _start_time

__all__ = ["stop_actor", "this_driver", "watch_driver"]

_BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


def this_driver() -> dict[str, object] | None:
    """This process's identity for :func:`watch_driver` (plain data, to cross to the actors); None
    where it cannot be watched (no ``/proc`` or no pidfd)."""
    if not hasattr(os, "pidfd_open") or not _BOOT_ID.is_file():
        return None
    return {"boot_id": _BOOT_ID.read_text().strip(), "pid": os.getpid(), "start": _start_time(os.getpid())}


def watch_driver(driver: dict[str, object] | None, on_gone: Callable[[], None]) -> bool:
    """Call ``on_gone`` (on a daemon thread) as soon as the ``driver`` process has exited; whether it is
    watched (False: no identity, or another machine's process)."""
    if driver is None or not hasattr(os, "pidfd_open") or not _BOOT_ID.is_file():
        return False
    if driver.get("boot_id") != _BOOT_ID.read_text().strip():
        return False
    pid, start = int(str(driver["pid"])), int(str(driver["start"]))
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        on_gone()
        return True
    except OSError:  # not allowed to watch it (another user's pid namespace): Ray's clean-up ends us
        return False
    if _start_time(pid) != start:  # the pid now names another process: the driver is gone
        os.close(pidfd)
        on_gone()
        return True

    def wait() -> None:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        while not poller.poll():  # readable once the process has exited
            pass
        os.close(pidfd)
        on_gone()

    threading.Thread(target=wait, name="trustscore-driver-watch", daemon=True).start()
    return True


def stop_actor() -> None:
    """End this actor's process now: its driver is gone, so nothing it scores can be written."""
    print("trustscore: the driver of this scoring run is gone; the actor stops", file=sys.stderr, flush=True)
    os._exit(1)
