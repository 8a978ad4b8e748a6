"""Metrics against scikit-learn (ties included) and against known answers."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.calibration import calibration_curve

from trustscore.stats import _metrics as m


def _data(seed: int, n: int = 300, ties: bool = False) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(float)
    p = np.clip(0.35 * y + rng.random(n) * 0.65, 0, 1)
    if ties:
        p = np.round(p, 1)  # few distinct values: many ties across both classes
    return y, p


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ranking_and_loss_metrics_match_sklearn(seed: int, ties: bool) -> None:
    y, p = _data(seed, ties=ties)
    assert m.auroc(y, p) == pytest.approx(skm.roc_auc_score(y, p), abs=1e-12)
    assert m.average_precision(y, p) == pytest.approx(skm.average_precision_score(y, p), abs=1e-12)
    assert m.brier(y, p) == pytest.approx(skm.brier_score_loss(y, p), abs=1e-12)
    q = np.clip(p, 0.01, 0.99)
    assert m.log_loss(y, q) == pytest.approx(skm.log_loss(y, q), abs=1e-12)
    fpr, tpr = m.roc_curve(y, p)
    sk_fpr, sk_tpr, _ = skm.roc_curve(y, p, drop_intermediate=False)
    np.testing.assert_allclose(fpr, sk_fpr)
    np.testing.assert_allclose(tpr, sk_tpr)


@pytest.mark.parametrize("threshold", [0.3, 0.5, 0.8])
def test_threshold_metrics_match_sklearn(threshold: float) -> None:
    y, p = _data(3, ties=True)
    pred = (p >= threshold).astype(int)
    got = m.threshold_metrics(y, p, threshold)
    assert got.precision == pytest.approx(skm.precision_score(y, pred, zero_division=0))
    assert got.recall == pytest.approx(skm.recall_score(y, pred, zero_division=0))
    assert got.f1 == pytest.approx(skm.f1_score(y, pred, zero_division=0))


def test_threshold_metrics_with_no_predicted_positive_are_zero_not_nan() -> None:
    got = m.threshold_metrics([0, 1, 1], [0.1, 0.2, 0.3], 0.9)
    assert (got.precision, got.recall, got.f1) == (0.0, 0.0, 0.0)


def test_best_f1_is_the_maximum_over_all_thresholds() -> None:
    y, p = _data(4, ties=True)
    best = m.best_f1(y, p)
    brute = max(skm.f1_score(y, (p >= t).astype(int)) for t in np.unique(p))
    assert best.f1 == pytest.approx(brute)
    assert m.threshold_metrics(y, p, best.threshold).f1 == pytest.approx(best.f1)


def test_auroc_known_answers_and_ties_count_half() -> None:
    assert m.auroc([0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4]) == 1.0
    assert m.auroc([0, 0, 1, 1], [0.4, 0.3, 0.2, 0.1]) == 0.0
    assert m.auroc([0, 1], [0.5, 0.5]) == 0.5


def test_one_class_is_refused_with_a_clear_error() -> None:
    with pytest.raises(ValueError, match="both classes"):
        m.auroc([1, 1, 1], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="empty"):
        m.brier([], [])
    with pytest.raises(ValueError, match="0/1"):
        m.brier([0, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="finite"):
        m.brier([0, 1], [0.1, float("nan")])


@pytest.mark.parametrize("strategy, sk_strategy", [("width", "uniform"), ("mass", "quantile")])
def test_reliability_curve_matches_sklearn(strategy: m.BinStrategy, sk_strategy: str) -> None:
    rng = np.random.default_rng(5)
    p = rng.random(400)  # continuous scores: quantile edges fall between rows
    y = (rng.random(400) < p).astype(float)
    curve = m.reliability_curve(y, p, n_bins=8, strategy=strategy)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=8, strategy=sk_strategy)
    np.testing.assert_allclose(curve.fraction_positive, prob_true, atol=1e-12)
    np.testing.assert_allclose(curve.mean_predicted, prob_pred, atol=1e-12)
    assert curve.n_bins == 8 and sum(curve.count) == 400


def test_ece_known_answer_and_states_its_bins() -> None:
    # Bin [0.2, 0.3): p = 0.2 twice, one positive -> gap 0.3; bin [0.9, 1]: p = 0.9 twice, both -> 0.1.
    r = m.ece([0, 1, 1, 1], [0.2, 0.2, 0.9, 0.9], n_bins=10, strategy="width")
    assert r.value == pytest.approx(0.5 * 0.3 + 0.5 * 0.1)
    assert (r.n_bins, r.strategy) == (10, "width")


def test_ece_of_calibrated_scores_is_small_and_of_distorted_is_large() -> None:
    rng = np.random.default_rng(6)
    p = rng.random(20000)
    y = (rng.random(20000) < p).astype(float)
    assert m.ece(y, p).value < 0.02
    assert m.ece(y, p, strategy="mass").value < 0.02
    assert m.ece(y, p**3).value > 0.1


def test_bootstrap_ci_is_seeded_and_brackets_the_estimate() -> None:
    y, p = _data(7)
    a = m.bootstrap_ci(m.auroc, y, p, n_boot=200, seed=3)
    b = m.bootstrap_ci(m.auroc, y, p, n_boot=200, seed=3)
    c = m.bootstrap_ci(m.auroc, y, p, n_boot=200, seed=4)
    assert a == b and a != c
    assert a.low < m.auroc(y, p) < a.high
    groups = [i // 6 for i in range(y.size)]
    g = m.bootstrap_ci(m.auroc, y, p, n_boot=200, seed=3, groups=groups)
    assert g.resampled == "groups" and g.low < g.high


def test_grouped_report_has_each_group_and_the_macro_mean() -> None:
    y, p = _data(8, n=200)
    groups = ["a" if i % 3 else "b" for i in range(200)]
    report = m.evaluate_grouped(y, p, groups, by="task")
    assert set(report.groups) == {"a", "b"}
    ga = np.array(groups) == "a"
    assert report.groups["a"].auroc == pytest.approx(skm.roc_auc_score(y[ga], p[ga]))
    a, b = report.groups["a"].auroc, report.groups["b"].auroc
    assert a is not None and b is not None
    expected = (a + b) / 2
    assert report.macro["auroc"] == pytest.approx(expected)
    assert report.pooled.n == 200


def test_a_single_class_group_reports_none_instead_of_failing() -> None:
    report = m.evaluate_grouped([0, 1, 1, 1], [0.1, 0.9, 0.8, 0.7], ["a", "a", "b", "b"])
    assert report.groups["b"].auroc is None
    assert report.macro["auroc"] == 1.0


def test_grouped_report_can_carry_cluster_bootstrap_intervals() -> None:
    y, p = _data(9, n=240)
    groups = ["a" if i % 2 else "b" for i in range(240)]
    clusters = [i // 6 for i in range(240)]
    report = m.evaluate_grouped(y, p, groups, ci=True, clusters=clusters, n_boot=200)
    assert report.pooled.auroc_ci is not None and report.pooled.auroc_ci.resampled == "groups"
    assert report.groups["a"].auroc_ci is not None
    assert report.pooled.auroc_ci.low < report.pooled.auroc < report.pooled.auroc_ci.high  # type: ignore[operator]
