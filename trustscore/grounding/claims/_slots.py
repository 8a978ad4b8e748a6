"""Whether two atoms could state one fact: the same kind of value, in units that measure one thing,
of one name group; whether two names are one name spelled otherwise; and the slot an atom fills in
its clause, where a name given as one example of several fills none."""

from __future__ import annotations

from difflib import SequenceMatcher

from trustscore.grounding.claims._atoms import Atom
from trustscore.grounding.claims._lexicon import unit
from trustscore.grounding.claims._numeric import of_days, same, same_quantity
from trustscore.grounding.claims._records import slot_unit
from trustscore.grounding.claims._syntax import EXAMPLE_SLOTS

__all__ = ["comparable", "counted_otherwise", "example_name", "restated", "same_role", "slot_of", "spelling"]

_AGENTS = frozenset({"person", "organisation", "place"})
"""Name groups the recogniser puts a person's name in ("the gardener Arthur Finch" as an
organisation): under the same predicate and role a person's name stands in for a name of these."""
_SAME_NAME = 0.8
"""Similarity of two names' letters above which one is a spelling of the other ("Calfornia")."""
_TIME_ROLES = frozenset({"in", "on", "npadvmod"})
"""The roles of a date that say when ("in 1977", "on 3 January 1977", a bare "January 3, 1977")."""
_OBJECT_ROLES = frozenset({"dobj", "nsubjpass"})
"""What a predicate acts on: an active clause's object, a passive one's subject."""


def comparable(atom: Atom, other: Atom) -> bool:
    """Whether ``other`` could state ``atom``'s fact another way: the same kind of value in the
    same unit or group, the same amount of money in another currency ("150 euros" for "150 dollars"; a
    different amount in another one may be a conversion) (a record's field only when the atom's unit
    names it)."""
    if other.slot is not None:
        return atom.kind == other.kind and atom.unit == slot_unit(other.slot)
    if atom.kind == "date":
        if other.date is None:
            return of_days(other, atom)  # "June 12" against "June 3 to June 9"
        # a date that agrees with the atom but gives fewer parts ("2 April" for "2 April 2019") is no rival
        return atom.date is not None and atom.date.speaks_of(other.date) and not atom.date.agrees(other.date)
    if atom.kind == "name":
        groups = {atom.group, other.group}
        return (
            other.kind == "name"
            and (len(groups) == 1 or ("person" in groups and groups <= _AGENTS))
            and not spelling(atom, other)
        )
    if atom.kind == "money":  # the same amount in another currency fills the same slot
        return other.kind == "money" and (atom.unit == other.unit or same(other.number or 0, atom.number))
    return (
        other.kind == atom.kind
        and same_quantity(atom.unit, other.unit)
        and (atom.unit is not None or _is_year(atom) == _is_year(other))
    )


def _is_year(atom: Atom) -> bool:
    return atom.number is not None and atom.number.is_integer() and 1500 <= atom.number <= 2099


def spelling(a: Atom, b: Atom) -> bool:
    """One name is part of the other, the initials of the other ("US", "United States"), or the same
    name spelled otherwise ("Calfornia")."""
    one, two = set(a.words), set(b.words)
    if one <= two or two <= one or _initials(a) == _letters(b) or _initials(b) == _letters(a):
        return True
    return SequenceMatcher(None, " ".join(a.words), " ".join(b.words)).ratio() >= _SAME_NAME


def _initials(atom: Atom) -> str:
    return "".join(w[0] for w in atom.words) if len(atom.words) > 1 else ""


def _letters(atom: Atom) -> str:
    return "".join(c for c in atom.text.casefold() if c.isalpha())


def example_name(atom: Atom) -> bool:
    """A name given as one example of several, which names no slot another name could fill: after
    "including", "such as" or "like", or the object of "include" ("the team includes Ann Lee"; not its
    subject, nor a place it names: "the tour included a stop in Paris")."""
    return atom.kind == "name" and (
        atom.role in EXAMPLE_SLOTS or (atom.predicate == "include" and atom.role == "dobj")
    )


def restated(stated: Atom, units: set[str | None] | None) -> bool:
    """The response states the context's value itself, so it is no rival: the same words (``units``:
    the units the response gives them, None where it says them nowhere) and no other unit ("18 pupils"
    does not restate "18 teachers": the two are exchanged in "420 teachers and 18 pupils", and each
    then meets the other in its slot)."""
    return units is not None and (stated.unit is None or None in units or stated.unit in units)


def same_role(atom: Atom, other: Atom) -> bool:
    """The same role in the clause; a number and a rival of the same stated unit need none."""
    if atom.unit is not None and atom.unit == other.unit:
        return True
    return atom.role is not None and slot_of(atom) == slot_of(other)


def slot_of(atom: Atom) -> str | None:
    """The atom's role, a date's time roles read as one ("in 1977", "on 3 January 1977" and the bare
    "incorporated January 3, 1977" all say when)."""
    return "when" if atom.kind == "date" and atom.role in _TIME_ROLES else atom.role


def counted_otherwise(atom: Atom, atoms: list[Atom]) -> bool:
    """Whether ``atoms`` state the atom's count under its predicate, in its slot (a passive's subject
    as the active's object), of a thing named in other words: "Three of the alleged attackers were
    killed" for "killed three militants". A count of the atom's noun under another predicate ("strikes
    against four militants") is then no rival: the statement of the same relation gives the same count.
    Both count things: a measure ("30 hours", "30 minutes") is no thing named otherwise."""
    if atom.kind != "number" or atom.number is None or atom.predicate is None or not _counted_noun(atom.unit):
        return False
    slot = _OBJECT_ROLES if atom.role in _OBJECT_ROLES else {atom.role}
    return any(
        a.kind == "number"
        and a.number is not None
        and same(a.number, atom.number)
        and a.predicate == atom.predicate
        and a.role in slot
        and a.negated == atom.negated
        and _counted_noun(a.unit)
        for a in atoms
    )


def _counted_noun(unit_word: str | None) -> bool:
    """A count's noun ("militant"), not a unit of measure ("hour", a temperature's "degree f")."""
    return unit_word is not None and not unit_word.startswith("degree") and unit(unit_word) is None
