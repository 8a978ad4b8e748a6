"""A clock the test moves by hand, seen only by :mod:`trustscore.compute._deadline`: budgets run out
when the test says so, never by how fast a shared box happens to be."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from trustscore.compute import _deadline as deadline


class DeadlineClock:
    """Time moves only by :meth:`advance`, and by ``tick`` seconds at every reading: with a tick, work
    that checks its budget often enough runs out of it after a set number of checks, however fast
    the box is."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, tick: float = 0.0) -> None:
        self._now = 1000.0
        self._tick = tick
        self._lock = threading.Lock()
        monkeypatch.setattr(deadline, "time", SimpleNamespace(monotonic=self.monotonic))

    def monotonic(self) -> float:
        with self._lock:
            now = self._now
            self._now += self._tick
            return now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += seconds
