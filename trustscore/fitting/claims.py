"""What ``calibrated=True`` promises, and the check of that promise on labeled rows.

The promise: on data of one kind (one task, one data set: never a pooled mixture, where errors of
opposite sign cancel), the reliability curve of the rows that claim calibrated lies within
:data:`ECE_LIMIT` (expected calibration error over :data:`ECE_BINS` equal-mass bins). With fewer than
:data:`MIN_CLAIMS` rows claiming, the curve cannot be measured well enough to refute it, so the check
says it holds and reports the count.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from pydantic import BaseModel, ConfigDict

from trustscore.stats.metrics import auroc, ece

__all__ = ["ECE_BINS", "ECE_LIMIT", "MIN_CLAIMS", "ClaimCheck", "check_claims", "check_claims_by"]

ECE_LIMIT = 0.10
ECE_BINS = 10
MIN_CLAIMS = 50


class ClaimCheck(BaseModel):
    model_config = ConfigDict(frozen=True)

    n: int
    claimed: int
    """Rows whose score claims to be calibrated."""
    ece_claimed: float | None
    """ECE among the claiming rows (None below :data:`ECE_BINS` of them)."""
    ece_all: float | None
    auroc: float | None
    holds: bool
    """ECE among the claiming rows <= :data:`ECE_LIMIT`, or fewer than :data:`MIN_CLAIMS` claim."""

    @property
    def claimed_share(self) -> float:
        return self.claimed / self.n if self.n else 0.0


def _ece(y: np.ndarray, p: np.ndarray) -> float | None:
    return ece(y, p, n_bins=ECE_BINS, strategy="mass").value if y.size >= ECE_BINS else None


def check_claims(y: ArrayLike, p: ArrayLike, claimed: ArrayLike) -> ClaimCheck:
    """The promise on one kind of data: ``y`` 0/1 labels, ``p`` P(label = 1), ``claimed`` whether each
    row claims calibrated."""
    yy = np.asarray(y, dtype=np.float64)
    pp = np.asarray(p, dtype=np.float64)
    cc = np.asarray(claimed, dtype=bool)
    n_claimed = int(cc.sum())
    e_claimed = _ece(yy[cc], pp[cc])
    both = 0 < yy.sum() < yy.size
    return ClaimCheck(
        n=int(yy.size),
        claimed=n_claimed,
        ece_claimed=e_claimed,
        ece_all=_ece(yy, pp),
        auroc=auroc(yy, pp) if both else None,
        holds=n_claimed < MIN_CLAIMS or (e_claimed is not None and e_claimed <= ECE_LIMIT),
    )


def check_claims_by(
    y: ArrayLike, p: ArrayLike, claimed: ArrayLike, groups: Sequence[str]
) -> dict[str, ClaimCheck]:
    """:func:`check_claims` per value of ``groups`` (a task or data set column), sorted by value."""
    yy = np.asarray(y, dtype=np.float64)
    pp = np.asarray(p, dtype=np.float64)
    cc = np.asarray(claimed, dtype=bool)
    g = np.asarray(list(groups), dtype=object)
    return {str(v): check_claims(yy[g == v], pp[g == v], cc[g == v]) for v in sorted(set(g.tolist()))}
