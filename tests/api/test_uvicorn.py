"""`trustscore api` for real: uvicorn on loopback in a subprocess, scored over a socket, stopped by
SIGTERM."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

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
            r = c.post("/v1/score", json=ROW, headers={"Authorization": "Bearer secret-key-1"})
            assert r.status_code == 200, r.text
            assert 0.0 <= r.json()["score"] <= 1.0
            assert c.post("/v1/score", json=ROW).status_code == 401
        proc.send_signal(signal.SIGTERM)
        rest, _ = proc.communicate(timeout=60)
        out = "".join(seen) + rest
        # uvicorn re-raises the signal it caught once it has shut down cleanly
        assert proc.returncode in (0, -signal.SIGTERM), out
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
