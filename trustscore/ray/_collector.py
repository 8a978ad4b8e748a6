"""What a ``score --ray`` run's actors report to its driver, gathered in one small actor: the
on-by-default signals they skipped (their extra is not installed on the actor's node), said once in
the summary's ``not run:`` line as the local command does rather than by every actor process; and
each batch's share of the run summary (rows, per-signal coverage, calibration, cost), added up as the
batches end, so the driver prints the local command's summary and exit status without reading the
rows back."""

from __future__ import annotations

from trustscore.rows import ScoreRunSummary

__all__ = ["RunCollector"]


class RunCollector:
    """Made a Ray actor (no CPU) by ``trustscore score --ray``; its methods run one at a time."""

    def __init__(self) -> None:
        self._reasons: dict[str, str] = {}
        self._total = ScoreRunSummary(output="")
        self._batches: set[str] = set()

    def note(self, reasons: dict[str, str]) -> None:
        """Add what one actor's Scorer skipped (``Scorer.skipped``); a name already noted keeps its reason."""
        for name, reason in reasons.items():
            self._reasons.setdefault(name, reason)

    def reasons(self) -> dict[str, str]:
        return dict(self._reasons)

    def add(self, batch: str, summary: ScoreRunSummary) -> None:
        """One batch's share of the summary, by the batch's key, added to the run's total. A batch Ray runs
        again (its actor died after reporting it) has the same rows: its second report is not counted."""
        if batch in self._batches:
            return
        self._batches.add(batch)
        self._total.merge(summary)

    def summary(self, into: ScoreRunSummary) -> ScoreRunSummary:
        """``into`` (the driver's run-level facts) with every batch's share merged in."""
        into.merge(self._total)
        into.skipped_signals = {**into.skipped_signals, **self._reasons}
        return into
