"""A monotonic clock a test moves forward itself, so waiting out an interval takes no wall time."""

from __future__ import annotations

import time
from types import ModuleType

import pytest


class Clock:
    """Stands in for the ``time`` module of one trustscore module: ``monotonic()`` is the real clock
    plus whatever the test has advanced it by."""

    def __init__(self) -> None:
        self.offset = 0.0

    def monotonic(self) -> float:
        return time.monotonic() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds

    def install(self, module: ModuleType, monkeypatch: pytest.MonkeyPatch) -> Clock:
        monkeypatch.setattr(module, "time", self)
        return self
