"""The verdict on one atom or clause of the response: supported, contradicted or unsupported."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

__all__ = ["POLARITY_KINDS", "Outcome", "Verdict"]

Outcome = Literal["supported", "contradicted", "unsupported"]

POLARITY_KINDS = frozenset({"negation", "predicate"})
"""The verdict kinds of a statement's polarity (a negation or predicate the context states the other
way); every other kind is a value: a number, amount, percentage, date or name, or a material, colour
or season (:mod:`._copies`)."""


@dataclass(frozen=True)
class Verdict:
    """The outcome for one atom (or one clause's polarity) of the response."""

    kind: str
    """The atom's kind, or "negation" / "predicate" / "polarity" for a clause's polarity."""
    outcome: Outcome
    text: str
    start: int
    end: int
    context: str | None = None
    """What the context says instead (contradicted only)."""

    @property
    def of_polarity(self) -> bool:
        """A verdict on a statement's polarity (a negation, a predicate, or a clause's "polarity")."""
        return self.kind in POLARITY_KINDS or self.kind == "polarity"

    def overlaps(self, other: Verdict) -> bool:
        """The two verdicts speak of some of the same characters of the response."""
        return self.start < other.end and other.start < self.end

    def with_kind(self, kind: str) -> Verdict:
        return replace(self, kind=kind)

    @property
    def reason(self) -> str:
        if self.outcome == "contradicted":
            return f"{self.text}: the context says {self.context}"
        if self.outcome == "unsupported":
            return f"{self.text}: the context never states this {self.kind}"
        return f"{self.text}: stated in the context"
