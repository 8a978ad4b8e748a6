"""Parsing helpers shared by the judges: find a verdict token by position and read its top logprobs.

A verdict token is located right after the LAST occurrence of a marker ("Score:", "[RESULT]", ...) in the
generated tokens, never as the first matching digit or word anywhere (a digit inside the reasoning would
otherwise be read as the rating; see cleanlab/tlm ``compute_score_expected_value`` for that pitfall).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from trustscore.llm._protocol import TokenLogprob

__all__ = [
    "RATING_FLOOR",
    "RATING_LABELS",
    "LocatedToken",
    "expected_rating",
    "label_distribution",
    "locate_after",
    "quote",
    "rating_digit",
    "to_unit",
]

QUOTE_CHARS = 200
FILLER = " \t\r\n\"'*([{:`"
"""Characters that may sit between a marker and the verdict: spaces, quotes, markdown bold, brackets."""


def quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """What a judge said, shortened for an error message."""
    text = text.strip()
    shown = text if len(text) <= limit else text[:limit] + "..."
    return repr(shown) if text else "(empty output)"


@dataclass(frozen=True)
class LocatedToken:
    token: TokenLogprob
    prefix_len: int
    """Characters at the start of this token that belong to the marker, not to the verdict."""

    def alternatives(self) -> list[tuple[str, float]]:
        """(verdict text, logprob) for the generated token and each top alternative, marker part removed.

        Alternatives that do not share the generated token's marker part cannot be read and are skipped.
        """
        head = self.token.token[: self.prefix_len]
        seen: dict[str, float] = {self.token.token: self.token.logprob}
        for alt in self.token.top_logprobs:
            seen.setdefault(alt.token, alt.logprob)
        return [(tok[len(head) :], lp) for tok, lp in seen.items() if tok.startswith(head)]


def locate_after(tokens: list[TokenLogprob], marker: str) -> LocatedToken | None:
    """The first token carrying verdict text after the last ``marker`` (case-insensitive), or None.

    An empty ``marker`` means the first token with verdict text at all (a constrained one-word reply).
    """
    text = "".join(t.token for t in tokens)
    at = text.lower().rfind(marker.lower()) if marker else 0
    if at < 0:
        return None
    pos = at + len(marker)
    start = 0
    for tok in tokens:
        end = start + len(tok.token)
        if end > pos:
            offset = max(pos - start, 0)
            if tok.token[offset:].lstrip(FILLER):
                return LocatedToken(tok, offset)
            pos = end
        start = end
    return None


def label_distribution(
    located: LocatedToken, classify: Callable[[str], str | None], *, floor: float = 0.0, labels: list[str]
) -> dict[str, float] | None:
    """P(label) at the located token, over the alternatives ``classify`` recognises, renormalised.

    Probability of variants of one label (" PASS", "Pass", "PA") is summed. ``floor`` gives each label a
    minimum mass before normalising (cleanlab/tlm floors rating digits at 1e-3). None when no alternative
    is recognised, so the caller falls back to the text.
    """
    mass = dict.fromkeys(labels, 0.0)
    recognised = False
    for text, logprob in located.alternatives():
        label = classify(text)
        if label is not None and label in mass:
            mass[label] += math.exp(logprob)
            recognised = True
    if not recognised:
        return None
    mass = {k: max(v, floor) for k, v in mass.items()}
    total = sum(mass.values())
    if total <= 0.0:
        return None
    return {k: v / total for k, v in mass.items()}


def rating_digit(text: str) -> str | None:
    """'4', ' 4', '4.', '**4' -> '4'; '10', '45', '4.5' -> None (digits 1-5 only)."""
    core = text.strip(FILLER)
    if not core or core[0] not in "12345":
        return None
    tail = core[1:]
    if tail[:1].isdigit() or (tail[:1] in ".," and tail[1:2].isdigit()):
        return None
    return core[0]


def expected_rating(distribution: dict[str, float]) -> float:
    """Sum of rating x probability for a distribution over '1'..'5'."""
    return sum(int(k) * p for k, p in distribution.items())


RATING_LABELS = ["1", "2", "3", "4", "5"]
RATING_FLOOR = 1e-3


def to_unit(x: float) -> float:
    """Clip float noise so a value computed in [0, 1] stays there."""
    return min(1.0, max(0.0, x))
