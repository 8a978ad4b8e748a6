"""Processes a killed ``score --ray`` run left behind, found and stopped by the next run into its output.

When the driver starts its own local Ray and is killed (SIGKILL, a lost terminal), Ray's GCS and
raylet die with it and the workers follow within seconds, but not always at once, and some node
agents (dashboard, runtime-env) keep running. So a run that starts its own Ray marks every process
it starts: the environment variable :data:`RUN_ENV` holds a fresh run id (Ray's processes inherit
it), and once Ray is up the run writes the id and each of its child processes (pid and start time)
into the output directory's lock file. The next run into that directory, holding the lock (so the
run it records is over), stops what is still alive of it: a recorded process whose pid and start
time both match, or one of this user's processes whose environment holds that run's id. Nothing
else is touched: a pid reused by another program has another start time, and no other program
carries the run id.

Linux only (``/proc``); elsewhere nothing is recorded and nothing stopped. A run that joins a
cluster (``--address``) records nothing: Ray ends a dead driver's job and its actors itself.
"""

from __future__ import annotations

import json
import os
import signal
import uuid
from pathlib import Path

__all__ = ["RUN_ENV", "mark_run", "record_run", "stop_leftovers"]

RUN_ENV = "TRUSTSCORE_RAY_RUN"

_PROC = Path("/proc")


def mark_run() -> str:
    """A fresh run id, set in this process's environment so the Ray it starts inherits it."""
    run = uuid.uuid4().hex
    os.environ[RUN_ENV] = run
    return run


def record_run(lock: Path, run: str) -> None:
    """Write ``run`` and this process's descendants (pid, start time) into the lock file."""
    if not _PROC.is_dir():
        return
    processes = [[pid, start] for pid, start in _descendants(os.getpid())]
    lock.write_text(json.dumps({"run": run, "processes": processes}), encoding="utf-8")


def stop_leftovers(lock: Path) -> int:
    """Stop what is still alive of the run recorded in ``lock``; how many processes were stopped."""
    if not _PROC.is_dir():
        return 0
    try:
        recorded = json.loads(lock.read_text(encoding="utf-8") or "{}")
        run = str(recorded.get("run", ""))
        listed = {(int(pid), int(start)) for pid, start in recorded.get("processes", [])}
    except (OSError, ValueError, TypeError, AttributeError):
        return 0  # no record (a new directory) or not one of ours: nothing to stop
    if not run:
        return 0
    marker = f"{RUN_ENV}={run}".encode()
    stopped = 0
    for pid in _own_pids():
        start = _start_time(pid)
        if (pid, start) in listed or marker in _environ(pid).split(b"\0"):
            try:
                os.kill(pid, signal.SIGKILL)
                stopped += 1
            except OSError:
                pass  # gone meanwhile
    return stopped


def _own_pids() -> list[int]:
    me = os.getpid()
    uid = os.getuid()
    pids = []
    for entry in _PROC.iterdir():
        if entry.name.isdigit() and int(entry.name) != me:
            try:
                if entry.stat().st_uid == uid:
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def _stat_fields(pid: int) -> list[str]:
    try:
        text = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return []
    return text.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces


def _start_time(pid: int) -> int:
    fields = _stat_fields(pid)
    return int(fields[19]) if len(fields) > 19 else -1  # field 22 of stat: start time in ticks


def _environ(pid: int) -> bytes:
    try:
        return (_PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return b""


def _descendants(root: int) -> list[tuple[int, int]]:
    children: dict[int, list[int]] = {}
    for pid in _own_pids():
        fields = _stat_fields(pid)
        if len(fields) > 1:
            children.setdefault(int(fields[1]), []).append(pid)
    out: list[tuple[int, int]] = []
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop()
        out.append((pid, _start_time(pid)))
        todo.extend(children.get(pid, []))
    return out
