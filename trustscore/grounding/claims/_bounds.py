"""A number written as a bound or an estimate ("over 200 reviews", "fewer than 250", "about 200"):
what the number the context states in its slot says of it.

The number check compares the written number with the context's, so "over 200 reviews" against "212
reviews" read as a changed count. Here the bound's words, as the parse hangs them on the number
(:func:`._syntax.bound_words`; "over 3 days", a preposition's, is no bound), are read:

- **supported**: the context's number is on the bound's side and within a factor of two of it ("more
  than 400" for 420), or within a tenth of an estimate ("about 200" for 212);
- **unsupported**: on the bound's side but far from it ("more than $4 million" for $4.2 billion: true,
  and no restatement of the context's amount, often a slipped scale);
- **contradicted**: on the other side ("more than 300" for 212), as before.

Years are left out ("around 2010" says nothing a tenth wide could check), and so is a context number
that is a bound itself ("companies with more than 250 staff" is a rule, which "more than 50" changes).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from decimal import Decimal

from trustscore.grounding.claims._aligned import Change
from trustscore.grounding.claims._atoms import Atom
from trustscore.grounding.claims._values import parse_number
from trustscore.grounding.claims._verdict import Outcome, Verdict

__all__ = ["bound_outcome", "unbounded"]

_CLOSE = 0.05
"""How far from its number an estimate may be met at least, as a share of the number; beyond it, half
a unit of its last written digit ("about 200": 150 to 250; "around 2,100": 2,050 to 2,150)."""
_FAR = 2.0
"""How many times its number a bound may be from the context's and still restate it."""

_ABOVE, _FROM, _BELOW, _TO = operator.lt, operator.le, operator.gt, operator.ge
"""Bounds, each called with the bound's number and the context's: ``_ABOVE(200, 212)`` is 200 < 212."""


def _near(n: float, v: float) -> bool:
    return abs(v - n) <= _tolerance(n)


def _just_below(n: float, v: float) -> bool:
    return n - _tolerance(n) <= v <= n


def _just_above(n: float, v: float) -> bool:
    return n <= v <= n + _tolerance(n)


def _tolerance(n: float) -> float:
    """How far an estimate of ``n`` may be from what it estimates: half a unit of its last nonzero digit,
    or a twentieth of it, whichever is more."""
    place = Decimal(repr(n)).normalize().as_tuple().exponent
    return max(0.5 * 10.0 ** int(place), _CLOSE * n)


_QUALIFIERS: dict[str, Callable[[float, float], bool]] = {
    "more than": _ABOVE,
    "over": _ABOVE,
    "above": _ABOVE,
    "upwards of": _ABOVE,
    "in excess of": _ABOVE,
    "at least": _FROM,
    "no fewer than": _FROM,
    "no less than": _FROM,
    "less than": _BELOW,
    "fewer than": _BELOW,
    "under": _BELOW,
    "below": _BELOW,
    "at most": _TO,
    "up to": _TO,
    "no more than": _TO,
    "nearly": _just_below,
    "almost": _just_below,
    "just under": _just_below,
    "just over": _just_above,
    "about": _near,
    "around": _near,
    "approximately": _near,
    "roughly": _near,
    "some": _near,
    "circa": _near,
    "close to": _near,
    "estimated": _near,
}
_BARE_NUMBER = re.compile(r"[\d.,%\s]+")


def bound_outcome(atom: Atom, stated: Atom | None) -> Outcome | None:
    """What the number ``stated`` in the atom's slot says of the atom's bound or estimate; None where the
    atom is none or its predicate is negated ("has not over 5,000"), or the context's number is a date or
    a bound itself."""
    if stated is None or stated.kind == "date" or stated.bound is not None or atom.negated:
        return None
    return _outcome(atom, stated.number)


def unbounded(
    changes: list[Change], response: tuple[str, list[Atom]], context: tuple[str, list[Atom]]
) -> list[Change]:
    """The changes of copied sentences (each side: its text and atoms) that change no bound or estimate
    the context's number meets: "more than 4,000 people" copied from "5,000 people" changes the number's
    words, not what they say. Where the context writes the number as a bound too ("more than 50 staff"
    for "more than 250 staff"; "over 20 years" for "over 25 years", however the parse reads "over"),
    it stays changed."""
    return [c for c in changes if not any(_met(c.verdict, response[0], a, context) for a in response[1])]


def _outcome(atom: Atom, stated: float | None) -> Outcome | None:
    rule = _rule(atom.bound)
    if rule is None or atom.kind == "date" or atom.number is None or atom.number <= 0 or stated is None:
        return None
    if not rule(atom.number, stated):
        return "contradicted"
    near = max(stated, atom.number) <= _FAR * min(stated, atom.number)
    return "supported" if near else "unsupported"


def _rule(bound: str | None) -> Callable[[float, float], bool] | None:
    """The rule of the longest qualifier the bound's words end with ("well over": "over")."""
    words = (bound or "").split()
    return next(
        (r for n in range(len(words)) if (r := _QUALIFIERS.get(" ".join(words[n:]))) is not None), None
    )


def _met(change: Verdict, text: str, atom: Atom, context: tuple[str, list[Atom]]) -> bool:
    """The change overlaps ``atom``, puts back a bare number (no other unit: "over 300 metres" for "320
    feet" stays a change) that the context writes without a bound, and that number meets the atom's
    bound: "more than 4,000" with "more than 4" read as "5" is 5,000."""
    if change.context is None or not (atom.start < change.end and change.start < atom.end):
        return False
    if atom.negated or atom.bound is None or not _BARE_NUMBER.fullmatch(change.context):
        return False
    start, end = min(atom.start, change.start), max(atom.end, change.end)
    stated = text[start : change.start] + change.context + text[change.end : end]
    number = parse_number(stated.replace("%", " %").split(), money=True)
    if number == atom.number or any(
        _bounded(a, atom.bound, context[0]) for a in context[1] if a.number == number
    ):
        return False
    return _outcome(atom, number) in ("supported", "unsupported")


def _bounded(stated: Atom, bound: str, text: str) -> bool:
    """The context's number is a bound, as its parse reads it or with the response's bound's words
    written before it."""
    before = text[max(0, stated.start - 3 * len(bound)) : stated.start].lower().split()
    return stated.bound is not None or before[-len(bound.split()) :] == bound.split()
