"""FitOptions.values_without: rows of made-up data fit the evidence and the raw features, not the weights
of the signals' values."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.fitting.evidence_rows import FACTS, FEATURES, evidence_row, fit_rows
from trustscore.fitting import FitOptions, fit_calibrator
from trustscore.fusion._model import FusionModel
from trustscore.rows._scored import rows_from_dicts


def rows(seed: int = 0) -> list[dict[str, Any]]:
    """Real rows ("real"): overlap separates, nothing is contradicted. Made-up rows ("made"), twice as
    many: every error keeps the overlap of a copy (higher than the faithful rows'), and a contradicted
    fact marks nine errors in ten."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(900):
        made = i % 3 != 0
        hallucinated = bool(rng.random() < 0.5)
        contradicted = made and hallucinated and bool(rng.random() < 0.9)
        if made:
            overlap = rng.normal(0.9 if hallucinated else 0.7, 0.05)
        else:
            overlap = rng.normal(0.5 if hallucinated else 0.7, 0.1)
        out.append(
            evidence_row(
                i,
                source_id=f"doc{i // 3}-{made}",
                dataset="made" if made else "real",
                hallucinated=hallucinated,
                overlap=float(np.clip(overlap, 0.01, 0.99)),
                contradicted=contradicted,
            )
        )
    return out


def fit(values_without: tuple[str, ...]) -> FusionModel:
    options = FitOptions(
        folds=3,
        evidence=(FACTS,),
        intercept_by="dataset",
        intercept_without=("made",),
        values_without=values_without,
    )
    return fit_rows(rows(), options)


def test_made_up_rows_no_longer_bend_the_weight_of_a_value() -> None:
    real, _ = fit_calibrator(
        rows_from_dicts([r for r in rows() if r["dataset"] == "real"]),
        label="hallucinated",
        features=FEATURES[:1],
        options=FitOptions(folds=3),
    )
    pooled, apart = fit(()), fit(("made",))
    # the made-up rows, twice as many, say that more overlap is worse; the real rows say the opposite
    assert pooled.coef[0] < real.coef[0] - 1.5
    assert apart.coef[0] == pytest.approx(real.coef[0], abs=0.5)


def test_made_up_rows_still_fit_the_evidence() -> None:
    apart = fit(("made",))
    assert apart.evidence[0].precision > 0.6
    assert len(apart.coef) == len(apart.features) + len(apart.indicators)


def test_values_without_needs_an_intercept_column() -> None:
    with pytest.raises(ValueError, match="set intercept_by"):
        fit_calibrator(
            rows_from_dicts(rows()),
            label="hallucinated",
            features=FEATURES,
            options=FitOptions(folds=3, values_without=("made",)),
        )
