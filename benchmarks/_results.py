"""What a benchmark does with its result: print its report, keep the JSON for the docs' tables."""

from __future__ import annotations

import json
import multiprocessing
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def report_and_save(result: dict[str, Any], out: Path, print_report: Callable[[dict[str, Any]], None]) -> int:
    """Print the report, write ``result`` to ``out`` as JSON; the exit status (0)."""
    print_report(result)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)
    return 0


def save_json(result: Any, path: Path | None) -> int:
    """Write ``result`` to ``path`` as JSON when a path is given; the exit status (0)."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


class ChildProcess:
    """A fake server run in a spawned child process, driven over a pipe: ``target(conn, *args)`` first
    sends what the parent needs to reach it (its URL), then answers commands until "stop"."""

    def __init__(self, target: Callable[..., None], *args: Any) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=target, args=(child, *args))
        self._proc.start()
        self.hello: Any = self._conn.recv()

    def ask(self, command: str) -> Any:
        self._conn.send(command)
        return self._conn.recv()

    def stop(self) -> None:
        self.ask("stop")
        self._proc.join(10)
