"""A duration's time whatever its units: "60 minutes" is "1 hour", "0.75 hours" is "45 minutes", and "1
hour and 45 minutes" (which the parse reads as one number, 1, counting minutes) is 105 minutes; where the
parse splits such a time in two ("1 hour" and "50 minutes"), :func:`joined` makes it one again."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from itertools import pairwise

from trustscore.grounding.claims._atoms import Atom
from trustscore.grounding.claims._lexicon import unit

__all__ = ["in_parts", "joined", "same_time", "seconds"]

_SECONDS = {"second": 1.0, "minute": 60.0, "hour": 3600.0, "day": 86400.0, "week": 604800.0}
"""Each unit of time the atoms name (pint's names), in seconds."""
_BETWEEN_PARTS = re.compile(r"\s*(?:,\s*)?(?:and\s+)?", re.IGNORECASE)
"""What may join the parts of one time: nothing but spaces, a comma or "and" ("1 hour, 50 minutes")."""
_TIME_UNIT = r"(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?)\b"
_PART = re.compile(rf"(\d+(?:\.\d+)?)\s*{_TIME_UNIT}", re.IGNORECASE)
_UNIT_AFTER = re.compile(rf"\s*{_TIME_UNIT}", re.IGNORECASE)


def seconds(atom: Atom) -> float | None:
    """The atom's time in seconds, if it is a duration ("1 hour and 45 minutes": 6,300)."""
    if atom.kind != "number" or atom.unit not in _SECONDS or atom.number is None:
        return None
    parts = _compound(atom)
    if not parts:
        return atom.number * _SECONDS[atom.unit]
    total = sum(float(n) * _size(u) for n, u in parts)
    return total if math.isfinite(total) else None


def joined(atoms: list[Atom], text: str) -> list[Atom]:
    """``atoms`` (in text order) with each time the parse split into its parts ("1 hour" then "50
    minutes") one atom again, read as the parse reads the whole ("1 hour 50 minutes": the first part's
    number, the last part's unit), so a copied time is the same time as the context's."""
    out: list[Atom] = []
    for atom in atoms:
        before = out[-1] if out else None
        if before is not None and _continues(before, atom, text):
            end = _with_unit(atom, text)
            out[-1] = replace(before, text=text[before.start : end], end=end, unit=atom.unit)
        else:
            out.append(atom)
    return out


def _with_unit(atom: Atom, text: str) -> int:
    """Where the atom ends with the unit of time written after it, where the parse left the unit word out
    of a bare number ("2" of "2 hrs 10 mins", counting hours)."""
    after = _UNIT_AFTER.match(text, atom.end) if not any(c.isalpha() for c in atom.text) else None
    return atom.end if after is None else after.end()


def _continues(before: Atom, atom: Atom, text: str) -> bool:
    """``atom`` is the next, smaller part of the time ``before`` ends with."""
    if before.sentence != atom.sentence or seconds(before) is None or seconds(atom) is None:
        return False
    end = _with_unit(before, text)
    if _BETWEEN_PARTS.fullmatch(text, end, atom.start) is None:
        return False
    parts = _compound(before) or _PART.findall(text[before.start : end])
    return bool(parts) and atom.unit is not None and _size(parts[-1][1]) > _SECONDS[atom.unit]


def same_time(a: Atom, b: Atom) -> bool:
    """Both are durations of the same time, in whatever units."""
    mine, theirs = seconds(a), seconds(b)
    return mine is not None and theirs is not None and abs(mine - theirs) <= 1e-6 * max(mine, theirs)


def in_parts(atom: Atom) -> bool:
    """The atom is one time written in several units ("2 hours and 10 minutes"): its numbers are its
    parts, not the ends of a range."""
    return bool(_compound(atom))


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
