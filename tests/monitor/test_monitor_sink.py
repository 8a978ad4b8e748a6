"""The Monitor's sink never harms its host: faults are counted and logged once, a FIFO never blocks
the event loop, and a row torn by a killed writer costs no later row."""

from __future__ import annotations

import json
import logging
import os
import resource
import signal
import threading
from pathlib import Path

import anyio
import pytest

from tests.monitor.test_monitor import ANSWER, OFFLINE
from trustscore import Scorer
from trustscore.monitor import Monitor

pytestmark = pytest.mark.anyio

STEPS = 20


async def run_host(monitor: Monitor) -> int:
    """The application's own code inside the block: one step per answer, each yielding to the loop."""
    steps = 0
    for i in range(STEPS):
        monitor.submit(**ANSWER, id=f"s{i}")
        await anyio.lowlevel.checkpoint()
        steps += 1
    return steps


def monitor_logs(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "trustscore.monitor"]


async def test_a_device_sink_is_refused_and_every_host_step_runs(caplog: pytest.LogCaptureFixture) -> None:
    async with Scorer(OFFLINE) as scorer, Monitor(scorer, sink="/dev/full") as monitor:
        steps = await run_host(monitor)
    assert steps == STEPS
    s = monitor.stats
    assert (s.scored, s.sink_failed) == (STEPS, STEPS)
    assert s.sink_fault is not None and "not a regular file" in s.sink_fault
    (line,) = monitor_logs(caplog)  # one line, not one per row
    assert "/dev/full" in line and "sink_failed" in line


async def test_a_write_fault_on_a_regular_file_is_counted_not_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A file-size limit makes every write fail (EFBIG), as a full disk does (ENOSPC)."""
    sink = tmp_path / "scores.jsonl"
    sink.write_text('{"id": "old"}\n')
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (sink.stat().st_size, hard))
    try:
        async with Scorer(OFFLINE) as scorer, Monitor(scorer, sink=sink) as monitor:
            steps = await run_host(monitor)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)
    assert steps == STEPS and monitor.stats.sink_failed == STEPS
    assert len(monitor_logs(caplog)) == 1
    assert sink.read_text() == '{"id": "old"}\n'


async def test_a_fifo_sink_with_no_reader_never_blocks_the_loop(tmp_path: Path) -> None:
    fifo = tmp_path / "scores.fifo"
    os.mkfifo(fifo)
    done = threading.Event()
    released = threading.Event()

    def release_a_blocked_loop() -> None:
        """Only when the loop is stuck opening the FIFO: open its read end, so the test fails
        instead of hanging."""
        if not done.wait(30):
            released.set()
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))

    watchdog = threading.Thread(target=release_a_blocked_loop, daemon=True)
    watchdog.start()
    host_ran = anyio.Event()

    async def another_host_task() -> None:
        host_ran.set()

    try:
        async with Scorer(OFFLINE) as scorer, anyio.create_task_group() as tg:
            tg.start_soon(another_host_task)  # scheduled before the Monitor opens its sink
            async with Monitor(scorer, sink=fifo) as monitor:
                await host_ran.wait()
                steps = await run_host(monitor)
    finally:
        done.set()
        watchdog.join()
    assert not released.is_set(), "the event loop was blocked opening the FIFO"
    assert steps == STEPS and monitor.stats.sink_failed == STEPS
    assert "not a regular file" in (monitor.stats.sink_fault or "")


async def test_a_torn_last_row_costs_no_later_row(tmp_path: Path) -> None:
    sink = tmp_path / "scores.jsonl"
    sink.write_text('{"id": "whole", "score": 0.5}\n{"id": "torn", "sco')  # its writer was killed mid-row
    async with Scorer(OFFLINE) as scorer, Monitor(scorer, sink=sink) as monitor:
        for i in range(3):
            monitor.submit(**ANSWER, id=f"new{i}")
    lines = sink.read_text().splitlines()
    assert lines[:2] == ['{"id": "whole", "score": 0.5}', '{"id": "torn", "sco']
    assert sorted(json.loads(line)["id"] for line in lines[2:]) == ["new0", "new1", "new2"]
    assert monitor.stats.sink_failed == 0


async def test_an_unwritable_folder_is_a_counted_fault(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    async with Scorer(OFFLINE) as scorer, Monitor(scorer, sink=tmp_path / "missing" / "s.jsonl") as monitor:
        steps = await run_host(monitor)
    assert steps == STEPS and monitor.stats.sink_failed == STEPS
    assert "No such file" in (monitor.stats.sink_fault or "") and len(monitor_logs(caplog)) == 1
