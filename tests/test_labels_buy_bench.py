"""benchmarks.quality.labels_buy on generated rows: the cells it measures, and the shapes it compares."""

from __future__ import annotations

import numpy as np
import pytest

import benchmarks.quality.labels_buy as bench
from tests.test_calibration_claims_bench import SHAPES
from tests.test_multidomain_bench import DATASETS, generated
from trustscore.rows._scored import rows_from_dicts


def test_each_domain_is_measured_only_where_labels_leave_rows_to_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bench, "MIN_HELD_OUT", 30)
    raw = generated(per=80)
    for r in raw:
        r["question"], r["context"] = SHAPES[r["dataset"]]
    result = bench.measure(rows_from_dicts(raw), sizes=(25, 60), draws=2)
    assert set(result) == set(DATASETS)
    assert all(set(per) == {"25"} for per in result.values())  # 60 labels leave 20 rows: not measured
    for per in result.values():
        for d in per["25"]:
            assert d["claims"] == (d["reason"] is None) and (d["claims"] or d["claimed"] == 0)
            assert d["rows"] == 55 and set(d["shape_holds"]) == {"level+slope", "beta", "isotonic"}
    text = "\n".join(bench.report(result))
    assert "| ragtruth_qa | 25 | " in text and "| 25 | " in text


def test_beta_and_isotonic_recover_a_miscalibrated_base_score() -> None:
    rng = np.random.default_rng(0)
    truth = rng.uniform(0.05, 0.95, 4000)
    y = (rng.random(truth.size) < truth).astype(float)
    base = truth**3  # the base score badly under-confident of trustworthy answers
    lab, test = slice(0, 400), slice(400, None)
    for p in (
        bench.beta_fit(base[lab], y[lab], base[test]),
        bench.isotonic_fit(base[lab], y[lab], base[test], base[test]),
    ):
        assert np.abs(p - truth[test]).mean() < 0.08
