"""One model server as a child process group: launch with logs to a file, wait for /health, stop.

Shared by ``trustscore serve`` and the test kit's real-engine fixture. The server runs in its own
session (process group) so stopping it also stops the engine worker processes vLLM forks; SIGTERM
first, SIGKILL for whatever is left after a grace period.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from trustscore._errors import ServerExited

__all__ = ["ServerProcess", "free_port", "port_is_free", "vllm_usage_opt_out"]

GRACE_S = 20.0


def vllm_usage_opt_out() -> dict[str, str]:
    """vLLM's own opt-out of reporting each server's hardware and settings to its makers (and of its
    file under ~/.config/vllm), for a server's environment; a value the environment sets is kept."""
    return {"VLLM_NO_USAGE_STATS": os.environ.get("VLLM_NO_USAGE_STATS", "1")}


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
        return True


def _log_tail(path: Path, lines: int = 25) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.splitlines()[-lines:])


@dataclass
class ServerProcess:
    popen: subprocess.Popen[bytes]
    port: int
    log: Path
    host: str = "127.0.0.1"
    _log_file: IO[bytes] | None = None

    @classmethod
    def launch(
        cls,
        argv: list[str],
        *,
        port: int,
        log: Path,
        env: dict[str, str] | None = None,
        host: str = "127.0.0.1",
    ) -> ServerProcess:
        log.parent.mkdir(parents=True, exist_ok=True)
        out = log.open("ab")
        popen = subprocess.Popen(
            argv,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # its own process group: stop() signals vLLM's workers too
        )
        return cls(popen, port, log, host, out)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def wait_healthy(self, timeout_s: float) -> None:
        """Poll GET /health until 200; ServerExited (with the log tail) if it dies or times out."""
        import httpx

        url = f"http://{self.host}:{self.port}/health"
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.popen.poll() is not None:
                raise ServerExited(
                    f"server exited with code {self.popen.returncode} before it was healthy; "
                    f"log {self.log}:\n{_log_tail(self.log)}"
                )
            try:
                if httpx.get(url, timeout=5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(1.0)
        raise ServerExited(
            f"server not healthy after {timeout_s:.0f}s; log {self.log}:\n{_log_tail(self.log)}"
        )

    def alive(self) -> bool:
        return self.popen.poll() is None

    def stop(self, grace_s: float = GRACE_S) -> None:
        """SIGTERM the process group, wait, then SIGKILL the group. Safe to call twice."""
        try:
            pgid = os.getpgid(self.popen.pid)
        except ProcessLookupError:
            pgid = None
        if pgid is not None:
            _signal_group(pgid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(timeout=grace_s)
            # Engine workers can outlive the API server process: kill what is left of the group.
            _signal_group(pgid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL cannot be ignored
            self.popen.wait(timeout=grace_s)
        if pgid is not None:
            _wait_group_gone(pgid, grace_s)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _wait_group_gone(pgid: int, timeout_s: float) -> None:
    """Wait (bounded) until no live member of the group is left: a SIGKILLed worker dies a moment
    after the signal, and callers check right after stop() that nothing is left."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and _group_has_live_member(pgid):
        time.sleep(0.02)


def _group_has_live_member(pgid: int) -> bool:
    """Whether a process of the group is still running (zombies, dead but not yet reaped, do not count)."""
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # After the command name: state, ppid, pgrp.
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False
