"""Rich tables of metric reports, shared by ``trustscore eval`` and ``trustscore calibrate``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich import box
from rich.console import Group
from rich.table import Table

from trustscore.fitting._claims import ECE_BINS, ECE_LIMIT, MIN_CLAIMS, ClaimCheck
from trustscore.fusion._model import LabelPolarity
from trustscore.stats._metrics import GroupedReport, MetricReport

__all__ = ["claims_table", "macro_table", "metrics_table", "polarity_note"]


def _f(v: float | None, digits: int = 3) -> str:
    return "n/a" if v is None else f"{v:.{digits}f}"


def polarity_note(label: str, label_means: LabelPolarity) -> str:
    if label_means == "untrustworthy":
        return (
            f"Positive class: {label} = 1 (NOT trustworthy). Scores are P(trustworthy), so each is "
            f"evaluated as 1 - score = P({label}). AUROC and calibration errors do not depend on the flip; "
            f"PR-AUC, precision, recall and F1 measure how well {label} rows are caught."
        )
    return (
        f"Positive class: {label} = 1 (trustworthy). Scores are P(trustworthy) and are evaluated as they are."
    )


def _table(title: str, columns: Sequence[str]) -> Table:
    """A table that stays readable in 80 columns and in a redirected file: no vertical rules, numbers
    never wrap or get cut, long source names fold onto a second line."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for col in columns:
        if col == "source":
            table.add_column(col, overflow="fold", max_width=18)
        else:
            table.add_column(col, justify="right", no_wrap=True)
    return table


def metrics_table(title: str, reports: Mapping[str, MetricReport]) -> Group:
    """One row per scored source (a signal or the fused score), in two tables of at most 80 columns:
    ranking (AUROC with its 95% CI, PR-AUC, best F1), then calibration and the fixed threshold."""
    first = next(iter(reports.values()), None)
    bins = first.ece_bins if first else 10
    thr = first.f1_at_threshold.threshold if first else 0.5
    ranking = _table(title, ("source", "n", "pos", "AUROC", "95% CI", "PR-AUC", "best F1", "at thr"))
    calibration = _table(
        f"{title}: calibration, threshold {thr:g}",
        ("source", f"ECE w/{bins}", f"ECE m/{bins}", "Brier", "LogLoss", f"F1@{thr:g}", "P@thr", "R@thr"),
    )
    for name, r in reports.items():
        ci = "n/a" if r.auroc_ci is None else f"{r.auroc_ci.low:.3f}-{r.auroc_ci.high:.3f}"
        best = r.f1_best
        best_f1, best_thr = ("n/a", "n/a") if best is None else (_f(best.f1), _f(best.threshold))
        ranking.add_row(name, str(r.n), str(r.positives), _f(r.auroc), ci, _f(r.pr_auc), best_f1, best_thr)
        calibration.add_row(
            name,
            _f(r.ece_width),
            _f(r.ece_mass),
            _f(r.brier),
            _f(r.log_loss),
            _f(r.f1_at_threshold.f1),
            _f(r.f1_at_threshold.precision),
            _f(r.f1_at_threshold.recall),
        )
    return Group(ranking, calibration)


def macro_table(title: str, reports: Mapping[str, GroupedReport]) -> Group:
    """Unweighted mean over groups, one row per scored source (two tables of at most 80 columns)."""
    halves = (("auroc", "pr_auc", "f1", "best_f1"), ("ece_width", "ece_mass", "brier", "log_loss"))
    tables = []
    for i, fields in enumerate(halves):
        table = _table(title if i == 0 else f"{title} (calibration)", ("source", "groups", *fields))
        for name, g in reports.items():
            table.add_row(name, str(len(g.groups)), *(_f(g.macro[f]) for f in fields))
        tables.append(table)
    return Group(*tables)


def claims_table(checks: Mapping[str, ClaimCheck]) -> Table:
    """Per group (or "all"): how many rows claim calibrated, and the claim's verdict there."""
    table = _table(
        f"calibrated claims (ECE: among the claiming rows, m/{ECE_BINS}; floor: 90th percentile of a "
        f"perfect score's ECE at that n; holds: ECE <= {ECE_LIMIT:g} or <= floor; too few rows: under "
        f"{MIN_CLAIMS} claim)",
        ("source", "n", "claimed", "share", "ECE", "floor", "ECE all", "AUROC", "verdict"),
    )
    for name, c in checks.items():
        table.add_row(
            name,
            str(c.n),
            str(c.claimed),
            f"{c.claimed_share:.1%}",
            _f(c.ece_claimed),
            _f(c.floor_p90),
            _f(c.ece_all),
            _f(c.auroc),
            c.verdict,
        )
    return table
