"""Reports: a verb that attributes what its clause complement says ("police said", "Raltech said in a
statement that it had warned the authority"). A sentence that reports is about what it reports, and a
pronoun that is the reported clause's subject is the reporter (:mod:`._syntax` reads both)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trustscore.grounding.claims._negation import SUBJECTS

if TYPE_CHECKING:
    from spacy.tokens import Token

__all__ = ["REPORTING", "reported", "reporting"]

REPORTING = frozenset({"say", "tell", "report", "state", "announce", "add", "confirm", "claim", "write"})
"""Verbs that attribute what their clause complement says: the sentence is about the complement."""
_PRONOUNS = frozenset({"it", "he", "she", "they"})


def reported(root: Token) -> Token:
    """The clause a reporting verb reports ("lost" in "The driver lost control, police said"), else
    ``root``."""
    if root.lemma_ not in REPORTING:
        return root
    return next((c for c in root.children if c.dep_ == "ccomp"), root)


def reporting(predicate: Token) -> Token | None:
    """The reporting verb whose subject a reported clause's pronoun stands for ("the authority says it
    warned Raltech": "says", whose subject is the authority), or None. Only in reported speech, the
    clause after its verb with no quotation mark between: in a quotation ('"... because he's never had a
    baby," Vergara said') the pronoun is someone the speaker speaks of."""
    head = predicate.head
    if predicate.dep_ != "ccomp" or head.lemma_ not in REPORTING or predicate.i < head.i:
        return None
    if any(t.is_quote for t in head.doc[head.i : predicate.i]):
        return None
    pronoun = any(c.dep_ in SUBJECTS and c.lower_ in _PRONOUNS for c in predicate.children)
    return head if pronoun else None
