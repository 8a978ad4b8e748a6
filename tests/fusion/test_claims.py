"""The calibrated promise, checked per kind of data: never pooled."""

from __future__ import annotations

import numpy as np

from trustscore.fitting.claims import ECE_LIMIT, MIN_CLAIMS, check_claims, check_claims_by


def _domain(rng: np.random.Generator, n: int, rate: float, said: float) -> tuple[np.ndarray, np.ndarray]:
    """n rows, a share ``rate`` of them positive, all scored about ``said``."""
    return (rng.random(n) < rate).astype(float), said + rng.normal(0, 0.005, n)


def test_a_pooled_mixture_can_look_calibrated_while_each_domain_is_not() -> None:
    rng = np.random.default_rng(0)
    y1, p1 = _domain(rng, 400, 0.2, 0.5)
    y2, p2 = _domain(rng, 400, 0.8, 0.5)
    y, p = np.r_[y1, y2], np.r_[p1, p2]
    claimed = np.ones(y.size, dtype=bool)
    pooled = check_claims(y, p, claimed)
    assert pooled.holds and pooled.ece_claimed is not None and pooled.ece_claimed < ECE_LIMIT
    per = check_claims_by(y, p, claimed, ["a"] * 400 + ["b"] * 400)
    assert set(per) == {"a", "b"}
    assert not per["a"].holds and not per["b"].holds
    assert per["a"].ece_claimed is not None and per["a"].ece_claimed > 0.25


def test_only_the_rows_that_claim_are_held_to_the_promise() -> None:
    rng = np.random.default_rng(1)
    y_good, p_good = _domain(rng, 300, 0.3, 0.3)
    y_bad, p_bad = _domain(rng, 300, 0.9, 0.1)
    y, p = np.r_[y_good, y_bad], np.r_[p_good, p_bad]
    claimed = np.r_[np.ones(300, dtype=bool), np.zeros(300, dtype=bool)]
    check = check_claims(y, p, claimed)
    assert check.claimed == 300 and check.claimed_share == 0.5 and check.holds
    assert check.ece_all is not None and check.ece_all > ECE_LIMIT


def test_fewer_than_the_minimum_claiming_rows_cannot_break_the_promise() -> None:
    rng = np.random.default_rng(2)
    y, p = _domain(rng, 200, 0.9, 0.1)
    few = np.zeros(200, dtype=bool)
    few[: MIN_CLAIMS - 1] = True
    assert check_claims(y, p, few).holds
    few[:MIN_CLAIMS] = True
    assert not check_claims(y, p, few).holds
    none = check_claims(y, p, np.zeros(200, dtype=bool))
    assert none.holds and none.claimed == 0 and none.ece_claimed is None
