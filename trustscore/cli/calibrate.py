"""``trustscore calibrate SCORED.jsonl -o calibration/NAME.json [--label hallucinated] [--group source_id]``.

Fits the fused model (stacked L2 logistic regression over signal features, see
``trustscore.fitting.calibrator``) on the output of ``trustscore score``, prints its grouped
cross-validated metrics, and writes the calibrator JSON that ``fusion.calibrator`` loads.

``trustscore calibrate LABELED.jsonl --adapt -o NEW.json`` instead recalibrates a fitted model on a few
labeled rows of your data (25-500; ``trustscore.fitting.adapt``): the base model's coefficients are
refitted under a prior centred on them, so mostly the intercept moves (your data's base rate). Without a
value ``--adapt`` starts from the shipped offline calibrator, and LABELED may be plain samples
(``question``, ``context``, ``response`` and the label): they are scored with the offline default first.
``--adapt BASE.json`` starts from your own calibrator instead; LABELED is then the output of
``trustscore score`` run with the configuration BASE was fitted on.

``trustscore calibrate --cascade --config trustscore.toml SCORED.jsonl -o cascade.json`` fits the
config's ``[cascade]`` stages instead: each stage's calibrator and the bands that save the most judge
requests within a quality loss you set (``--max-auroc-loss``, default 0.01; docs/cascade.md).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from trustscore.cli.calibrate_cascade import add_arguments as add_cascade_arguments
from trustscore.cli.calibrate_cascade import run_cascade
from trustscore.cli.eval import add_label_arguments
from trustscore.cli.fit_flags import fit_options, group_column
from trustscore.cli.help_text import plain
from trustscore.errors import InputError
from trustscore.fitting.calibrator import fit_calibrator
from trustscore.fitting.report import macro_table, metrics_table, polarity_note
from trustscore.fusion.model import CalibratorError, FusionModel
from trustscore.fusion.store import save_model
from trustscore.rows.scored import ScoredRow, read_scored, rows_from_dicts

__all__ = ["add_parser", "run"]

_KINDS = ("platt", "temperature", "beta", "isotonic")
SHIPPED = "shipped"
"""``--adapt`` without a value: the shipped calibrator of the signals the rows were scored with."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "calibrate",
        help="fit a calibrated fusion model on a scored JSONL",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "scored",
        type=Path,
        help="JSONL written by `trustscore score` (with --adapt and no BASE: plain labeled samples too)",
    )
    p.add_argument("-o", "--output", type=Path, required=True, help="calibrator JSON to write")
    p.add_argument(
        "--adapt",
        nargs="?",
        const=SHIPPED,
        default=None,
        metavar="BASE.json",
        help="recalibrate a fitted model on the (few) labeled rows of SCORED instead of fitting anew: "
        "BASE.json, or without a value the shipped offline calibrator (SCORED may then be unscored "
        "samples with their label; they are scored with the offline default first)",
    )
    add_label_arguments(p)
    p.add_argument(
        "--group",
        default="source_id",
        help="column whose rows stay on one side of every split (default source_id; 'none' = per row)",
    )
    p.add_argument(
        "--features",
        nargs="+",
        default=None,
        metavar="FEATURE",
        help="SIGNAL[:raw.PATH][|TRANSFORM], e.g. lynx 'lexical:raw.numbers_unsupported|clip' "
        "(default: every signal's value, logit)",
    )
    p.add_argument("--by", default=None, help="also report held-out metrics per value of this column")
    p.add_argument("--name", default=None, help="calibrator name (default: the output file's stem)")
    p.add_argument("--l2", type=float, default=1.0, help="ridge strength on standardised features")
    p.add_argument("--stack", choices=_KINDS, default=None, help="per-signal calibrator, fitted out of fold")
    p.add_argument(
        "--post-hoc", choices=_KINDS, default=None, help="calibrate the fused score on a held-out split"
    )
    p.add_argument(
        "--post-hoc-fraction",
        type=float,
        default=0.25,
        help="share of the rows (whole groups) held out to fit --post-hoc on (default 0.25)",
    )
    p.add_argument(
        "--monotone",
        action="store_true",
        help="keep every signal's weight >= 0 (a better verdict never lowers the score)",
    )
    p.add_argument(
        "--intercept-by",
        default=None,
        metavar="COLUMN",
        help="fit with one intercept per value of this column (e.g. dataset), so the weights do not learn "
        "which data set hallucinates more; the calibrator keeps one shared intercept",
    )
    p.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
    p.add_argument("--seed", type=int, default=0, help="seed of the fold and held-out splits (default 0)")
    add_cascade_arguments(p)
    p.set_defaults(run=run)
    return p


def _is_scored(path: Path) -> bool:
    """Whether the first row of ``path`` is a scored row (it has ``signals``)."""
    try:
        with path.open(encoding="utf-8") as f:
            first = next((line for line in f if line.strip()), "{}")
    except FileNotFoundError:
        raise InputError(f"labeled file {path} does not exist") from None
    try:
        data = json.loads(first)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: the first row is not valid JSON ({e.msg})") from None
    return isinstance(data, dict) and "signals" in data


