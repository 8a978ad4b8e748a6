from __future__ import annotations

import numpy as np
import pytest

from trustscore.stats._logistic import intercept_matching_mean, sigmoid


def test_the_intercept_makes_the_mean_probability_the_mean_target() -> None:
    rng = np.random.default_rng(0)
    margin = rng.normal(size=200)
    t = (rng.random(200) < 0.2).astype(np.float64)
    c = intercept_matching_mean(margin, t)
    assert np.mean(sigmoid(margin + c)) == pytest.approx(float(np.mean(t)), abs=1e-8)


def test_a_zero_margin_gives_the_log_odds_of_the_mean() -> None:
    t = np.array([1.0, 0.0, 0.0, 0.0])
    assert intercept_matching_mean(np.zeros(4), t) == pytest.approx(float(np.log(0.25 / 0.75)), abs=1e-8)
