"""A number written as a bound or an estimate ("over 200 reviews", "fewer than 250", "about 200"):
what the number the context states in the same relation says of it.

The number check compares the written number with the context's, so "over 200 reviews" against "212
reviews" read as a changed count. Here the bound's words, as the parse hangs them on the number
(:func:`._syntax.bound_words`; "over 3 days", a preposition's, is no bound, nor a negated one), are
read:

- **supported**: the context's number is on the bound's side and within a factor of two of it ("more
  than 400" for 420; "up to", which says the number reaches it, within a tenth), or, for an estimate,
  as close as its digits say (:data:`_CLOSE`: "about 200" for 212, not "around 2,100" for 1,953);
- **unsupported**: on the bound's side but farther ("more than $4 million" for $4.2 billion: true,
  and no restatement of the amount, often a slipped scale; "up to 20 hours" for 14), or an estimate
  a little farther ("about 100" for 149);
- **contradicted**: on the other side ("more than 300" for 212), or an estimate farther off, as before.

Years are left out ("around 2010" says nothing a tenth wide could check). Where the context's number is
a bound itself, its bound is read instead: a bare number on its side is unsupported, one off it
contradicted, and the same number bounded the other way contradicted ("more than 3" where it says "no
more than 3"); another bound of another number stays a change ("companies with more than 250 staff" is
a rule, which "more than 50" changes). A denial that bounds a number is the bound it makes
(:func:`denied_bounds`: "do not take more than 3" is "no more than 3"). A temperature is read on the
bound's scale ("over 80°F" against 25°C, 77°F, is contradicted).
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal

from trustscore.grounding.claims._aligned import Change
from trustscore.grounding.claims._atoms import Atom
from trustscore.grounding.claims._numeric import in_scale, in_units, same_quantity, units_agree
from trustscore.grounding.claims._syntax import BOUND_AFTER
from trustscore.grounding.claims._values import DIGITS, parse_number
from trustscore.grounding.claims._verdict import Outcome, Verdict

__all__ = ["bound_outcome", "bounds_apart", "changed_values", "denied_bounds", "opposite_bound", "with_bound"]

_CLOSE = 0.1
"""How far an estimate may be from what it estimates, as a share of it. It restates the number within
both that and half a unit of its last written digit ("about 200" restates 180 to 220, "around 2,100"
2,050 to 2,150, "about 6 seconds" 5.5 to 6.5); within either, it is no restatement and no
contradiction ("around 1,900" for 1,953; "about 100" for 149)."""
_FAR = 2.0
"""How many times its number a bound may be from the context's and still restate it."""


def _bound(holds: Callable[[float, float], bool], far: float = _FAR) -> Callable[[float, float], Outcome]:
    """A bound (``holds(n, v)``: the context's number ``v`` is on the side of the bound's ``n``):
    supported where it holds within a factor ``far``, unsupported where it holds farther."""

    def outcome(n: float, v: float) -> Outcome:
        if not holds(n, v):
            return "contradicted"
        return "supported" if max(n, v) <= far * min(n, v) else "unsupported"

    return outcome


def _estimate(side: int) -> Callable[[float, float], Outcome]:
    """An estimate (``side``: -1 for "nearly", the context's number at or under it; 1 for "just over"; 0
    either side), as close as :data:`_CLOSE` says."""

    def outcome(n: float, v: float) -> Outcome:
        if side * (v - n) < 0:
            return "contradicted"
        bounds = sorted((_CLOSE * n, 0.5 * 10.0 ** _last_digit(n)))
        if abs(v - n) <= bounds[0]:
            return "supported"
        return "unsupported" if abs(v - n) <= bounds[1] else "contradicted"

    return outcome


def _last_digit(n: float) -> int:
    """The power of ten of the last nonzero digit: 2 for 200, 2 for 2,100, -1 for 4.5."""
    return int(Decimal(repr(n)).normalize().as_tuple().exponent)


_ABOVE, _FROM = _bound(operator.lt), _bound(operator.le)
_BELOW, _TO = _bound(operator.gt), _bound(operator.ge, 1 + _CLOSE)
"""``_TO`` is a most ("up to 20 hours", "at most"), which says the number reaches it: met farther off,
"up to 20 hours" for 14, it is no restatement."""
_NEAR, _JUST_BELOW, _JUST_ABOVE = _estimate(0), _estimate(-1), _estimate(1)