def labeled_rows(path: Path, *, shipped_base: bool) -> list[ScoredRow]:
    """The labeled rows to adapt on: read as scored, or (plain samples, adapting the shipped
    calibrator) scored here first with the offline default."""
    if _is_scored(path):
        return read_scored(path)
    if not shipped_base:
        raise InputError(
            f"{path} holds samples without signals: score them first with `trustscore score` and the "
            "configuration your base calibrator was fitted on, or adapt the shipped calibrator (--adapt "
            "without a value)"
        )
    from trustscore.cli.score import build_scorer, read_input
    from trustscore.rows import result_row

    inputs = read_input(path)
    scorer = build_scorer(None, no_cache=False)
    results = scorer.score_many_sync([r.sample for r in inputs], progress=True)
    return rows_from_dicts(
        result_row(r.sample.id or "", res, r.carried) for r, res in zip(inputs, results, strict=True)
    )


def shipped_base(rows: Sequence[ScoredRow]) -> FusionModel:
    """The shipped calibrator fitted on the signals (at the versions) these rows were scored with."""
    from trustscore.calibrators import shipped_calibrator

    versions = {n: s.version for r in rows for n, s in r.signals.items() if s.value is not None}
    model = shipped_calibrator(versions)
    if model is None:
        raise InputError(
            f"no shipped calibrator was fitted on the signals these rows carry ({versions}); the shipped "
            "one reads the offline default's lexical and embedding signals (install the embedding extra), "
            "or pass --adapt BASE.json"
        )
    return model


def run_adapt(args: argparse.Namespace) -> int:
    import numpy as np

    from trustscore.fitting.adapt import adapt_model
    from trustscore.fusion.store import load_model
    from trustscore.rows.scored import label_column
    from trustscore.stats.metrics import evaluate

    out = Console()
    err = Console(stderr=True)
    try:
        rows = labeled_rows(args.scored, shipped_base=args.adapt == SHIPPED)
        base = load_model(args.adapt) if args.adapt != SHIPPED else shipped_base(rows)
        model = adapt_model(
            base,
            rows,
            label=args.label,
            label_means=args.label_means,
            name=args.name or args.output.stem,
            data_name=args.scored.name,
        )
        labels = label_column(rows, args.label)
        raw = base.raw_matrix([r.signals for r in rows])
        before, after = base.predict_raw(raw), model.predict_raw(raw)
        ok = ~np.isnan(before)
        if args.label_means == "untrustworthy":
            before, after = 1.0 - before, 1.0 - after
        path = save_model(model, args.output)
    except (ValueError, CalibratorError) as e:
        err.print(f"[red]error:[/red] {e}", markup=True, highlight=False)
        return 2
    out.print(f"{args.scored}: {model.training.n} labeled rows; adapted {base.description}", highlight=False)
    out.print(polarity_note(args.label, args.label_means), highlight=False)
    out.print(
        metrics_table(
            "on the adaptation rows themselves (in-sample: not a held-out estimate)",
            {base.name: evaluate(labels[ok], before[ok]), model.name: evaluate(labels[ok], after[ok])},
        )
    )
    out.print(f"intercept {base.intercept:+.3f} -> {model.intercept:+.3f}", highlight=False)
    claim = model.not_calibrated_reason or "claims calibrated on data like these rows (inside its domain)"
    out.print(f"{model.name}: {claim}", highlight=False, soft_wrap=True)
    out.print(f"wrote {path} ({model.description})", highlight=False)
    return 0


def run(args: argparse.Namespace) -> int:
    if args.cascade:
        return run_cascade(args)
    if args.adapt is not None:
        return run_adapt(args)
    out = Console()
    err = Console(stderr=True)
    group = group_column(args)
    name = args.name or args.output.stem
    try:
        rows = read_scored(args.scored)
        options = fit_options(args)
        model, report = fit_calibrator(
            rows,
            label=args.label,
            label_means=args.label_means,
            group=group,
            features=args.features,
            by=args.by,
            name=name,
            options=options,
            data_name=args.scored.name,
        )
        path = save_model(model, args.output)
    except (ValueError, CalibratorError) as e:
        err.print(f"[red]error:[/red] {escape(str(e))}", markup=True, highlight=False, soft_wrap=True)
        return 2
    held = report.held_out
    out.print(
        f"{args.scored}: {model.training.n} rows fitted"
        + (
            f", {report.rows_without_signals} without any feature skipped"
            if report.rows_without_signals
            else ""
        ),
        highlight=False,
    )
    out.print(polarity_note(args.label, args.label_means), highlight=False)
    split = f"grouped by {group}" if group else "rows split individually"
    out.print(metrics_table(f"held-out ({held.folds}-fold, {split})", {model.name: held.report.pooled}))
    if args.by:
        out.print(metrics_table(f"held-out by {args.by}", held.report.groups))
        out.print(macro_table(f"held-out macro mean over {args.by}", {model.name: held.report}))
    f1 = held.f1_threshold_from_training_folds
    out.print(
        f"F1 with thresholds chosen on training folds: {f1.f1:.3f} "
        f"(precision {f1.precision:.3f}, recall {f1.recall:.3f}, mean threshold {f1.threshold:.3f})",
        highlight=False,
    )
    coefs = Table(title="coefficients (standardised features; + = more trustworthy)", title_justify="left")
    coefs.add_column("feature")
    coefs.add_column("coef", justify="right")
    for feature, c in report.coefficients.items():
        coefs.add_row(feature, f"{c:+.3f}")
    out.print(coefs)
    out.print(f"wrote {path} ({model.description})", highlight=False)
    return 0
