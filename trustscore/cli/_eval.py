"""``trustscore eval SCORED.jsonl --label hallucinated [--by task] [--plots DIR]``.

Reads the output of ``trustscore score`` (never calls an LLM) and prints, for the fused score and
for every signal, AUROC, PR-AUC, ECE, Brier, log loss and F1 pooled, per group and macro-averaged;
first, how many rows claim a calibrated score and whether that claim holds, per value of ``--by``
(a task or data set column: the promise is per kind of data, never pooled).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from trustscore.cli._help_text import plain
from trustscore.core._flag_values import probability
from trustscore.fitting._evaluation import FUSED, evaluate_scored
from trustscore.fitting._report import claims_table, macro_table, metrics_table, polarity_note
from trustscore.fusion._domain import outside_count
from trustscore.rows._scored import read_scored

__all__ = ["add_parser", "run"]


def add_label_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--label", default="hallucinated", help="0/1 label column (default: hallucinated)")
    p.add_argument(
        "--label-means",
        choices=("untrustworthy", "trustworthy"),
        default="untrustworthy",
        help="what label 1 means (default: untrustworthy, as for 'hallucinated'); "
        "use 'trustworthy' for a column like 'correct'",
    )


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "eval",
        help="metrics of each signal and of the fused score on a scored JSONL",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("scored", type=Path, help="JSONL written by `trustscore score`")
    add_label_arguments(p)
    p.add_argument(
        "--by",
        default=None,
        help="also report per value of this column (e.g. task or dataset) and macro; the calibrated "
        "claim is checked per value",
    )
    p.add_argument(
        "--plots", type=Path, default=None, metavar="DIR", help="write reliability.png and roc.png here"
    )
    p.add_argument("--bins", type=int, default=10, help="ECE / reliability bins (default 10)")
    p.add_argument(
        "--threshold", type=probability, default=0.5, help="F1 threshold on P(label = 1) (default 0.5)"
    )
    p.add_argument("--ci", action="store_true", help="bootstrap 95%% intervals for AUROC (1000 resamples)")
    p.add_argument(
        "--cluster",
        default="source_id",
        help="with --ci, resample whole values of this column (default source_id; 'none' = rows)",
    )
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    out = Console()
    err = Console(stderr=True)
    try:
        rows = read_scored(args.scored)
        result = evaluate_scored(
            rows,
            label=args.label,
            label_means=args.label_means,
            by=args.by,
            n_bins=args.bins,
            threshold=args.threshold,
            ci=args.ci,
            cluster=None if str(args.cluster).lower() == "none" else args.cluster,
        )
    except ValueError as e:
        err.print(f"[red]error:[/red] {escape(str(e))}", markup=True, highlight=False, soft_wrap=True)
        return 2
    out.print(f"{args.scored}: {result.rows} rows", highlight=False)
    out.print(polarity_note(args.label, args.label_means), highlight=False)
    out.print(f"'{FUSED}' is each row's score ({result.fused_description}).", highlight=False)
    checked, outside = outside_count([r.fields for r in rows])
    if checked:
        out.print(
            f"outside the calibration domain: {outside} of {checked} rows ({outside / checked:.1%}); "
            "their scores are not claimed calibrated",
            highlight=False,
        )
    if result.claims is not None:
        c = result.claims
        out.print(
            f"claimed calibrated: {c.claimed} of {c.n} scored rows ({c.claimed_share:.1%})", highlight=False
        )
        out.print(claims_table({**result.claims_by, "all rows": c}))
    names = list(result.reports)
    out.print(metrics_table("pooled", {n: result.reports[n].pooled for n in names}))
    if args.by:
        groups = sorted({g for r in result.reports.values() for g in r.groups})
        for g in groups:
            per = {n: result.reports[n].groups[g] for n in names if g in result.reports[n].groups}
            out.print(metrics_table(f"{args.by} = {g}", per))
        out.print(macro_table(f"macro mean over {args.by}", result.reports))
    if args.plots is not None:
        from trustscore.fitting._plots import write_plots

        try:
            paths = write_plots(
                rows,
                args.plots,
                label=args.label,
                label_means=args.label_means,
                sources=names,
                n_bins=args.bins,
            )
        except RuntimeError as e:
            err.print(f"[red]error:[/red] {escape(str(e))}", markup=True, highlight=False, soft_wrap=True)
            return 2
        out.print("wrote " + ", ".join(str(p) for p in paths), highlight=False)
    return 0
