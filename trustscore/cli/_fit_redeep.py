"""``trustscore fit-redeep DATA.jsonl... --model DIR -o PROFILE.json``.

Fits a ReDeEP profile for one local model (the model the ``redeep`` signal reads,
``signals.redeep.model_path``) from labeled rows: ``question``, ``context``, ``response`` and
``spans`` (character offsets of hallucinated text in the response, ``[]`` when none) plus a group
column (``--group``, default ``source_id``). Every row given is training data: keep the rows you
evaluate on out of it. Progress goes to stderr; the summary (rows used and skipped, what was chosen)
to stdout. Then set ``[signals.redeep] profile = "PROFILE.json"``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from trustscore.cli._help_text import plain
from trustscore.core._extras import install_extra
from trustscore.core._fitted_output import check_fitted_output

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "fit-redeep",
        help="fit a ReDeEP profile for a local model from labeled rows",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("data", type=Path, nargs="+", help="JSONL rows with question, context, response, spans")
    p.add_argument(
        "--model", type=Path, required=True, help="the local model's folder (signals.redeep.model_path)"
    )
    p.add_argument("-o", "--output", type=Path, required=True, help="where to write the profile (JSON)")
    p.add_argument(
        "--method",
        choices=("paper", "logistic"),
        default="paper",
        help="paper: top heads/layers by AUROC and beta by grouped CV; logistic: L2 logistic over all",
    )
    p.add_argument("--level", choices=("token", "chunk"), default="token", help="unit the profile scores")
    p.add_argument(
        "--pks-mode", choices=("jsd", "legacy"), default="jsd", help="legacy = the released code's"
    )
    p.add_argument("--group", default="source_id", help="column whose rows stay in one CV fold")
    p.add_argument("--limit", type=int, default=None, help="use only the first N rows")
    p.add_argument("--folds", type=int, default=5, help="grouped inner cross-validation folds")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu", help="torch device (cpu, cuda)")
    p.add_argument("--dtype", choices=("float32", "bfloat16", "float16"), default="float32")
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    from trustscore._errors import ProfileError, UsageError

    try:
        from trustscore.compute._torch_import import import_torch
        from trustscore.fitting._redeep_rows import fit_profile_from_rows
        from trustscore.rows._labeled import read_rows

        torch = import_torch()
    except ImportError as e:
        raise UsageError(
            f"fit-redeep needs the white-box extra: {install_extra('whitebox')} ({e})"
        ) from e
    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit must be at least 1 (got {args.limit})")
    if args.folds < 2:
        raise UsageError(f"--folds must be at least 2 (got {args.folds})")
    check_fitted_output(args.output, "ReDeEP profile", error=UsageError)
    if args.threads:
        torch.set_num_threads(args.threads)
    rows = []
    for path in args.data:
        if not path.is_file():
            raise UsageError(f"{path}: no such file")
        try:
            rows += read_rows(path, args.group)
        except ValueError as e:
            raise UsageError(str(e)) from e
    rows = rows[: args.limit]
    names = ", ".join(p.name for p in args.data)
    split = f"{len(rows)} rows of {names}, inner CV grouped by {args.group}, seed {args.seed}"

    def progress(done: int, total: int, seconds: float) -> None:
        print(f"\rfit-redeep: {done}/{total} rows, {seconds:.0f} s", end="", file=sys.stderr, flush=True)

    try:
        report = fit_profile_from_rows(
            rows, args.model, method=args.method, level=args.level, pks_mode=args.pks_mode,
            n_folds=args.folds, seed=args.seed, split=split, device=args.device, dtype=args.dtype,
            progress=progress,
        )  # fmt: skip
    except ValueError as e:  # too few usable rows, one label only, a model that does not load
        print(file=sys.stderr)
        raise UsageError(f"fit-redeep: {e}") from e
    print(file=sys.stderr)
    try:
        report.profile.save(args.output)
    except ProfileError as e:  # the path changed during the fit
        raise UsageError(f"fit-redeep: {e}") from None
    profile = report.profile
    summary = {
        "profile": str(args.output),
        "rows_used": report.rows_used,
        "rows_skipped": len(report.skipped),
        "skipped": report.skipped[:10],
        "seconds_per_row": round(report.seconds_per_row, 2),
        "units": profile.training.n,
        "positive_rate": round(profile.training.positive_rate, 4),
        "heads": [list(h) for h in profile.heads],
        "layers": profile.layers,
        "selection": profile.training.selection,
        "next": f'set [signals.redeep] profile = "{args.output}" and model_path = "{args.model}"',
    }
    print(json.dumps(summary, indent=1))
    return 0
