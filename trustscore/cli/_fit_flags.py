"""The fitting flags ``trustscore calibrate`` shares with ``calibrate --cascade``, read back from argparse."""

from __future__ import annotations

import argparse

from trustscore.fitting._calibrator import FitOptions

__all__ = ["fit_options", "group_column"]


def fit_options(args: argparse.Namespace) -> FitOptions:
    """``--l2 --stack --post-hoc --post-hoc-fraction --folds --monotone --seed --intercept-by``."""
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


def group_column(args: argparse.Namespace) -> str | None:
    """``--group``: the column whose rows stay in one fold, None for ``--group none``."""
    return None if str(args.group).lower() == "none" else args.group
