"""What a judge costs a model server per sample, worst case: part of a judge's registration, so
``trustscore serve`` can tell whether the configured judges fit the budget on a CPU without knowing
any judge by name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["CostModel", "JudgeCost"]


@dataclass(frozen=True)
class JudgeCost:
    requests: int
    """Requests per sample, continuations included (each n-sampled request counts once)."""
    sequences: int
    """Sequences the server decodes (a request with n=5 decodes 5)."""
    decode_tokens: int
    """Tokens decoded at most."""


CostModel = Callable[[Any], JudgeCost]
"""``(the judge's config section) -> its worst case for one sample``."""
