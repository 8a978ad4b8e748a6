"""fit_calibrator's intercept per data set: the weights stop learning which data set hallucinates more."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from trustscore import InputError
from trustscore.fitting import FitOptions, fit_calibrator
from trustscore.rows._scored import rows_from_dicts

FEATURES = ["lynx|identity", "lynx:raw.offset|identity"]


def pooled_rows(per: int = 300, seed: int = 0) -> list[dict[str, Any]]:
    """Two data sets: inside each, only ``lynx`` tells faithful from hallucinated; ``offset`` is a
    property of the data set (high in the one that hallucinates more) and carries no signal inside."""
    rng = np.random.default_rng(seed)
    rows = []
    for dataset, rate, offset in (("news", 0.2, 0.0), ("forum", 0.8, 1.0)):
        for i in range(per):
            hallucinated = bool(rng.random() < rate)
            value = float(np.clip(rng.normal(0.35 if hallucinated else 0.65, 0.15), 0, 1))
            rows.append(
                {
                    "id": f"{dataset}-{i}",
                    "score": None,
                    "calibrated": False,
                    "signals": {
                        "lynx": {
                            "value": value,
                            "raw": {"offset": offset + rng.normal(0, 0.1)},
                            "version": "v",
                        },
                    },
                    "hallucinated": hallucinated,
                    "dataset": dataset,
                    "source_id": f"{dataset}-{i // 3}",
                }
            )
    return rows


def fit(intercept_by: str | None, **options: Any):  # type: ignore[no-untyped-def]
    rows = rows_from_dicts(pooled_rows())
    model, report = fit_calibrator(
        rows,
        label="hallucinated",
        features=FEATURES,
        options=FitOptions(intercept_by=intercept_by, **options),
    )
    return rows, model, report


def test_pooled_fit_weighs_the_data_set_property_and_per_dataset_intercepts_do_not() -> None:
    _, pooled, _ = fit(None)
    _, split, report = fit("dataset")
    offset = FEATURES[1]
    assert abs(dict(zip([f.spec.key for f in pooled.features], pooled.coef, strict=True))[offset]) > 0.5
    assert abs(report.coefficients[offset]) < 0.15, report.coefficients
    assert report.coefficients[FEATURES[0]] > 1.0, "the signal inside each data set keeps its weight"
    assert len(split.coef) == len(FEATURES), "the per-data-set intercepts are not kept in the model"
    assert split.training.intercept_by == "dataset" and pooled.training.intercept_by is None


@pytest.mark.parametrize("monotone", [False, True])
def test_the_shared_intercept_keeps_the_pooled_rows_calibrated_in_the_large(monotone: bool) -> None:
    rows, model, _ = fit("dataset", monotone=monotone)
    trust = model.predict_raw(model.raw_matrix([r.signals for r in rows]))
    faithful = np.mean([not r.fields["hallucinated"] for r in rows])
    assert float(np.mean(trust)) == pytest.approx(faithful, abs=1e-6)


def test_a_single_data_set_fits_as_without_the_option() -> None:
    rows = rows_from_dicts([r for r in pooled_rows() if r["dataset"] == "news"])
    plain, _ = fit_calibrator(rows, label="hallucinated", features=FEATURES)
    split, _ = fit_calibrator(
        rows, label="hallucinated", features=FEATURES, options=FitOptions(intercept_by="dataset")
    )
    assert split.coef == pytest.approx(plain.coef) and split.intercept == pytest.approx(plain.intercept)


def test_a_missing_intercept_column_is_named() -> None:
    rows = rows_from_dicts([{k: v for k, v in r.items() if k != "dataset"} for r in pooled_rows(per=20)])
    with pytest.raises(InputError, match="'dataset'"):
        fit_calibrator(
            rows, label="hallucinated", features=FEATURES, options=FitOptions(intercept_by="dataset")
        )
