"""``trustscore calibrate --cascade --config trustscore.toml SCORED.jsonl -o cascade.json``.

Fits the ``[cascade]`` stages of the config on a labeled file scored with every signal of every stage
(``trustscore.fitting._cascade``): one calibrator per stage and the bands that spend the fewest judge
requests (``--cost tokens``: tokens) while the cascade's AUROC stays at most ``--max-auroc-loss``
below the full ensemble's (or its accuracy at ``--threshold``, with ``--max-accuracy-loss``). Point
``cascade.calibrator`` at the file written.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from trustscore._errors import UsageError
from trustscore.fusion._cascade_model import CascadeEstimate, CascadeModel, CascadeQuality

__all__ = ["add_arguments", "run_cascade"]

DEFAULT_MAX_AUROC_LOSS = 0.01


def add_arguments(p: argparse.ArgumentParser) -> None:
    group = p.add_argument_group("cascade (--cascade)")
    group.add_argument(
        "--cascade",
        action="store_true",
        help="fit the [cascade] stages of --config: each stage's calibrator and band "
        "(SCORED holds every signal)",
    )
    group.add_argument("--config", type=Path, default=None, help="trustscore.toml with the [cascade] stages")
    group.add_argument(
        "--max-auroc-loss",
        type=float,
        default=None,
        help=f"AUROC the cascade may lose against the full ensemble (default {DEFAULT_MAX_AUROC_LOSS})",
    )
    group.add_argument(
        "--max-accuracy-loss",
        type=float,
        default=None,
        help="hold accuracy at --threshold instead: how much of it the cascade may lose",
    )
    group.add_argument(
        "--threshold", type=float, default=None, help="P(trustworthy) threshold of --max-accuracy-loss"
    )
    group.add_argument(
        "--cost",
        choices=("requests", "tokens"),
        default="requests",
        help="what the bands minimise (default: judge requests per sample)",
    )


def _quality(args: argparse.Namespace) -> CascadeQuality:
    if args.max_accuracy_loss is not None:
        if args.max_auroc_loss is not None:
            raise UsageError("give --max-auroc-loss or --max-accuracy-loss, not both")
        if args.threshold is None:
            raise UsageError(
                "--max-accuracy-loss needs --threshold (the P(trustworthy) above which a row passes)"
            )
        return _checked("accuracy", args.max_accuracy_loss, args.threshold)
    if args.threshold is not None:
        raise UsageError("--threshold goes with --max-accuracy-loss")
    loss = DEFAULT_MAX_AUROC_LOSS if args.max_auroc_loss is None else args.max_auroc_loss
    return _checked("auroc", loss, None)


def _checked(metric: str, loss: float, threshold: float | None) -> CascadeQuality:
    flag = f"--max-{metric}-loss"
    if not 0 <= loss <= 1:
        raise UsageError(f"{flag} must lie in [0, 1] (got {loss})")
    if threshold is not None and not 0 < threshold < 1:
        raise UsageError(f"--threshold must lie strictly between 0 and 1 (got {threshold})")
    return CascadeQuality(metric=metric, max_loss=loss, threshold=threshold)  # type: ignore[arg-type]


def run_cascade(args: argparse.Namespace) -> int:
    from trustscore._config import Config
    from trustscore.cli._fit_flags import check_output, fit_options, group_column
    from trustscore.fitting._cascade import StagePlan, fit_cascade
    from trustscore.fusion._cascade_model import save_cascade
    from trustscore.fusion._model import CalibratorError
    from trustscore.rows._scored import read_scored

    for flag, value in (("--adapt", args.adapt), ("--features", args.features), ("--by", args.by)):
        if value is not None:
            raise UsageError(f"{flag} does not apply with --cascade (the stages choose the features)")
    if args.config is None:
        raise UsageError("--cascade needs --config: the trustscore.toml whose [cascade] stages to fit")
    check_output(args.output, "cascade")
    options = fit_options(args)
    quality = _quality(args)
    config = Config.from_toml(args.config)
    if not config.cascade.enabled:
        raise UsageError(f"{args.config} has no [[cascade.stages]]: configure the stages to fit")
    stages = [
        StagePlan(name, stage.signals, stage.always)
        for name, stage in zip(config.cascade.stage_names, config.cascade.stages, strict=True)
    ]
    err = Console(stderr=True)
    try:
        model = fit_cascade(
            read_scored(args.scored),
            stages,
            label=args.label,
            label_means=args.label_means,
            group=group_column(args),
            quality=quality,
            cost=args.cost,
            options=options,
            name=args.name or args.output.stem,
            data_name=args.scored.name,
        )
        path = save_cascade(model, args.output)
    except (ValueError, CalibratorError) as e:
        err.print(f"[red]error:[/red] {escape(str(e))}", markup=True, highlight=False, soft_wrap=True)
        return 2
    print_fit(model)
    Console().print(f"wrote {path} (cascade {model.name}@{model.version})", highlight=False)
    return 0


def print_fit(model: CascadeModel, console: Console | None = None) -> None:
    """The stages' bands and the cascade's cost and quality against the full ensemble's."""
    out = console or Console()
    q = model.quality
    held = f"{q.metric}" + (f" at threshold {q.threshold:g}" if q.threshold is not None else "")
    out.print(
        f"bands chosen to minimise judge {model.cost} per sample with {held} at most {q.max_loss:g} "
        "below the full ensemble's",
        highlight=False,
        soft_wrap=True,
    )
    stages = Table(title="stages", title_justify="left")
    for column in ("stage", "signals", "runs when the score before lies in", "stopped here (held out)"):
        stages.add_column(column)
    for k, stage in enumerate(model.stages):
        rule = (
            "every sample"
            if k == 0
            else "always"
            if stage.always
            else "[{:.3f}, {:.3f}]".format(*stage.band or (0, 1))
        )
        stages.add_row(stage.name, ", ".join(stage.signals), rule, f"{model.held_out.stopped[k]:.1%}")
    out.print(stages)
    table = Table(title=f"per sample, {model.full.rows} rows", title_justify="left")
    for column in ("", "requests", "tokens", q.metric):
        table.add_column(column, justify="right" if column else "left")
    rows: dict[str, CascadeEstimate] = {
        "full ensemble (out of fold)": model.full,
        "cascade, bands chosen on these rows": model.fitted,
        "cascade, bands chosen on the other folds": model.held_out,
    }
    for name, e in rows.items():
        table.add_row(name, f"{e.requests:.2f}", f"{e.tokens:.0f}", f"{e.metric:.4f}")
    out.print(table)
    full = model.full.requests
    saved = 1 - model.held_out.requests / full if full else 0.0
    out.print(
        f"held out: {saved:.1%} of the judge requests saved; {q.metric} loss "
        f"{model.full.metric - model.held_out.metric:.4f} against the full ensemble",
        highlight=False,
    )
