"""What ``calibrated=True`` promises, and the check of that promise on labeled rows.

The promise: on data of one kind (one task, one data set: never a pooled mixture, where errors of
opposite sign cancel), the reliability curve of the rows that claim calibrated lies within
:data:`ECE_LIMIT` (expected calibration error over :data:`ECE_BINS` equal-mass bins).

ECE measured on n rows is never 0, even for a perfectly calibrated score: :func:`noise_floor` gives
the ECE such a score shows at n rows (the table in docs/calibration.md is printed by it). So the check
says **holds** where the claiming rows' ECE is within :data:`ECE_LIMIT` or within the floor's 90th
percentile at their count, **broken** beyond both, and **too few rows** under :data:`MIN_CLAIMS`
claiming rows, where the curve cannot be measured well enough to refute the claim.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from pydantic import BaseModel, ConfigDict

from trustscore.stats._metrics import auroc, ece

__all__ = [
    "ECE_BINS",
    "ECE_LIMIT",
    "FLOOR_DRAWS",
    "MIN_CLAIMS",
    "ClaimCheck",
    "NoiseFloor",
    "Verdict",
    "check_claims",
    "check_claims_by",
    "noise_floor",
    "verdict",
]

ECE_LIMIT = 0.10
ECE_BINS = 10
MIN_CLAIMS = 50
FLOOR_DRAWS = 2000
"""Simulated data sets per row count in :func:`noise_floor` (the 90th percentile moves by about
0.002 between seeds at this count)."""
FLOOR_SIMULATED = 5000
"""Largest row count simulated; beyond it the floor is scaled as 1/sqrt(n) from there (it is far
below :data:`ECE_LIMIT` by then)."""

Verdict = Literal["holds", "broken", "too few rows"]


class NoiseFloor(BaseModel):
    """ECE of a perfectly calibrated score on ``n`` rows: its median and 90th percentile."""

    model_config = ConfigDict(frozen=True)

    n: int
    median: float
    p90: float


@lru_cache(maxsize=256)
def noise_floor(n: int, n_bins: int = ECE_BINS) -> NoiseFloor:
    """The ECE (``n_bins`` equal-mass bins) that a perfectly calibrated score shows on ``n`` rows.

    Scores drawn from Beta(2, 2), each label drawn from its score (so the score is exactly the
    probability), :data:`FLOOR_DRAWS` data sets with a fixed seed: the same numbers every call.
    Binning as :func:`trustscore.stats._metrics.ece` with ``strategy="mass"`` does.
    """
    if n < n_bins:
        raise ValueError(f"the noise floor needs at least {n_bins} rows, got {n}")
    if n > FLOOR_SIMULATED:
        at = noise_floor(FLOOR_SIMULATED, n_bins)
        shrink = (FLOOR_SIMULATED / n) ** 0.5
        return NoiseFloor(n=n, median=at.median * shrink, p90=at.p90 * shrink)
    rng = np.random.default_rng(20_061)
    p = np.sort(rng.beta(2.0, 2.0, (FLOOR_DRAWS, n)), axis=1)
    y = (rng.random((FLOOR_DRAWS, n)) < p).astype(np.float64)
    starts = np.flatnonzero(np.diff((np.arange(n) * n_bins) // n, prepend=-1))
    gaps = np.abs(np.add.reduceat(y - p, starts, axis=1)).sum(axis=1) / n
    return NoiseFloor(n=n, median=float(np.median(gaps)), p90=float(np.percentile(gaps, 90)))


class ClaimCheck(BaseModel):
    model_config = ConfigDict(frozen=True)

    n: int
    claimed: int
    """Rows whose score claims to be calibrated."""
    ece_claimed: float | None
    """ECE among the claiming rows (None below :data:`ECE_BINS` of them)."""
    ece_all: float | None
    auroc: float | None
    floor_p90: float | None = None
    """90th percentile of a perfectly calibrated score's ECE at ``claimed`` rows (None below
    :data:`ECE_BINS` of them)."""
    verdict: Verdict

    @property
    def holds(self) -> bool:
        """Not refuted: "holds" or "too few rows"."""
        return self.verdict != "broken"

    @property
    def claimed_share(self) -> float:
        return self.claimed / self.n if self.n else 0.0


def _ece(y: np.ndarray, p: np.ndarray) -> float | None:
    return ece(y, p, n_bins=ECE_BINS, strategy="mass").value if y.size >= ECE_BINS else None


def verdict(ece_claimed: float | None, claimed: int) -> Verdict:
    """The claim's verdict from the claiming rows' ECE and count (see the module docstring)."""
    if claimed < MIN_CLAIMS or ece_claimed is None:
        return "too few rows"
    return "holds" if ece_claimed <= max(ECE_LIMIT, noise_floor(claimed).p90) else "broken"


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
        floor_p90=noise_floor(n_claimed).p90 if n_claimed >= ECE_BINS else None,
        verdict=verdict(e_claimed, n_claimed),
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
