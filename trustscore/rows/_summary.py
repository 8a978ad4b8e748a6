"""What one ``trustscore score`` run did, built once for every way it runs: rows scored and
skipped, per-signal coverage, calibration and domain, what was degraded or abstained, cost; printed
as the run's summary, and the exit status it ends with."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from trustscore._errors import UnsafeCacheEntry
from trustscore._types import TrustScore, Usage
from trustscore.rows._cascade_spend import CascadeSpend
from trustscore.scoring._result import OUTSIDE_DOMAIN

__all__ = ["ScoreRunSummary", "exit_status", "not_run_lines"]

_MAX_REASONS = 1000
"""Distinct missing reasons a summary counts (a reason quoting each row's numbers must not grow it
without bound); later new ones are not counted."""


@dataclass
class _SignalTally:
    """One signal over a run: the rows it ran on (``n``), the sum of its values (``total``), and the rows
    it gave no value on for a failure (``missing``) or because the response declines to answer
    (``abstained``, counted apart)."""

    n: int = 0
    missing: int = 0
    abstained: int = 0
    total: float = 0.0


def not_run_lines(skipped_signals: dict[str, str]) -> list[str]:
    """A run summary's ``not run:`` line for each on-by-default signal skipped (its reason and install),
    said once per run by the local and the Ray ``trustscore score`` alike."""
    return [f"not run: {reason}" for reason in skipped_signals.values()]


@dataclass
class ScoreRunSummary:
    """What one run did: rows scored and skipped, per-signal coverage, cost."""

    output: str | Path
    """Where the rows went (the result file, or a sink's name)."""
    skipped: int = 0
    scored: int = 0
    incomplete: int = 0
    no_score: int = 0
    score_total: float = 0.0
    signals: dict[str, _SignalTally] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0
    fusions: dict[str, int] = field(default_factory=dict)
    """How many scores each fusion produced ("calibrator:local_multidomain@...", "default:logodds")."""
    kept_incomplete: int = 0
    """Incomplete rows of an earlier run left as they are (no --retry-incomplete)."""
    judges: list[str] = field(default_factory=list)
    skipped_signals: dict[str, str] = field(default_factory=dict)
    """On-by-default signals that did not run because their extra is not installed, and how to add each."""
    abstained: int = 0
    """Rows whose response declines to answer (``abstained``): counted apart from degraded ones."""
    judge_rows: int = 0
    """Scored rows on which at least one judge ran (a cascade may skip them all)."""
    judges_down_rows: int = 0
    """Scored rows on which every judge that ran failed."""
    judges_down_transient: bool = True
    """Whether every such failure was for a transport or credential reason (a rerun may fix it)."""
    judge_failure: str = ""
    """One such failure's reason, for the message."""
    unsafe_cache_rows: int = 0
    """Rows with a signal missing because a cache entry on its key was not written by trustscore."""

    degraded: int = 0
    """Rows on which a signal that ran gave no value."""
    missing_reasons: dict[str, int] = field(default_factory=dict)
    """How often each "signal: reason" left a signal without a value."""

    errors: int = 0
    """Input rows written as error rows (invalid, or refused by ``fusion.on_missing = "raise"``)."""
    first_error: str = ""
    """One error row's line (or id) and reason, for the message: the first written, or under ``--ray`` the
    first of the first batch to end."""

    def most_common_missing(self) -> str:
        """ "; most common reason, N time(s): ..." for a run where no signal gave a value, or ""."""
        if not self.missing_reasons:
            return ""
        common = _most_common(self.missing_reasons)
        return f"; most common reason, {common[1]} time(s): {common[0]}"

    def add_error(self, line: int | None, reason: str, *, row_id: str = "") -> None:
        """Count an error row: its input ``line``, or its id where it has none (scoring raised)."""
        self.errors += 1
        where = f"line {line}" if line is not None else f"id {row_id!r}"
        self.first_error = self.first_error or f"{where}: {reason}"

    def judges_down(self) -> bool:
        """Whether every judge failed on every scored row that ran one."""
        return self.judge_rows > 0 and self.judges_down_rows == self.judge_rows

    def judges_down_error(self) -> str | None:
        """The run's error line when every judge failed on every scored row that ran one (the run then
        exits 1), with what to do about it; else None."""
        if not self.judges_down():
            return None
        if self.judges_down_transient:
            fix = (
                f"for a transport or credential reason, e.g. {self.judge_failure}; the rows are kept as "
                "incomplete: start the server (or export the API key), then rerun with --retry-incomplete"
            )
        else:
            fix = (
                f"e.g. {self.judge_failure}; the scores stand on the other signals only (degraded): fix "
                "the judges' config"
            )
        return (
            f"trustscore: error: every judge failed on all {self.judge_rows} scored row(s) it ran on, {fix}"
        )

    calibrated: int = 0
    """Rows whose score claims to be a calibrated probability."""
    not_calibrated_reasons: dict[str, int] = field(default_factory=dict)
    """How often each reason not to claim calibrated came up (outside-the-domain reasons aside: they
    are counted by dimension below)."""
    domain_checked: int = 0
    outside_domain: int = 0
    outside_reasons: dict[str, int] = field(default_factory=dict)
    """How often each checked dimension put a row outside the calibration domain."""
    cascade: CascadeSpend = field(default_factory=CascadeSpend)
    """Where rows left the cascade, and its spend against the full ensemble's (rows of a [cascade])."""

    def add(self, result: TrustScore) -> None:
        ran = [j for j in self.judges if j in result.signals]
        if ran:
            self.judge_rows += 1
            if all(result.signals[j].missing for j in ran):
                self.judges_down_rows += 1
                self.judges_down_transient &= all(j in result.incomplete_signals for j in ran)
                self.judge_failure = self.judge_failure or f"{ran[0]}: {result.signals[ran[0]].error}"
        self.degraded += result.degraded
        self.abstained += result.abstained
        for name, why in result.missing.items():
            if result.signals[name].abstention:
                continue
            key = f"{name}: {why}"
            if key in self.missing_reasons or len(self.missing_reasons) < _MAX_REASONS:
                self.missing_reasons[key] = self.missing_reasons.get(key, 0) + 1
        self.scored += 1
        self.fusions[result.fusion] = self.fusions.get(result.fusion, 0) + 1
        self.incomplete += not result.complete
        # Anywhere in the reason: a signal of several calls says "2 parallel calls failed: UnsafeCacheEntry".
        self.unsafe_cache_rows += any(
            UnsafeCacheEntry.__name__ in (result.signals[n].error or "") for n in result.incomplete_signals
        )
        self.calibrated += result.calibrated
        reason = result.not_calibrated_reason
        if reason is not None and not reason.startswith(OUTSIDE_DOMAIN):
            self.not_calibrated_reasons[reason] = self.not_calibrated_reasons.get(reason, 0) + 1
        if result.domain is not None:
            self.domain_checked += 1
            if not result.domain.inside:
                self.outside_domain += 1
                for reason in result.domain.reasons:
                    what = reason.split(";")[0].rsplit(" is ", 1)[0].rsplit(" has ", 1)[0]
                    self.outside_reasons[what] = self.outside_reasons.get(what, 0) + 1
        if result.score is None:
            self.no_score += 1
        else:
            self.score_total += result.score
        self.usage = self.usage + result.usage
        self.cascade.add(result)
        for name, signal in result.signals.items():
            tally = self.signals.setdefault(name, _SignalTally())
            tally.n += 1
            if signal.abstention:
                tally.abstained += 1
            elif signal.value is None:
                tally.missing += 1
            else:
                tally.total += signal.value

    def status(self, *, fresh: bool, output: object, hints: str = "") -> int:
        """The run's exit status, with its one stderr line: 1 when every judge failed on every scored
        row that ran one (:meth:`judges_down_error`), else :func:`exit_status`'s. ``fresh``: nothing of
        an earlier run was in the output; ``hints``: appended to the message (did-you-mean fields)."""
        if (judges_down := self.judges_down_error()) is not None:
            print(judges_down + hints, file=sys.stderr)
            return 1
        return exit_status(
            fresh=fresh,
            scored=self.scored,
            no_score=self.no_score,
            errors=self.errors,
            first_error=self.first_error,
            output=output,
            no_value=self.most_common_missing(),
            hints=hints,
        )

    def merge(self, other: ScoreRunSummary) -> None:
        """Add the rows ``other`` counted (another worker's share of the same run: ``score --ray``'s
        actors each count their batches). The run's own facts (output, judges, skipped rows, seconds)
        stay this summary's."""
        for name in _SUMMED:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in _COUNTED:
            mine: dict[str, int] = getattr(self, name)
            for key, n in getattr(other, name).items():
                if name != "missing_reasons" or key in mine or len(mine) < _MAX_REASONS:
                    mine[key] = mine.get(key, 0) + n
        for name, theirs in other.signals.items():
            tally = self.signals.setdefault(name, _SignalTally())
            tally.n += theirs.n
            tally.missing += theirs.missing
            tally.abstained += theirs.abstained
            tally.total += theirs.total
        self.skipped_signals = {**other.skipped_signals, **self.skipped_signals}
        self.judges_down_transient &= other.judges_down_transient
        self.judge_failure = self.judge_failure or other.judge_failure
        self.first_error = self.first_error or other.first_error
        self.cascade.merge(other.cascade)

    def print(self, file: IO[str] | None = None) -> None:
        """The run's summary: the per-signal table, then one plain line per fact (never wrapped, so a
        redirected log keeps one line per fact)."""
        from rich.console import Console

        console = Console(file=file)
        console.print(f"trustscore score -> {self.output}", soft_wrap=True, highlight=False)
        console.print(self._table())
        for line in [*self._calibration_lines(), *self._coverage_lines(), *self._rerun_lines()]:
            console.print(line, soft_wrap=True, highlight=False)
        u = self.usage
        errors = f", errors {self.errors}" if self.errors else ""
        console.print(
            f"scored {self.scored}, skipped {self.skipped} already done, "
            f"incomplete {self.incomplete}{errors}; "
            f"requests {u.requests}, tokens {u.prompt_tokens} prompt + {u.completion_tokens} completion, "
            f"cache hits {u.cache_hits}; {self.seconds:.1f}s",
            soft_wrap=True,
        )
        if self.cascade.rows:
            console.print(self.cascade.describe(self.usage), soft_wrap=True, highlight=False)

    def _table(self) -> Any:
        """Per signal: rows, rows missing for a failure, rows it abstained on (a column only when the
        run had abstentions; the fused row's is the ``abstained:`` line's count), mean value."""
        from rich import box
        from rich.table import Table

        abstentions = self.abstained > 0 or any(t.abstained for t in self.signals.values())
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
        table.add_column("signal")
        table.add_column("n", justify="right")
        table.add_column("missing", justify="right")
        if abstentions:
            table.add_column("abstained", justify="right")
        table.add_column("mean value", justify="right")
        for name, t in self.signals.items():
            present = t.n - t.missing - t.abstained
            mean = f"{t.total / present:.3f}" if present else "-"
            abstained = [str(t.abstained)] if abstentions else []
            table.add_row(name, str(t.n), str(t.missing), *abstained, mean)
        scored_with_value = self.scored - self.no_score
        mean = f"{self.score_total / scored_with_value:.3f}" if scored_with_value else "-"
        table.add_section()
        abstained = [str(self.abstained)] if abstentions else []
        table.add_row("score (fused)", str(self.scored), str(self.no_score), *abstained, mean)
        return table

    def _calibration_lines(self) -> list[str]:
        from rich.markup import escape

        lines = [f"fusion: {fusion} for {n} row(s)" for fusion, n in self.fusions.items()]
        lines.append(
            f"calibrated P(trustworthy): {self.calibrated} of {self.scored - self.no_score} scored row(s)"
        )
        for reason, n in _by_count(self.not_calibrated_reasons):
            lines.append(f"not calibrated, {n} row(s): {escape(reason)}")
        if self.domain_checked:
            share = self.outside_domain / self.domain_checked
            counts = _by_count(self.outside_reasons)
            why = ", ".join(f"{k} in {v} row(s)" for k, v in counts)
            beyond = f"; unlike the calibration data: {why} (see each row's domain.reasons)"
            lines.append(
                f"outside the calibration domain: {self.outside_domain} of {self.domain_checked} row(s) "
                f"({share:.1%}; scored but not claimed calibrated)" + (beyond if why else "")
            )
        return lines

    def _coverage_lines(self) -> list[str]:
        from rich.markup import escape

        lines = []
        if self.degraded:
            common = _most_common(self.missing_reasons)
            lines.append(
                f"degraded: {self.degraded} of {self.scored} row(s) scored without every signal "
                f"(each row's degraded and signals say which); most common missing reason, "
                f"{common[1]} time(s): {escape(common[0])}"
            )
        if self.abstained:
            lines.append(
                f"abstained: {self.abstained} of {self.scored} row(s) decline to answer (each row's "
                "abstained; not degraded: the signals that check words have nothing to check there)"
            )
        lines.extend(escape(line) for line in not_run_lines(self.skipped_signals))
        return lines

    def _rerun_lines(self) -> list[str]:
        from rich.markup import escape

        lines = []
        if self.kept_incomplete:
            lines.append(
                f"kept {self.kept_incomplete} incomplete row(s) of an earlier run; "
                "rerun with --retry-incomplete to score them again"
            )
        if self.unsafe_cache_rows:
            lines.append(
                f"cache: {self.unsafe_cache_rows} row(s) hit a cache entry trustscore did not write "
                "(UnsafeCacheEntry; the row is kept incomplete); rerun with --retry-incomplete to replace "
                "those entries"
            )
        if self.errors:
            lines.append(
                f"error rows: {self.errors} input row(s) could not be scored (error says why), "
                f"e.g. {escape(self.first_error)}"
            )
        return lines


def _by_count(counts: dict[str, int]) -> list[tuple[str, int]]:
    """Most frequent first, ties in the keys' order: the same lines whatever order the rows came in (a
    ``--ray`` run's batches end in any order)."""
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def _most_common(counts: dict[str, int]) -> tuple[str, int]:
    return _by_count(counts)[0]


_SUMMED = (
    "scored",
    "incomplete",
    "no_score",
    "score_total",
    "usage",
    "abstained",
    "judge_rows",
    "judges_down_rows",
    "unsafe_cache_rows",
    "degraded",
    "errors",
    "calibrated",
    "domain_checked",
    "outside_domain",
)
"""The :class:`ScoreRunSummary` fields :meth:`~ScoreRunSummary.merge` adds up."""
_COUNTED = ("fusions", "missing_reasons", "not_calibrated_reasons", "outside_reasons")
"""Its counts by key, merged key by key."""


def exit_status(
    *,
    fresh: bool,
    scored: int,
    no_score: int,
    errors: int,
    first_error: str,
    output: object,
    no_value: str,
    hints: str = "",
) -> int:
    """A run's exit status, with its one stderr line: 2 when a fresh run scored no row (every row
    invalid, or no signal gave a value on any: ``no_value`` says why), 3 when some rows are error rows
    in ``output``, else 0. The local and the Ray run of ``trustscore score`` share it."""
    if fresh and scored + errors > 0 and scored == no_score:
        if not scored:
            why = f"all {errors} row(s) are invalid, e.g. {first_error}"
        else:
            why = f"no signal gave a value on any of {scored} row(s){no_value}"
            if errors:
                why += f"; {errors} more row(s) are invalid, e.g. {first_error}"
        print(f"trustscore: error: no row could be scored: {why}{hints}", file=sys.stderr)
        return 2
    if errors:
        print(
            f"trustscore: {errors} row(s) could not be scored and are error rows in {output} "
            f"(error says why), e.g. {first_error}",
            file=sys.stderr,
        )
        return 3
    return 0
