"""What a run through a ``[cascade]`` spent, against what the full ensemble would have spent.

A signal a row skipped is priced at its mean cost over this run's rows where it ran; a signal that
ran on no row of the run cannot be priced and is named instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trustscore._types import TrustScore, Usage

__all__ = ["CascadeSpend"]


@dataclass
class CascadeSpend:
    rows: int = 0
    stopped: dict[str, int] = field(default_factory=dict)
    """Rows by the stage they stopped at, in the order first seen."""
    ran: dict[str, Usage] = field(default_factory=dict)
    """Per signal: its usage summed over the rows where it ran."""
    ran_rows: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)

    def add(self, result: TrustScore) -> None:
        stop = result.cascade
        if stop is None:
            return
        self.rows += 1
        self.stopped[stop.stage] = self.stopped.get(stop.stage, 0) + 1
        for name, signal in result.signals.items():
            self.ran[name] = self.ran.get(name, Usage()) + signal.usage
            self.ran_rows[name] = self.ran_rows.get(name, 0) + 1
        for name in stop.skipped:
            self.skipped[name] = self.skipped.get(name, 0) + 1

    def merge(self, other: CascadeSpend) -> None:
        """Add what ``other`` counted over other rows of the same run."""
        self.rows += other.rows
        for mine, theirs in (
            (self.stopped, other.stopped),
            (self.ran_rows, other.ran_rows),
            (self.skipped, other.skipped),
        ):
            for key, n in theirs.items():
                mine[key] = mine.get(key, 0) + n
        for name, usage in other.ran.items():
            self.ran[name] = self.ran.get(name, Usage()) + usage

    def full_ensemble(self, spent: Usage) -> tuple[float, float, list[str]]:
        """(requests, tokens) the full ensemble would have spent on these rows, and the skipped signals
        that ran on no row (left out of that figure: nothing to price them by)."""
        requests = float(spent.requests)
        tokens = float(spent.prompt_tokens + spent.completion_tokens)
        unpriced = []
        for name, n in self.skipped.items():
            ran = self.ran_rows.get(name, 0)
            if not ran:
                unpriced.append(name)
                continue
            usage = self.ran[name]
            requests += n * usage.requests / ran
            tokens += n * (usage.prompt_tokens + usage.completion_tokens) / ran
        return requests, tokens, unpriced

    def describe(self, spent: Usage) -> str:
        """One line for the run summary."""
        requests, tokens, unpriced = self.full_ensemble(spent)
        stops = ", ".join(f"{stage} {n}" for stage, n in self.stopped.items())
        used_tokens = spent.prompt_tokens + spent.completion_tokens
        saved = f" ({1 - spent.requests / requests:.1%} of the requests saved)" if requests else ""
        line = (
            f"cascade: rows stopped at {stops}; spent {spent.requests} requests and {used_tokens} tokens "
            f"where the full ensemble would have spent about {requests:.0f} requests and {tokens:.0f} "
            f"tokens{saved}, each skipped signal priced at its mean over the rows where it ran"
        )
        if unpriced:
            line += f"; {', '.join(unpriced)} ran on no row, so the full-ensemble figure leaves them out"
        return line
