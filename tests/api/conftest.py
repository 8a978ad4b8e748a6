from __future__ import annotations

import pytest

pytest.importorskip("starlette")
pytest.importorskip("prometheus_client")

from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from trustscore import Sample, Signal

HANG_GUARD_S = 60  # fails a test that hangs; no test expects to come near it


async def wait_until(condition: Callable[[], bool | Awaitable[bool]]) -> None:
    """Return once ``condition()`` holds. Polls with a short real pause, not ``sleep(0)``: a loop that
    only yields keeps the GIL busy and starves the worker threads that score the rows it waits for."""
    with anyio.fail_after(HANG_GUARD_S):
        while True:
            held = condition()
            if not isinstance(held, bool):
                held = await held
            if held:
                return
            await anyio.sleep(0.001)


class GatedSignal:
    """A local signal that waits for ``gate`` (counting who waits), then answers ``value``."""

    name = "gated"
    version = "gated@1"

    def __init__(self, value: float = 0.9) -> None:
        self.value = value
        self.gate = anyio.Event()
        self.waiting = 0
        self.started = 0
        self.arrived = anyio.Event()
        self.wanted = 1

    async def run(self, sample: Sample) -> Signal:
        self.started += 1
        self.waiting += 1
        if self.waiting >= self.wanted:
            self.arrived.set()
        try:
            await self.gate.wait()
        finally:
            self.waiting -= 1
        return Signal(name=self.name, value=self.value)

    def expect(self, n: int) -> anyio.Event:
        """An event set once ``n`` samples wait at the gate."""
        self.wanted = n
        self.arrived = anyio.Event()
        if self.waiting >= n:
            self.arrived.set()
        return self.arrived


class Wire:
    """One request to an ASGI app with the client's side scripted: its body arrives at once; it hangs
    up when ``hang_up`` is set; with ``reads=False`` it reads nothing of the answer's body (each such
    send blocks until cancelled)."""

    def __init__(self, body: bytes, *, reads: bool = True) -> None:
        self.body: bytes | None = body
        self.reads = reads
        self.hang_up = anyio.Event()
        self.stalled = anyio.Event()
        self.messages: list[dict[str, Any]] = []

    async def receive(self) -> dict[str, Any]:
        if self.body is not None:
            body, self.body = self.body, None
            return {"type": "http.request", "body": body, "more_body": False}
        await self.hang_up.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body" and not self.reads:
            self.stalled.set()
            await anyio.sleep_forever()
        self.messages.append(message)

    async def call(self, app: Any, path: str, headers: list[tuple[bytes, bytes]] | None = None) -> None:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": headers or [],
            "client": ("127.0.0.1", 1),
            "server": ("api.test", 80),
        }
        await app(scope, self.receive, self.send)

    @property
    def finished(self) -> bool:
        """Whether the answer was sent to its end."""
        return any(m["type"] == "http.response.body" and not m.get("more_body") for m in self.messages)
