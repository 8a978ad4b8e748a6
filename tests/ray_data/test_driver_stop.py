"""A ``score --ray`` driver that is gone takes its scoring with it: after SIGKILL the actors on its
machine stop at once, so no judge request arrives once the driver is dead; SIGTERM ends the command
within its grace, exit status 143."""

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

from trustscore.ray._command import SIGTERM_GRACE_S  # noqa: E402
from trustscore.ray._driver_watch import this_driver, watch_driver  # noqa: E402
from trustscore.ray._leftovers import RUN_ENV  # noqa: E402
from trustscore.testing import FakeVLLMServer, LatencyModel, judge_policy  # noqa: E402

SETTLE_S = 1.0
"""How long after the kill a request may still arrive: one sent in the instant before the actor's
watcher thread ran (the kernel wakes it when the driver exits; a loaded box may take a moment to
schedule it). Without the watch, actors sent hundreds of requests over the seconds after the kill."""


def _start_driver(tmp_path: Path, server: FakeVLLMServer) -> tuple[subprocess.Popen[bytes], Path]:
    from ray_data.test_score_ray import rows, write_config, write_jsonl

    config = write_config(tmp_path, server.base_url)
    source = write_jsonl(tmp_path / "in.jsonl", rows(200))
    output = tmp_path / "out.jsonl"
    command = [sys.executable, "-m", "trustscore.cli", "score", str(source), "-o", str(output)]
    command += ["--config", str(config), "--ray", "--actors", "1", "--batch-size", "2", "--no-progress"]
    driver = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    while not server.engine.completion_requests():
        assert driver.poll() is None, driver.stderr.read().decode()[-2000:]  # type: ignore[union-attr]
        assert time.monotonic() < deadline, "the run never reached the judge"
        time.sleep(0.2)
    return driver, output


def _run_actors(run: str) -> list[int]:
    """The scoring actors' pids of the run ``run`` (its id is in their environment)."""
    marker = f"{RUN_ENV}={run}".encode()
    out = []
    for entry in Path("/proc").iterdir():
        try:
            if (
                entry.name.isdigit()
                and b"ScoreBatches" in (entry / "cmdline").read_bytes()
                and marker in (entry / "environ").read_bytes().split(b"\0")
            ):
                out.append(int(entry.name))
        except OSError:
            continue
    return out


def _wait_gone(run: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while _run_actors(run):
        assert time.monotonic() < deadline, "the killed run's actors are still running"
        time.sleep(0.1)


def test_no_judge_request_arrives_once_a_killed_driver_is_dead(tmp_path: Path) -> None:
    server = FakeVLLMServer(judge_policy(), latency=LatencyModel(overhead_s=0.05)).start()
    try:
        driver, output = _start_driver(tmp_path, server)
        run = json.loads((output / ".trustscore.lock").read_text())["run"]
        assert _run_actors(run), "the run's actor is not running"
        driver.send_signal(signal.SIGKILL)
        driver.wait()
        killed = time.time()
        _wait_gone(run, 60)  # the actors' stop, confirmed: their processes have exited
        late = [r.time - killed for r in server.engine.completion_requests() if r.time > killed + SETTLE_S]
        assert late == [], f"{len(late)} judge request(s) arrived after the driver was killed"
    finally:
        server.stop()


def test_sigterm_ends_the_run_within_its_grace(tmp_path: Path) -> None:
    server = FakeVLLMServer(judge_policy(), latency=LatencyModel(overhead_s=0.05)).start()
    try:
        driver, output = _start_driver(tmp_path, server)
        run = json.loads((output / ".trustscore.lock").read_text())["run"]
        driver.send_signal(signal.SIGTERM)
        try:
            status = driver.wait(timeout=SIGTERM_GRACE_S + 30)  # the grace, and a loaded box's start-up
        except subprocess.TimeoutExpired:
            driver.kill()
            raise AssertionError("score --ray was still running long after its SIGTERM grace") from None
        assert status == 128 + signal.SIGTERM
        _wait_gone(run, 60)
    finally:
        server.stop()


def test_an_actor_watches_only_a_driver_on_its_own_machine() -> None:
    gone: list[bool] = []
    me = this_driver()
    assert me is not None and me["pid"] == os.getpid()
    assert not watch_driver({**me, "boot_id": "another-machine"}, lambda: gone.append(True))
    assert not watch_driver(None, lambda: gone.append(True))
    assert watch_driver({**me, "start": int(str(me["start"])) + 1}, lambda: gone.append(True))  # pid reused
    assert gone == [True]


def test_the_watch_fires_when_the_watched_process_exits() -> None:
    import threading

    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    fired = threading.Event()
    from trustscore.ray._leftovers import _start_time

    me = this_driver()
    assert me is not None
    watched = {**me, "pid": child.pid, "start": _start_time(child.pid)}
    assert watch_driver(watched, fired.set)
    assert not fired.is_set()
    child.stdin.close()  # type: ignore[union-attr]  (the child reads to the end and exits)
    child.wait()
    assert fired.wait(30)


def test_a_shutdown_that_hangs_after_sigterm_ends_at_the_grace() -> None:
    code = (
        "import time\n"
        "from trustscore.ray import _command\n"
        "_command.SIGTERM_GRACE_S = 0.5\n"
        "with _command._sigterm_within_grace():\n"
        "    try:\n"
        "        print('ready', flush=True)\n"
        "        time.sleep(600)\n"
        "    finally:\n"
        "        time.sleep(600)  # a Ray shutdown that never returns\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert child.stdout.readline() == b"ready\n"  # type: ignore[union-attr]
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=120) == 128 + signal.SIGTERM
        assert b"SIGTERM, stopping (at most 0.5 s)" in child.stderr.read()  # type: ignore[union-attr]
    finally:
        child.kill()
        child.wait()
