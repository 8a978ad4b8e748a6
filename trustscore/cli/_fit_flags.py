"""The fitting flags ``trustscore calibrate`` shares with ``calibrate --cascade``, read back from argparse."""

from __future__ import annotations

import argparse
from pathlib import Path

from pydantic import ValidationError

from trustscore._errors import UsageError
from trustscore.core._fitted_output import FittedKind, check_fitted_output
from trustscore.fitting._calibrator import FitOptions

__all__ = ["check_output", "fit_options", "group_column"]

_FLAGS = {"l2": "--l2", "post_hoc_fraction": "--post-hoc-fraction", "folds": "--folds"}


def fit_options(args: argparse.Namespace) -> FitOptions:
    """``--l2 --stack --post-hoc --post-hoc-fraction --folds --monotone --seed --intercept-by``; a value
    out of range is a ``UsageError`` naming its flag, before any row is read."""
    try:
        return FitOptions(
            l2=args.l2,
            stack=args.stack,
            post_hoc=args.post_hoc,
            post_hoc_fraction=args.post_hoc_fraction,
            folds=args.folds,
            monotone=args.monotone,
            seed=args.seed,
            intercept_by=args.intercept_by,
        )
    except ValidationError as e:
        first = e.errors()[0]
        field = str(first["loc"][0]) if first["loc"] else ""
        flag = _FLAGS.get(field, field)
        raise UsageError(f"{flag} {first['input']!r}: {first['msg'].lower()}") from None


def check_output(path: Path, kind: FittedKind) -> None:
    """``-o``: refused before the fit unless it is a new path or an earlier ``kind`` (never the rows)."""
    check_fitted_output(path, kind, error=UsageError)


def group_column(args: argparse.Namespace) -> str | None:
    """``--group``: the column whose rows stay in one fold, None for ``--group none``."""
    return None if str(args.group).lower() == "none" else args.group
