"""A killed ``score --ray`` run's leftovers are stopped by the next run into its output, and nothing
else is: processes are found by the run id in their environment or by the pid and start time the
run recorded."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.ray
pytest.importorskip("ray")

from trustscore.ray._leftovers import RUN_ENV, _start_time, record_run, stop_leftovers  # noqa: E402

SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)"]


def _spawn(**env: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(SLEEPER, env={**os.environ, **env})


def _gone(process: subprocess.Popen[bytes]) -> bool:
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        return False
    return process.returncode == -signal.SIGKILL


def test_only_the_recorded_runs_processes_are_stopped(tmp_path: Path) -> None:
    lock = tmp_path / ".trustscore.lock"
    marked = _spawn(**{RUN_ENV: "run-a"})
    listed = _spawn()
    other_run = _spawn(**{RUN_ENV: "run-b"})
    bystander = _spawn()
    try:
        recorded = [[listed.pid, _start_time(listed.pid)], [bystander.pid, _start_time(bystander.pid) + 1]]
        lock.write_text(json.dumps({"run": "run-a", "processes": recorded}))
        assert stop_leftovers(lock) == 2
        assert _gone(marked) and _gone(listed)
        assert other_run.poll() is None and bystander.poll() is None  # another run; a reused pid
    finally:
        for p in (marked, listed, other_run, bystander):
            p.kill()
            p.wait()


def test_a_run_records_its_children_and_an_empty_lock_stops_nothing(tmp_path: Path) -> None:
    lock = tmp_path / ".trustscore.lock"
    lock.write_text("")
    assert stop_leftovers(lock) == 0
    child = _spawn()
    try:
        record_run(lock, "run-c")
        data = json.loads(lock.read_text())
        assert data["run"] == "run-c" and [child.pid, _start_time(child.pid)] in data["processes"]
        assert stop_leftovers(lock) >= 1 and _gone(child)
    finally:
        child.kill()
        child.wait()


def test_a_killed_driver_of_its_own_ray_leaves_nothing_the_resume_does_not_stop(tmp_path: Path) -> None:
    from ray_data.test_score_ray import _hold_row, _slow_server, rows, score_ray, write_config, write_jsonl
    from trustscore.ray._files import output_rows, previous_rows

    server = _slow_server()
    release = _hold_row(server, 39)  # the run cannot finish before the kill, however fast the box
    try:
        config = write_config(tmp_path, server.base_url)
        source = write_jsonl(tmp_path / "in.jsonl", rows(40))
        output = tmp_path / "out.jsonl"
        command = [sys.executable, "-m", "trustscore.cli", "score", str(source), "-o", str(output)]
        command += ["--config", str(config), "--ray", "--actors", "1", "--batch-size", "2", "--no-progress"]
        driver = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 240
        while not server.engine.completion_requests() and time.monotonic() < deadline:
            time.sleep(0.5)
        assert server.engine.completion_requests(), "the run never reached the judge"
        record = json.loads((output / ".trustscore.lock").read_text())
        assert record["processes"], "the run recorded the processes of its Ray"
        driver.send_signal(signal.SIGKILL)
        driver.wait()
        assert len(previous_rows(str(output), "jsonl")) < 40, "the driver was not killed mid-run"
        release.set()
        assert score_ray(source, output, config, "--actors", "1", "--batch-size", "2") == 0
        assert len(output_rows(str(output), "jsonl")) == 40
        marker = f"{RUN_ENV}={record['run']}".encode()
        left = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _has(p, marker)]
        left += [pid for pid, start in record["processes"] if _start_time(pid) == start]
        assert left == [], "a process of the killed run is still running"
    finally:
        server.stop()


def _has(proc: Path, marker: bytes) -> bool:
    try:
        return marker in (proc / "environ").read_bytes().split(b"\0")
    except OSError:
        return False
