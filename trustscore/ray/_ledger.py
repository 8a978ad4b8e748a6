"""How many times a batch or a sample was being scored when its actor process died.

An actor process that dies mid-call (SIGKILL, the kernel's OOM killer, a crash in native code)
cannot report anything, and Ray 2.60 re-runs its calls on the restarted actor without end (Ray
Data's default ``max_task_retries=-1``; no named ``map_batches`` parameter changes it). So the
actors keep their own count, in this small actor that outlives them: a call announces what it is
about to score (``begin``) and says when it is done (``end``). A key that is begun again without
having ended was being scored when its process died, so ``begin`` returns the number of such
deaths, and the actor decides from it what to do next (see ``actor.py``).

Only keys in flight or killed are held: a run's ledger holds about as many keys as calls in flight.
"""

from __future__ import annotations

__all__ = ["DeathLedger"]


class DeathLedger:
    """The counts; made a Ray actor (no CPU) by :func:`trustscore.ray._dataset.score_prepared`."""

    def __init__(self) -> None:
        self._open: dict[str, int] = {}

    def begin(self, key: str) -> int:
        """Record an attempt at ``key``; return how many earlier attempts never ended (deaths)."""
        deaths = self._open.get(key, 0)
        self._open[key] = deaths + 1
        return deaths

    def end(self, key: str) -> None:
        """The attempt at ``key`` returned: forget it."""
        self._open.pop(key, None)
