"""What a ``score --ray`` run's actors report to its driver, gathered in one small actor: the
on-by-default signals they skipped (their extra is not installed on the actor's node), said once in
the summary's ``not run:`` line as the local command does rather than by every actor process; and
each batch's share of the run summary (rows, per-signal coverage, calibration, cost), so the driver
prints the local command's summary without reading the rows back."""

from __future__ import annotations

from trustscore.rows import ScoreRunSummary

__all__ = ["RunCollector"]


class RunCollector:
    """Made a Ray actor (no CPU) by ``trustscore score --ray``; its methods run one at a time."""

    def __init__(self) -> None:
        self._reasons: dict[str, str] = {}
        self._batches: dict[str, ScoreRunSummary] = {}

    def note(self, reasons: dict[str, str]) -> None:
        """Add what one actor's Scorer skipped (``Scorer.skipped``); a name already noted keeps its reason."""
        for name, reason in reasons.items():
            self._reasons.setdefault(name, reason)

    def reasons(self) -> dict[str, str]:
        return dict(self._reasons)

    def add(self, batch: str, summary: ScoreRunSummary) -> None:
        """One batch's share of the summary, by the batch's key: a batch Ray runs again (its actor died
        after reporting it) replaces its earlier share instead of counting its rows twice."""
        self._batches[batch] = summary

    def summary(self, into: ScoreRunSummary) -> ScoreRunSummary:
        """``into`` (the driver's run-level facts) with every batch's share merged in."""
        for share in self._batches.values():
            into.merge(share)
        into.skipped_signals = {**into.skipped_signals, **self._reasons}
        return into
