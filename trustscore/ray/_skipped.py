"""The on-by-default signals a run's actors skipped (their extra is not installed on the actor's
node), gathered in one small actor: ``trustscore score --ray`` says each once, in its summary's
``not run:`` line as the local command does, rather than every actor process warning on its own."""

from __future__ import annotations

__all__ = ["SkippedSignals"]


class SkippedSignals:
    """The reasons by signal name; made a Ray actor (no CPU) by ``trustscore score --ray``."""

    def __init__(self) -> None:
        self._reasons: dict[str, str] = {}

    def note(self, reasons: dict[str, str]) -> None:
        """Add what one actor's Scorer skipped (``Scorer.skipped``); a name already noted keeps its reason."""
        for name, reason in reasons.items():
            self._reasons.setdefault(name, reason)

    def reasons(self) -> dict[str, str]:
        return dict(self._reasons)
