from __future__ import annotations

import pytest

pytest.importorskip("starlette")
pytest.importorskip("prometheus_client")

import anyio

from trustscore._types import Sample, Signal


class GatedSignal:
    """A local signal that waits for ``gate`` (counting who waits), then answers ``value``."""

    name = "gated"
    version = "gated@1"

    def __init__(self, value: float = 0.9) -> None:
        self.value = value
        self.gate = anyio.Event()
        self.waiting = 0
        self.arrived = anyio.Event()
        self.wanted = 1

    async def run(self, sample: Sample) -> Signal:
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
