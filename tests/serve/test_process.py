"""A server child process: health wait, log tail on early exit, and the whole process group stopped."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from trustscore._errors import ServerExited
from trustscore.serve._process import ServerProcess, free_port, port_is_free

# A stand-in for vLLM: forks a worker (as vLLM forks its engine core), then answers GET /health.
SERVER = textwrap.dedent(
    """
    import http.server, os, sys, time
    port, pidfile = int(sys.argv[1]), sys.argv[2]
    worker = os.fork()
    if worker == 0:
        while True:
            time.sleep(1)
    open(pidfile, "w").write(str(worker))
    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200 if self.path == "/health" else 404)
            self.end_headers()
        def log_message(self, *a):
            pass
    print("serving", flush=True)
    http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
    """
)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by its parent) counts as gone
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def test_waits_for_health_and_stops_the_whole_group(tmp_path: Path) -> None:
    port, pidfile, log = free_port(), tmp_path / "worker.pid", tmp_path / "server.log"
    proc = ServerProcess.launch([sys.executable, "-c", SERVER, str(port), str(pidfile)], port=port, log=log)
    try:
        proc.wait_healthy(timeout_s=60)
        worker = int(pidfile.read_text())
        assert proc.alive() and alive(worker) and not port_is_free(port)
    finally:
        proc.stop(grace_s=5)
    assert not proc.alive() and not alive(worker) and port_is_free(port)
    assert "serving" in log.read_text()
    proc.stop(grace_s=1)  # a second stop is harmless


def test_a_server_that_dies_before_health_raises_with_its_log_tail(tmp_path: Path) -> None:
    code = "import sys; print('engine failed: No common block size for 16'); sys.exit(3)"
    proc = ServerProcess.launch([sys.executable, "-c", code], port=free_port(), log=tmp_path / "s.log")
    with pytest.raises(ServerExited, match=r"exited with code 3(.|\n)*No common block size"):
        proc.wait_healthy(timeout_s=60)
    proc.stop(grace_s=1)


def test_a_server_that_never_gets_healthy_times_out(tmp_path: Path) -> None:
    proc = ServerProcess.launch(
        [sys.executable, "-c", "import time; time.sleep(60)"], port=free_port(), log=tmp_path / "s.log"
    )
    try:
        with pytest.raises(ServerExited, match="not healthy after 2s"):
            proc.wait_healthy(timeout_s=2)
    finally:
        proc.stop(grace_s=5)
    assert not proc.alive()
