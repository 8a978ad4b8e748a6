"""Per-signal calibrators: known answers, parity with scikit-learn, JSON round trips."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression

from trustscore.fusion._maps import (
    BetaCalibrator,
    IsotonicCalibrator,
    PlattCalibrator,
    TemperatureCalibrator,
    calibrator_from_dict,
    fit_calibrator_kind,
    logit,
)
from trustscore.stats._metrics import ece

KINDS = ["platt", "temperature", "beta", "isotonic"]


def _calibrated(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, n)
    return p, (rng.random(n) < p).astype(float)


@pytest.mark.parametrize("kind", KINDS)
def test_a_perfectly_calibrated_input_stays_calibrated(kind: str) -> None:
    p, y = _calibrated(20000, 0)
    cal = fit_calibrator_kind(kind, p, y)  # type: ignore[arg-type]
    p_test, y_test = _calibrated(20000, 1)
    out = cal.predict(p_test)
    assert ece(y_test, out).value < 0.02
    grid = np.linspace(0.05, 0.95, 19)
    assert np.max(np.abs(cal.predict(grid) - grid)) < 0.06


def test_parametric_calibrators_recover_the_identity_exactly_in_their_parameters() -> None:
    p, y = _calibrated(50000, 2)
    platt = PlattCalibrator.fit(p, y)
    assert platt.a == pytest.approx(1.0, abs=0.05) and platt.b == pytest.approx(0.0, abs=0.05)
    assert TemperatureCalibrator.fit(p, y).temperature == pytest.approx(1.0, abs=0.05)
    beta = BetaCalibrator.fit(p, y)
    assert (beta.a, beta.b, beta.c) == pytest.approx((1.0, 1.0, 0.0), abs=0.08)


@pytest.mark.parametrize("kind", ["beta", "isotonic"])
def test_a_monotone_distortion_is_undone(kind: str) -> None:
    p, y = _calibrated(20000, 3)
    distorted = p**3
    assert ece(y, distorted).value > 0.15
    cal = fit_calibrator_kind(kind, distorted, y)  # type: ignore[arg-type]
    p_test, y_test = _calibrated(20000, 4)
    assert ece(y_test, cal.predict(p_test**3)).value < 0.03


def test_temperature_does_not_change_the_ranking_and_sharpens_underconfident_scores() -> None:
    rng = np.random.default_rng(5)
    z = rng.normal(0, 2, 5000)
    y = (rng.random(5000) < 1 / (1 + np.exp(-z))).astype(float)
    soft = 1 / (1 + np.exp(-z / 3))  # underconfident: true temperature 1/3
    t = TemperatureCalibrator.fit(soft, y)
    assert t.temperature == pytest.approx(1 / 3, rel=0.1)
    order = np.argsort(soft)
    assert np.all(np.diff(t.predict(soft)[order]) >= 0)


def test_platt_matches_sklearn_logistic_regression_on_the_logit() -> None:
    rng = np.random.default_rng(6)
    p = rng.uniform(0.01, 0.99, 2000)
    y = (rng.random(2000) < p**2).astype(float)
    ours = PlattCalibrator.fit(p, y)
    sk = LogisticRegression(C=1e8, tol=1e-12, max_iter=10000).fit(logit(p)[:, None], y)
    assert ours.a == pytest.approx(sk.coef_[0, 0], rel=1e-4)
    assert ours.b == pytest.approx(sk.intercept_[0], rel=1e-4, abs=1e-6)


def test_isotonic_matches_sklearn_including_ties_and_clipping() -> None:
    rng = np.random.default_rng(7)
    p = np.round(rng.random(3000), 2)  # many tied scores
    y = (rng.random(3000) < p).astype(float)
    ours = IsotonicCalibrator.fit(p, y)
    sk = IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1).fit(p, y)
    grid = np.linspace(0, 1, 1001)
    np.testing.assert_allclose(ours.predict(grid), sk.predict(grid), atol=1e-12)
    np.testing.assert_allclose(ours.predict(p), sk.predict(p), atol=1e-12)


def test_beta_keeps_the_map_monotone_when_one_parameter_would_go_negative() -> None:
    rng = np.random.default_rng(8)
    p = rng.uniform(0.01, 0.99, 5000)
    # True probability rises only near p -> 1: the unconstrained fit wants a < 0.
    y = (rng.random(5000) < np.where(p > 0.8, 0.9, 0.2)).astype(float)
    beta = BetaCalibrator.fit(p, y)
    assert beta.a >= 0 and beta.b >= 0
    assert np.all(np.diff(beta.predict(np.linspace(0, 1, 200))) >= -1e-15)


@pytest.mark.parametrize("kind", KINDS)
def test_json_round_trip_is_exact(kind: str) -> None:
    p, y = _calibrated(500, 9)
    cal = fit_calibrator_kind(kind, p, y)  # type: ignore[arg-type]
    back = calibrator_from_dict(json.loads(json.dumps(cal.to_dict())))
    assert back == cal
    grid = np.linspace(0, 1, 101)
    assert np.array_equal(back.predict(grid), cal.predict(grid))


@pytest.mark.parametrize(
    "bad, match",
    [
        ({"kind": "magic", "a": 1.0}, "not a valid calibrator"),
        ({"kind": "platt", "a": 1.0}, "not a valid calibrator"),
        ({"kind": "temperature", "temperature": -1.0}, "not a valid calibrator"),
        ({"kind": "isotonic", "x": [0.5, 0.2], "y": [0.1, 0.2]}, "strictly increasing"),
        ({"kind": "isotonic", "x": [0.1, 0.2], "y": [0.5, 0.2]}, "non-decreasing"),
        ({"kind": "platt", "a": 1.0, "b": 0.0, "extra": 1}, "not a valid calibrator"),
    ],
)
def test_invalid_dicts_are_refused(bad: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        calibrator_from_dict(bad)


def test_bad_training_input_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="both labels"):
        PlattCalibrator.fit([0.1, 0.2], [1, 1])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        PlattCalibrator.fit([0.1, 1.2], [0, 1])
    with pytest.raises(ValueError, match="differ in length"):
        BetaCalibrator.fit([0.1, 0.2, 0.3], [0, 1])
    with pytest.raises(ValueError, match="backwards"):
        TemperatureCalibrator.fit([0.9, 0.8, 0.2, 0.1], [0, 0, 1, 1])
    with pytest.raises(ValueError, match="unknown calibrator kind"):
        fit_calibrator_kind("magic", [0.1], [0])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="finite"):
        IsotonicCalibrator.fit([0.1, float("nan")], [0, 1])
