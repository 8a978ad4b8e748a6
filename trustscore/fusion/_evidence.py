"""Evidence that decides: a noisy-OR of sure findings over the fused model's score.

A linear model adds a finding to the log-odds like any other number, so a contradicted fact is worth
the same shift whether the rest of the answer is copied from the context or not, and strong overlap
outweighs it. An :class:`EvidenceTerm` says instead: when this count is above zero (the claims signal
found a number, date or name the context states otherwise), the answer is wrong with probability
``precision``, independently of what the other features say. With ``P`` the linear model's
P(trustworthy) and ``e_k`` = 1 where term ``k`` fired::

    P(trustworthy) = P * prod_k (1 - precision_k) ** e_k

the noisy-OR of independent causes of an untrustworthy answer (Pearl, 1988): a finding whose fitted
precision is above 0.5 puts the answer under 0.5 whatever the overlap, and one that is rarely right
barely moves it. Each precision is fitted jointly with the linear weights (``trustscore.fitting``),
never set by hand. A missing signal fires nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["EvidenceTerm", "evidence_factor", "fired"]


class EvidenceTerm(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    feature: str = Field(min_length=1)
    """The key of one of the model's features (a count, e.g. ``claims:raw.contradicted_facts|identity``):
    the term fires where its raw number is above zero."""
    precision: float = Field(ge=0, lt=1)
    """P(untrustworthy) that this finding alone carries: the answer's score is multiplied by
    ``1 - precision`` where it fires."""


def fired(raw: NDArray[np.float64]) -> NDArray[np.float64]:
    """1.0 where a raw count is above zero, 0.0 elsewhere (a missing count fires nothing)."""
    return np.where(np.isnan(raw), 0.0, (raw > 0).astype(np.float64))


def evidence_factor(
    terms: Sequence[EvidenceTerm], keys: Sequence[str], raw: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Per row, the product of ``1 - precision`` over the terms that fire (1.0 where none does);
    ``keys`` are the feature keys in the order of ``raw``'s columns."""
    factor = np.ones(raw.shape[0])
    for term in terms:
        factor *= 1.0 - term.precision * fired(raw[:, list(keys).index(term.feature)])
    return factor
