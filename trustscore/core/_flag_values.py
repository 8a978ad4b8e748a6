"""Values of command-line flags, checked as argparse reads them (``type=``): a bad value is refused
with the flag's name (argparse adds it) and what the flag takes, before anything runs."""

from __future__ import annotations

import argparse
import math

__all__ = ["positive_int", "positive_seconds", "probability"]


def positive_int(text: str) -> int:
    """A count (``--concurrency``, ``--actors``, ``--batch-size``): a whole number, at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, at least 1 (got {text!r})") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (got {value})")
    return value


def positive_seconds(text: str) -> float:
    """A time budget (``--budget``): a finite number of seconds above 0."""
    return _between(text, 0, math.inf, "a finite number of seconds above 0, e.g. 30")


def probability(text: str) -> float:
    """A line on a probability (``--threshold``): strictly between 0 and 1."""
    return _between(text, 0, 1, "a probability strictly between 0 and 1, e.g. 0.5")


def _between(text: str, low: float, high: float, what: str) -> float:
    """``text`` as a number strictly between ``low`` and ``high`` (NaN and non-numbers refused)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not low < value < high:
        raise argparse.ArgumentTypeError(f"must be {what} (got {text!r})")
    return value