_QUALIFIERS: dict[str, Callable[[float, float], Outcome]] = {
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
    "nearly": _JUST_BELOW,
    "almost": _JUST_BELOW,
    "just under": _JUST_BELOW,
    "just over": _JUST_ABOVE,
    "about": _NEAR,
    "around": _NEAR,
    "approximately": _NEAR,
    "roughly": _NEAR,
    "some": _NEAR,
    "circa": _NEAR,
    "close to": _NEAR,
    "estimated": _NEAR,
}
_DENIED: dict[str, str] = {
    "more than": "no more than",
    "over": "at most",
    "above": "at most",
    "in excess of": "at most",
    "less than": "no less than",
    "fewer than": "no fewer than",
    "under": "at least",
    "below": "at least",
}
"""A comparative bound under a denied predicate, as the bound the two make together ("do not take more
than 3": "no more than 3")."""
_SIDE = {"above": _ABOVE, "below": _BELOW, "above+": _FROM, "below+": _TO}
_APART = frozenset(
    [
        ("above", "below"),
        ("above", "below+"),
        ("above+", "below"),
        ("below", "above"),
        ("below+", "above"),
        ("below", "above+"),
    ]
)
"""Two bounds of one number that no value meets both of ("more than 3" and "no more than 3")."""
_EDGE_SHARED = frozenset([("above+", "below+"), ("below+", "above+")])
"""Two bounds of one number that only the number itself meets both of ("at least 18" and "18 or
younger"): said of one thing, a rule for adults is no rule for minors; said of two, they may be two
rules that agree ("bags of up to 23 kg are free", "bags of at least 23 kg are charged")."""
_LIGHT_VERBS = frozenset({"be", "have", None})
"""Predicates that say nothing of their own, or none read: a bound under one is said of what a bound
under any is."""
_BARE_NUMBER = re.compile(r"[\d.,%\s]+")
_WRITTEN_AFTER = re.compile(rf"\s+(?:or|and)\s+(?:{'|'.join(BOUND_AFTER)})\b", re.IGNORECASE)
"""A bound's words written after its number ("or younger")."""
_SPACED_MARK = re.compile(r"\s*([.,])\s*")


def bound_outcome(atom: Atom, stated: Atom | None) -> Outcome | None:
    """What the number ``stated`` in the atom's slot says of the atom's bound or estimate, or its bound of
    the atom's number; None where the atom is no bound and ``stated`` none, where the atom's predicate is
    negated ("has not over 5,000"), where the context's number is a date, or where the two are in units
    of no one quantity ("about 42 miles" against "42 kilometres": the number compared, not the bound)."""
    if stated is None or stated.kind == "date" or atom.negated:
        return None
    if not units_agree(atom, stated) and not same_quantity(atom.unit, stated.unit):
        return None
    theirs = _rule(stated.bound)
    if theirs is not None:
        return _against_bound(atom, stated, theirs)
    return _outcome(atom, in_units(stated, atom))


def _against_bound(atom: Atom, stated: Atom, rule: Callable[[float, float], Outcome]) -> Outcome | None:
    """What the context's bound (``rule``) says of the atom's number: a bare number on the bound's side
    is unsupported ("250 books" where it sold "no more than 300"), one off it contradicted ("450"); a
    bound of the same number the other way contradicts it ("more than 3" where it says "no more than 3").
    None where the numbers are the same otherwise, or the atom is another number's bound: they are
    compared as written."""
    theirs = in_units(stated, atom)
    if atom.number is None or theirs is None or not (0 < atom.number < math.inf and 0 < theirs < math.inf):
        return None
    if atom.number == theirs:
        return "contradicted" if bounds_apart(atom, stated) else None
    if _rule(atom.bound) is not None:
        return None
    return "contradicted" if rule(theirs, atom.number) == "contradicted" else "unsupported"


def bounds_apart(a: Atom, b: Atom) -> bool:
    """Bounds of one number that point away from each other (:data:`_APART`, :data:`_EDGE_SHARED`)."""
    sides = (_side(a.bound), _side(b.bound))
    return sides in _APART or sides in _EDGE_SHARED


def opposite_bound(atom: Atom, stated: list[Atom]) -> str | None:
    """How the context states the atom's number as the opposite bound ("not take more than 3" where the
    response takes "more than 3"), if it does."""
    for a in stated:
        sides = (_side(a.bound), _side(atom.bound))
        if (
            a.kind == atom.kind
            and units_agree(a, atom)
            and a.number == atom.number
            and (sides in _APART or (sides in _EDGE_SHARED and _one_predicate(a, atom)))
        ):
            written = a.text.lower()
            if a.predicate_text is not None and any(
                written.startswith(denied) and made == a.bound for denied, made in _DENIED.items()
            ):
                # a bound a denial made ("no more than", read from "not take more than 3") is written
                # with the denied predicate
                return f"{a.predicate_text} {a.text}"
            # a bound written after its number ("21 or over") is quoted as the bound it is
            return a.text if written.startswith(a.bound or "") else f"{a.bound} {a.text}"
    return None


def _one_predicate(a: Atom, b: Atom) -> bool:
    """The two bounds may be said of one thing: the same predicate, or "be" or "have" on one side
    ("be 18 or younger" against "be at least 18 years old")."""
    predicates = {a.predicate, b.predicate}
    return len(predicates) == 1 or bool(predicates & _LIGHT_VERBS)


