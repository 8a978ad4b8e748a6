"""Whether the context states a value under the same relation as the response, or the opposite one:
the same predicate with the negation flipped ("did not open in May 1998"), an antonym ("open on
Sundays" where it says "closed on Sundays"), or the value as an exception ("Sunday included" where it
says "except Sunday"). Read on the atom where its predicate's polarity is its own (a value in a slot
other than the subject); a name's or a subject's is its clause's (:mod:`._polarity`)."""

from __future__ import annotations

from trustscore.grounding.claims._atoms import Atom, atom_verdict
from trustscore.grounding.claims._polarity import opposites
from trustscore.grounding.claims._slots import slot_of
from trustscore.grounding.claims._subjects import compatible
from trustscore.grounding.claims._verdict import Verdict

__all__ = ["related_there", "relation_verdict"]

_SUBJECT_ROLES = frozenset({"nsubj", "nsubjpass"})
_INCLUDING = frozenset({"include", "including", "with"})
"""The predicates and roles that include a value (against an exception: "Sunday included")."""


def relation_verdict(atom: Atom, matched: list[Atom]) -> Verdict:
    """A supported atom, unless every place the context states it says the opposite of the response:
    the same predicate with the negation flipped ("did not open in May 1998"), an antonym with the
    same negation ("open on Sundays" where the context says "closed on Sundays"), or the value as an
    exception where the response includes it ("Sunday included" where it says "except Sunday")."""
    if (
        matched
        and all(a.excluded != atom.excluded for a in matched)
        and not atom.negated
        and any(_same_exception(atom, a) for a in matched)
    ):
        said = f"except {matched[0].text}" if matched[0].excluded else matched[0].text
        return atom_verdict(atom, "contradicted", said).with_kind("negation")
    stated = [
        a
        for a in matched
        if a.predicate is not None and slot_of(a) == slot_of(atom) and compatible(a.subject, atom.subject)
    ]
    if (
        atom.predicate is None
        or not _relational(atom)  # what is said of a name or a subject is its clause's (see _polarity)
        or not stated
        or any(a.predicate == atom.predicate and a.denies == atom.denies for a in stated)
    ):
        return atom_verdict(atom, "supported")
    same = [a for a in stated if a.predicate == atom.predicate]
    if same:
        return atom_verdict(atom, "contradicted", f"{same[0].predicate_text} {same[0].text}").with_kind(
            "negation"
        )
    opposite = opposites(atom.predicate)
    other = [a for a in stated if a.predicate in opposite and a.denies == atom.denies]
    if other:
        said = f"{other[0].predicate_text} {other[0].text}"
        return atom_verdict(atom, "contradicted", said).with_kind("predicate")
    return atom_verdict(atom, "supported")


def _same_exception(atom: Atom, other: Atom) -> bool:
    """Whether one atom includes the value the other excepts in the same statement: under the same
    predicate ("open on Sunday" against "open every day except Sunday"), or said to be included ("Sunday
    included", "with Wayne"). A name the context excepts from one thing may do another ("incorporated
    without Wayne, who sold his share": "Wayne sold his share" is no inclusion)."""
    return atom.predicate == other.predicate or bool(_INCLUDING & {atom.predicate, atom.role})


def related_there(atom: Atom, matched: list[Atom]) -> bool:
    """Whether the context states the atom under its predicate or an antonym (its polarity is then
    read on the atom, not on its sentence)."""
    if atom.predicate is None or not _relational(atom):
        return False
    relations = opposites(atom.predicate) | {atom.predicate}
    return any(a.predicate in relations for a in matched)


def _relational(atom: Atom) -> bool:
    """A value whose predicate's polarity is read on the atom itself: a date, number or amount in a
    slot of its clause other than the subject ("did not open in May 1998")."""
    return atom.kind != "name" and atom.role not in _SUBJECT_ROLES
