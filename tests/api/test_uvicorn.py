"""`trustscore api` for real: uvicorn on loopback in a subprocess, scored over a socket, stopped by
SIGTERM."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from trustscore.api._server import CUT_SHORT
from trustscore.cli import main

ROW = {
    "question": "Who wrote Dune?",
    "context": "Dune is a 1965 novel by Frank Herbert.",
    "response": "Frank Herbert.",
}


def test_the_service_scores_over_loopback_and_stops_on_sigterm(tmp_path: Path) -> None:
    config = tmp_path / "trustscore.toml"
    config.write_text('[signals.embedding]\nenabled = false\n[cache]\nmode = "off"\n')
    env = {**os.environ, "TRUSTSCORE_API_KEYS": "secret-key-1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "trustscore.cli", "api", "--config", str(config), "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    seen: list[str] = []
    try:
        for line in proc.stdout:  # uvicorn says where it listens once it does
            seen.append(line)
            if found := re.search(r"running on (http://127\.0\.0\.1:\d+)", line):
                base = found.group(1)
                break
        else:
            pytest.fail("the service did not start:\n" + "".join(seen))
        with httpx.Client(base_url=base, timeout=60) as c:
            assert c.get("/readyz").status_code in (200, 503)
            r = c.post("/v1/score", json=ROW, headers={"Authorization": "Bearer secret-key-1"})
            assert r.status_code == 200, r.text
            assert 0.0 <= r.json()["score"] <= 1.0
            assert c.post("/v1/score", json=ROW).status_code == 401
        proc.send_signal(signal.SIGTERM)
        rest, _ = proc.communicate(timeout=60)
        out = "".join(seen) + rest
        assert proc.returncode == 0, "a clean drain exits 0\n" + out
        assert "Application shutdown complete" in out
        assert "secret-key-1" not in out, "keys are never logged"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_listening_beyond_loopback_needs_a_key(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRUSTSCORE_API_KEYS", raising=False)
    assert main(["api", "--host", "0.0.0.0", "--port", "1"]) == 2
    assert "API keys" in capsys.readouterr().err


def _start(tmp_path: Path, *flags: str) -> tuple[subprocess.Popen[str], str, list[str]]:
    config = tmp_path / "trustscore.toml"
    config.write_text(
        '[signals.embedding]\nenabled = false\n[signals.claims]\nenabled = false\n[cache]\nmode = "off"\n'
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "trustscore.cli", "api", "--config", str(config), "--port", "0", *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    seen: list[str] = []
    for line in proc.stdout:
        seen.append(line)
        if found := re.search(r"running on http://(127\.0\.0\.1:\d+)", line):
            return proc, found.group(1), seen
    proc.kill()
    pytest.fail("the service did not start:\n" + "".join(seen))


def test_a_trickled_head_is_closed_and_sigterm_ends_the_drain_within_its_grace(tmp_path: Path) -> None:
    proc, address, seen = _start(
        tmp_path, "--header-timeout", "0.5", "--shutdown-grace", "1", "--max-body-bytes", str(16 * 2**20)
    )
    host, port = address.split(":")
    try:
        with socket.create_connection((host, int(port)), timeout=60) as loris:
            loris.sendall(b"GET /heal")
            assert loris.recv(100) == b"", "a head not whole within --header-timeout is closed"
        # A batch client that reads the start of its answer, then nothing (a small receive buffer):
        # the answer (many rows with a large carried field) cannot be written to its end.
        reader = socket.socket()
        reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        reader.connect((host, int(port)))
        pad = "x" * 40_000
        body = "\n".join(json.dumps({**ROW, "id": f"r{i}", "pad": pad}) for i in range(300)).encode()
        head = f"POST /v1/score/batch HTTP/1.1\r\nHost: t\r\nContent-Length: {len(body)}\r\n\r\n"
        reader.sendall(head.encode() + body)
        assert reader.recv(12).startswith(b"HTTP/1.1 200")
        proc.send_signal(signal.SIGTERM)
        rest, _ = proc.communicate(timeout=120)  # on a drain without bound: never, while the client stays
        reader.close()
        assert proc.returncode == CUT_SHORT, "".join(seen) + rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