def _side(bound: str | None) -> str | None:
    """Which side of its number a bound puts the value: "above" or "below", "above+" or "below+" where
    it may be the number itself ("at least", "up to"); None for an estimate or no bound."""
    rule = _rule(bound)
    return next((side for side, r in _SIDE.items() if rule is r), None)


def denied_bounds(atoms: list[Atom]) -> list[Atom]:
    """The atoms with each denial that bounds a number read as the bound it makes: "Do not take more than
    3 tablets in 24 hours" says "take no more than 3 tablets in 24 hours", so its numbers (the bounded
    one and the others of its clause) are not denied, and "no more than 3" restates it. Not a number of
    the clause's subject: "More than 10,000 have not survived" counts those who did not, it bounds
    nothing."""
    bounding = {
        (a.sentence, a.predicate)
        for a in atoms
        if a.negated
        and a.predicate is not None
        and (a.bound or "") in _DENIED
        and a.role not in ("nsubj", "nsubjpass")
    }
    return [
        replace(a, negated=False, bound=_DENIED.get(a.bound or "", a.bound))
        if a.negated and (a.sentence, a.predicate) in bounding
        else a
        for a in atoms
    ]


def with_bound(atom: Atom, text: str) -> Atom:
    """The atom with the bound's words the recogniser left out of it put back in its text and span
    ("under 400", not "400", in "400: the context says 420"'s place; "18 or younger", not "18")."""
    if atom.bound is None or atom.text.lower().startswith(atom.bound):
        return atom
    words = r"\s+".join(re.escape(w) for w in atom.bound.split())
    before = re.compile(rf"\b{words}\s*$", re.IGNORECASE)
    found = before.search(text, max(0, atom.start - 4 * len(atom.bound)), atom.start)
    if found is not None:
        return replace(atom, text=text[found.start() : atom.end], start=found.start())
    after = _WRITTEN_AFTER.match(text, atom.end)
    if after is None:
        return atom
    return replace(atom, text=text[atom.start : after.end()], end=after.end())


def changed_values(
    changes: list[Change], response: tuple[str, list[Atom]], context: tuple[str, list[Atom]]
) -> list[Change]:
    """The changes of copied sentences (each side: its text and atoms) that change what a number says,
    not only its words: not a bound or estimate the context's number meets ("more than 4,000 people"
    copied from "5,000 people"), nor the same temperature on another scale ("425°F" for "220 degrees
    Celsius"). Where the context writes the number as a bound too ("more than 50 staff" for "more than
    250 staff"; "over 20 years" for "over 25 years", however the parse reads "over"), it stays changed;
    a bare number inside the context's bound is no change of it ("350" for "more than 300")."""
    return [
        c
        for c in changes
        if not any(
            _met(c.verdict, response[0], a, context)
            or _converted(c.verdict, a, context[1])
            or _inside_bound(c.verdict, a, context[1])
            for a in response[1]
        )
    ]


def _inside_bound(change: Verdict, atom: Atom, stated: list[Atom]) -> bool:
    """The change overlaps a bare ``atom`` and replaces a bound of the context's that the atom's number
    lies inside ("sold 350 bikes" copied from "sold more than 300 bikes"): the context does not state
    it, nor another value (:func:`_against_bound`)."""
    replaced = _replaced(change, atom)
    return (
        replaced is not None
        and atom.bound is None
        and any(
            a.number == replaced
            and (rule := _rule(a.bound)) is not None
            and _against_bound(atom, a, rule) == "unsupported"
            for a in stated
        )
    )


def _converted(change: Verdict, atom: Atom, stated: list[Atom]) -> bool:
    """The change overlaps ``atom``, and the context's temperature it replaces ("180 degrees Celsius"
    where the response has "350°F"; not another of the context's) is the atom's on another scale."""
    replaced = _replaced(change, atom)
    return replaced is not None and any(a.number == replaced and in_scale(a, atom) for a in stated)


def _replaced(change: Verdict, atom: Atom) -> float | None:
    """The context's number a copy's change puts ``atom`` in the place of, where the change overlaps it."""
    if change.context is None or not (atom.start < change.end and change.start < atom.end):
        return None
    return parse_number(DIGITS.findall(_as_written(change.context))[:1])


def _outcome(atom: Atom, stated: float | None) -> Outcome | None:
    rule = _rule(atom.bound)
    if rule is None or atom.kind == "date" or atom.number is None or stated is None:
        return None
    if not (0 < atom.number < math.inf and 0 < stated < math.inf):
        return None
    return rule(atom.number, stated)


def _rule(bound: str | None) -> Callable[[float, float], Outcome] | None:
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
    stated = text[start : change.start] + _as_written(change.context) + text[change.end : end]
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
    return _rule(stated.bound) is not None or before[-len(bound.split()) :] == bound.split()


def _as_written(said: str) -> str:
    """A copy change's words, which the copy check joins token by token ("5 . 8", "1 , 200"), with
    their numbers as written ("5.8", "1,200")."""
    return _SPACED_MARK.sub(r"\1", said)
