"""Lets a test wait until callers have queued on a lane, instead of sleeping and hoping they have."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import pytest

from trustscore.compute._lane import Lane


class LaneSubmissions:
    """Counts the requests submitted to any :class:`~trustscore.compute._lane.Lane` while the test runs."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        self._changed = threading.Condition()
        submit = Lane.submit

        def counted(lane: Lane[Any], request: Any) -> None:
            submit(lane, request)
            with self._changed:
                self.count += 1
                self._changed.notify_all()

        monkeypatch.setattr(Lane, "submit", counted)

    def wait_for(self, count: int, timeout_s: float = 30.0) -> None:
        """Block until ``count`` requests in all have been submitted."""
        with self._changed:
            reached = self._changed.wait_for(lambda: self.count >= count, timeout_s)
        assert reached, f"{self.count} of {count} lane requests submitted"

    async def reach(self, count: int) -> None:
        await anyio.to_thread.run_sync(self.wait_for, count)
