"""``trustscore calibrate SCORED.jsonl -o calibration/NAME.json [--label hallucinated] [--group source_id]``.

Fits the fused model (stacked L2 logistic regression over signal features, see
``trustscore.fitting._calibrator``) on the output of ``trustscore score``, prints its grouped
cross-validated metrics, and writes the calibrator JSON that ``fusion.calibrator`` loads.

``trustscore calibrate LABELED.jsonl --adapt [--domain NAME] -o NEW.json`` instead adapts a fitted model
to one domain of your data with a few labeled rows (25-500; ``trustscore.fitting._adapt``): the level and
slope of the base model's score are refitted on them, and the adaptation records what the rows were (task
kinds, lengths, feature ranges, share trustworthy). It claims calibrated only on samples like them, of its
domain, and only when the labels carry it (the signals rank these rows; the level and slope are known
well enough); otherwise it says how many more labels would. Without a value ``--adapt`` starts from the
shipped offline calibrator, and LABELED may be plain samples (``question``, ``context``, ``response``,
the label, optionally ``domain``): they are scored with the offline default first. ``--adapt BASE.json``
starts from a calibrator of your own (or one adapted before: the new domain is added to it, a domain
adapted again is replaced); LABELED is then the output of ``trustscore score`` run with the
configuration BASE was fitted on, or plain samples when BASE reads the offline default's signals.

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

from trustscore._errors import InputError
from trustscore._types import Sample
from trustscore.cli._calibrate_cascade import add_arguments as add_cascade_arguments
from trustscore.cli._calibrate_cascade import run_cascade
from trustscore.cli._eval import add_label_arguments
from trustscore.cli._fit_flags import check_output, fit_options, group_column
from trustscore.cli._help_text import plain
from trustscore.fitting._calibrator import fit_calibrator
from trustscore.fitting._report import macro_table, metrics_table, polarity_note
from trustscore.fusion._model import CalibratorError, FusionModel
from trustscore.fusion._store import save_model
from trustscore.fusion._task_kind import task_kind
from trustscore.rows._scored import ScoredRow, read_scored, rows_from_dicts

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
    p.add_argument(
        "--domain",
        default=None,
        metavar="NAME",
        help="with --adapt: the domain these labeled rows belong to; samples claim calibrated through this "
        "adaptation only when their `domain` field names it (default: the rows' own `domain` when they "
        "all name one; else unnamed, for samples that name none)",
    )
    add_label_arguments(p)
    p.add_argument(
        "--group",
        default="source_id",
        help="column whose rows stay on one side of every split, and which --adapt's bootstrap resamples "
        "whole (default source_id, used by --adapt when every row has it; 'none' = per row)",
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


def labeled_rows(path: Path, *, offline_base: bool) -> tuple[list[ScoredRow], list[Sample] | None]:
    """The labeled rows to adapt on, and their samples when LABELED held plain samples (scored here
    first with the offline default; only a base that reads the offline default's signals allows it)."""
    if _is_scored(path):
        return read_scored(path), None
    if not offline_base:
        raise InputError(
            f"{path} holds samples without signals: score them first with `trustscore score` and the "
            "configuration your base calibrator was fitted on, or adapt the shipped calibrator (--adapt "
            "without a value)"
        )
    from trustscore.cli._score import build_scorer, read_input
    from trustscore.rows import result_row

    inputs = read_input(path)
    scorer = build_scorer(None, no_cache=False)
    samples = [r.sample for r in inputs]
    results = scorer.score_many_sync(samples, progress=True)
    rows = rows_from_dicts(
        result_row(r.sample.id or "", res, r.carried) for r, res in zip(inputs, results, strict=True)
    )
    return rows, samples


def _domain_of(args: argparse.Namespace, samples: Sequence[Sample] | None) -> str | None:
    if args.domain is not None or samples is None:
        return str(args.domain) if args.domain is not None else None
    named = sorted({s.domain for s in samples if s.domain is not None})
    if len(named) > 1:
        raise InputError(
            f"{args.scored} names several domains ({', '.join(named)}): adapt each on its own rows with "
            "--domain NAME (one calibrator file holds them all: pass it as --adapt BASE.json and -o)"
        )
    if named and any(s.domain is None for s in samples):
        raise InputError(f"{args.scored}: some rows name domain {named[0]!r} and some none; pass --domain")
    return named[0] if named else None


def _task_kinds(rows: Sequence[ScoredRow], samples: Sequence[Sample] | None) -> list[str] | None:
    """Each labeled row's task kind, from its samples or carried question and context; None when the
    rows do not carry them."""
    if samples is not None:
        return [task_kind(s.question, s.context) for s in samples]
    kinds: list[str] = []
    for r in rows:
        question, context = r.fields.get("question"), r.fields.get("context")
        if not isinstance(question, str) or not isinstance(context, str | list):
            return None
        passages = [context] if isinstance(context, str) else [str(c) for c in context]
        kinds.append(task_kind(question, passages))
    return kinds


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


def _offline_signals(model: FusionModel) -> bool:
    from trustscore.calibrators import shipped_calibrator

    return shipped_calibrator(model.signal_versions) is not None


def run_adapt(args: argparse.Namespace) -> int:
    import numpy as np

    from trustscore.fitting._adapt import adapt_model
    from trustscore.fusion._store import load_model
    from trustscore.rows._scored import label_column
    from trustscore.stats._metrics import evaluate

    check_output(args.output, "calibrator")
    out = Console()
    err = Console(stderr=True)
    try:
        given = load_model(args.adapt) if args.adapt != SHIPPED else None
        rows, samples = labeled_rows(args.scored, offline_base=given is None or _offline_signals(given))
        base = given if given is not None else shipped_base(rows)
        domain = _domain_of(args, samples)
        kinds = _task_kinds(rows, samples)
        model = adapt_model(
            base,
            rows,
            label=args.label,
            label_means=args.label_means,
            domain=domain,
            task_kinds=kinds,
            group=group_column(args),
            name=args.name or args.output.stem,
            data_name=args.scored.name,
        )
        adaptation = next(a for a in model.adaptations if a.domain == domain)
        labels = label_column(rows, args.label)
        raw = base.raw_matrix([r.signals for r in rows])
        before, after = base.predict_raw(raw), model.predict_adapted(raw, domain)
        ok = ~np.isnan(before)
        if args.label_means == "untrustworthy":
            before, after = 1.0 - before, 1.0 - after
        path = save_model(model, args.output)
    except (ValueError, CalibratorError) as e:
        err.print(f"[red]error:[/red] {escape(str(e))}", markup=True, highlight=False, soft_wrap=True)
        return 2
    a = adaptation
    out.print(
        f"{args.scored}: {a.n} labeled rows ({a.label}); adapted {base.description}", highlight=False
    )
    out.print(polarity_note(args.label, args.label_means), highlight=False)
    out.print(
        metrics_table(
            "on the adaptation rows themselves (in-sample: not a held-out estimate)",
            {base.name: evaluate(labels[ok], before[ok]), model.name: evaluate(labels[ok], after[ok])},
        )
    )
    auroc = "n/a" if a.auroc is None else f"{a.auroc:.3f} (95% lower bound {a.auroc_low:.3f})"
    kinds_seen = ", ".join(a.task_kinds) if a.task_kinds is not None else "unknown (rows carry no question)"
    out.print(
        f"level {a.level:+.3f}, slope {a.slope:.3f}; base score's AUROC on these rows {auroc}; "
        f"level/slope uncertainty {a.calibration_gap:.3f} (bootstrap 90th percentile of the mean change in "
        f"P); share trustworthy {a.trust_share:.2f}; task kinds {kinds_seen}",
        highlight=False,
        soft_wrap=True,
    )
    claim = a.not_calibrated_reason or (
        f"claims calibrated on samples of the {a.label} like these rows (each result carries a 90% interval)"
    )
    out.print(f"{model.name}: {claim}", highlight=False, soft_wrap=True)
    others = [x.label for x in model.adaptations if x is not a]
    if others:
        out.print(f"the file also holds: {', '.join(others)}", highlight=False)
    out.print(f"wrote {path} ({model.description})", highlight=False)
    return 0


def run(args: argparse.Namespace) -> int:
    if args.cascade:
        return run_cascade(args)
    if args.adapt is not None:
        return run_adapt(args)
    check_output(args.output, "calibrator")
    options = fit_options(args)
    out = Console()
    err = Console(stderr=True)
    group = group_column(args)
    name = args.name or args.output.stem
    try:
        rows = read_scored(args.scored)
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
