"""A number written as a bound or an estimate ("over 200 reviews", "fewer than 250", "about 200"):
whether the number the context states in its slot meets it.

The number check compares the written number with the context's, so "over 200 reviews" against "212
reviews" read as a changed count. A bound is met by any number on its side ("more than 400" by 420,
not by 380); an estimate by a number within a tenth of it ("about 200" by 212, "nearly 500" not).
Years are left out: "around 2010" says nothing a tenth wide could check.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from trustscore.grounding.claims._aligned import Change
from trustscore.grounding.claims._atoms import Atom
from trustscore.grounding.claims._values import parse_number
from trustscore.grounding.claims._verdict import Verdict

__all__ = ["meets_bound", "unbounded"]

_CLOSE = 0.1
"""How far from its number an estimate may be met, as a share of the number ("about 200": 180-220)."""

_QUALIFIERS: dict[str, Callable[[float, float], bool]] = {
    "more than": lambda n, v: v > n,
    "over": lambda n, v: v > n,
    "above": lambda n, v: v > n,
    "upwards of": lambda n, v: v > n,
    "in excess of": lambda n, v: v > n,
    "at least": lambda n, v: v >= n,
    "no fewer than": lambda n, v: v >= n,
    "no less than": lambda n, v: v >= n,
    "less than": lambda n, v: v < n,
    "fewer than": lambda n, v: v < n,
    "under": lambda n, v: v < n,
    "below": lambda n, v: v < n,
    "at most": lambda n, v: v <= n,
    "up to": lambda n, v: v <= n,
    "no more than": lambda n, v: v <= n,
    "nearly": lambda n, v: n * (1 - _CLOSE) <= v <= n,
    "almost": lambda n, v: n * (1 - _CLOSE) <= v <= n,
    "just under": lambda n, v: n * (1 - _CLOSE) <= v < n,
    "just over": lambda n, v: n < v <= n * (1 + _CLOSE),
    "about": lambda n, v: abs(v - n) <= _CLOSE * n,
    "around": lambda n, v: abs(v - n) <= _CLOSE * n,
    "approximately": lambda n, v: abs(v - n) <= _CLOSE * n,
    "roughly": lambda n, v: abs(v - n) <= _CLOSE * n,
    "some": lambda n, v: abs(v - n) <= _CLOSE * n,
    "circa": lambda n, v: abs(v - n) <= _CLOSE * n,
    "close to": lambda n, v: abs(v - n) <= _CLOSE * n,
    "an estimated": lambda n, v: abs(v - n) <= _CLOSE * n,
}

_QUALIFIER = re.compile(
    r"\b(" + "|".join(sorted((re.escape(q) for q in _QUALIFIERS), key=len, reverse=True)) + r")\W*$",
    re.IGNORECASE,
)
"""A qualifier that ends where the number begins."""

_DIGIT = re.compile(r"[\d$£€¥]")


def meets_bound(text: str, atom: Atom, stated: float | None) -> bool:
    """``atom`` (in ``text``) is a count, amount or share written with a bound or an estimate that the
    number ``stated`` meets. The qualifier is read inside the atom's words ("more than 300", as the
    recogniser often tags it) or just before them ("under 400")."""
    if atom.kind == "date" or atom.number is None or atom.number <= 0 or stated is None:
        return False
    inside = _DIGIT.search(atom.text)
    lead = atom.text[: inside.start()] if inside else ""
    before = text.rfind(" ", 0, max(0, atom.start - 20)) + 1  # whole words: "turnover" is no "over"
    found = _QUALIFIER.search(text[before : atom.start] + lead)
    return found is not None and _QUALIFIERS[found.group(1).casefold()](atom.number, stated)


def unbounded(changes: list[Change], text: str, atoms: list[Atom]) -> list[Change]:
    """The changes of copied sentences (in ``text``, whose atoms are ``atoms``) that change no bound
    or estimate the context's number meets: "more than 4,000 people" copied from "5,000 people"
    changes the number's words, not what they say."""
    return [c for c in changes if not any(_met(c.verdict, text, a) for a in atoms)]


def _met(change: Verdict, text: str, atom: Atom) -> bool:
    """The change overlaps ``atom``, and the number the context writes there (the atom's words with
    the change's stretch put back as the context has it: "more than 4,000" with "more than 4" read as
    "5" is 5,000) meets the atom's bound."""
    if change.context is None or not (atom.start < change.end and change.start < atom.end):
        return False
    start, end = min(atom.start, change.start), max(atom.end, change.end)
    stated = text[start : change.start] + change.context + text[change.end : end]
    number = parse_number(stated.replace("%", " %").split(), money=True)
    return number != atom.number and meets_bound(text, atom, number)  # the same number: a unit changed
