"""Rich tables of metric reports, shared by ``trustscore eval`` and ``trustscore calibrate``."""

from __future__ import annotations

from collections.abc import Mapping

from rich.table import Table

from trustscore.fusion.metrics import GroupedReport, MetricReport
from trustscore.fusion.model import LabelPolarity

__all__ = ["macro_table", "metrics_table", "polarity_note"]


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


def metrics_table(title: str, reports: Mapping[str, MetricReport]) -> Table:
    """One row per scored source (a signal or the fused score)."""
    first = next(iter(reports.values()), None)
    bins = first.ece_bins if first else 10
    thr = first.f1_at_threshold.threshold if first else 0.5
    table = Table(title=title, title_justify="left")
    for col in (
        "source",
        "n",
        "pos",
        "AUROC",
        "PR-AUC",
        f"ECE w/{bins}",
        f"ECE m/{bins}",
        "Brier",
        "LogLoss",
        f"F1@{thr:g}",
        "P@thr",
        "R@thr",
        "best F1 (thr)",
    ):
        table.add_column(col, justify="left" if col == "source" else "right")
    for name, r in reports.items():
        auroc = _f(r.auroc)
        if r.auroc_ci is not None:
            auroc += f" [{r.auroc_ci.low:.3f}, {r.auroc_ci.high:.3f}]"
        best = "n/a" if r.f1_best is None else f"{r.f1_best.f1:.3f} ({r.f1_best.threshold:.3f})"
        table.add_row(
            name,
            str(r.n),
            str(r.positives),
            auroc,
            _f(r.pr_auc),
            _f(r.ece_width),
            _f(r.ece_mass),
            _f(r.brier),
            _f(r.log_loss),
            _f(r.f1_at_threshold.f1),
            _f(r.f1_at_threshold.precision),
            _f(r.f1_at_threshold.recall),
            best,
        )
    return table


def macro_table(title: str, reports: Mapping[str, GroupedReport]) -> Table:
    """Unweighted mean over groups, one row per scored source."""
    fields = ("auroc", "pr_auc", "ece_width", "ece_mass", "brier", "log_loss", "f1", "best_f1")
    table = Table(title=title, title_justify="left")
    table.add_column("source")
    table.add_column("groups", justify="right")
    for f in fields:
        table.add_column(f, justify="right")
    for name, g in reports.items():
        table.add_row(name, str(len(g.groups)), *(_f(g.macro[f]) for f in fields))
    return table
