"""A duration's time whatever its units: "60 minutes" is "1 hour", "0.75 hours" is "45 minutes", and "1
hour and 45 minutes" (which the parse reads as one number, 1, counting minutes) is 105 minutes."""

from __future__ import annotations

import math
import re
from itertools import pairwise

from trustscore.grounding.claims._atoms import Atom
from trustscore.grounding.claims._lexicon import unit

__all__ = ["same_time", "seconds"]

_SECONDS = {"second": 1.0, "minute": 60.0, "hour": 3600.0, "day": 86400.0, "week": 604800.0}
"""Each unit of time the atoms name (pint's names), in seconds."""
_PART = re.compile(
    r"(\d+(?:\.\d+)?)\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?)\b", re.IGNORECASE
)


def seconds(atom: Atom) -> float | None:
    """The atom's time in seconds, if it is a duration ("1 hour and 45 minutes": 6,300)."""
    if atom.kind != "number" or atom.unit not in _SECONDS or atom.number is None:
        return None
    parts = _compound(atom)
    if not parts:
        return atom.number * _SECONDS[atom.unit]
    total = sum(float(n) * _size(u) for n, u in parts)
    return total if math.isfinite(total) else None


def same_time(a: Atom, b: Atom) -> bool:
    """Both are durations of the same time, in whatever units."""
    mine, theirs = seconds(a), seconds(b)
    return mine is not None and theirs is not None and abs(mine - theirs) <= 1e-6 * max(mine, theirs)


def _compound(atom: Atom) -> list[tuple[str, str]]:
    """The parts of a time written in several units, each smaller than the one before ("1 hour and 45
    minutes", "3 hours 25 minutes"); none for one number ("90 minutes") or a range ("6 to 9 minutes",
    "2 hours to 3 hours")."""
    parts: list[tuple[str, str]] = _PART.findall(atom.text)
    sizes = [_size(u) for _, u in parts]
    descending = all(a > b for a, b in pairwise(sizes))
    return parts if len(parts) > 1 and descending else []


def _size(written: str) -> float:
    """Seconds in the unit of time a word names, as pint names it ("mins", "hrs": :func:`._lexicon.unit`)."""
    return _SECONDS[unit(written) or written]
