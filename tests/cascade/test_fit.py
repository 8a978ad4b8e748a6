"""Fitting a cascade: per-stage calibrators, bands held to the quality the user sets, a held-out estimate."""

from __future__ import annotations

import numpy as np
import pytest

from cascade.rows import STAGES, cascade_rows
from trustscore.fitting._cascade import StagePlan, evaluate_cascade, fit_cascade
from trustscore.fusion._cascade_model import CascadeModel, CascadeQuality

AUROC = CascadeQuality(metric="auroc", max_loss=0.01)
PLANS = [StagePlan(name, signals) for name, signals in STAGES]


def test_each_stage_reads_the_signals_up_to_it(fitted: CascadeModel) -> None:
    read = [sorted(s.calibrator.signal_versions) for s in fitted.stages]
    assert read == [["loc"], ["loc", "v"], ["j1", "j2", "loc", "v"]]
    assert fitted.stages[0].band is None
    assert all(s.band is not None for s in fitted.stages[1:])


def test_the_bands_save_requests_within_the_allowed_loss(fitted: CascadeModel) -> None:
    assert fitted.full.requests == pytest.approx(7.0)  # 1 + 3 + 3 on every row
    assert fitted.fitted.requests < fitted.full.requests
    assert fitted.full.metric - fitted.fitted.metric <= 0.01 + 1e-9
    assert sum(fitted.fitted.stopped) == pytest.approx(1.0)
    assert fitted.held_out.rows == fitted.full.rows


def test_the_searched_loss_keeps_the_held_out_loss_within_the_allowed_one(
    fitted: CascadeModel,
) -> None:
    assert fitted.searched_loss in [0.01 * share for share in (1.0, 0.75, 0.5, 0.25, 0.0)]
    if fitted.searched_loss > 0:
        assert fitted.full.metric - fitted.held_out.metric <= 0.01


def test_no_loss_allowed_keeps_the_full_ensembles_auroc() -> None:
    strict = fit_cascade(
        cascade_rows(), PLANS, label="hallucinated", quality=CascadeQuality(metric="auroc", max_loss=0.0)
    )
    assert strict.fitted.metric >= strict.full.metric - 1e-12


def test_accuracy_at_a_threshold_can_be_the_constraint() -> None:
    quality = CascadeQuality(metric="accuracy", max_loss=0.02, threshold=0.5)
    model = fit_cascade(cascade_rows(), PLANS, label="hallucinated", quality=quality, cost="tokens")
    assert model.quality.metric == "accuracy" and model.cost == "tokens"
    assert model.full.metric - model.fitted.metric <= 0.02 + 1e-9
    assert model.fitted.tokens < model.full.tokens


def test_an_always_stage_gets_no_band_and_runs_on_every_row_that_reached_it() -> None:
    plans = [PLANS[0], PLANS[1], StagePlan("ensemble", ["j1", "j2"], always=True)]
    model = fit_cascade(cascade_rows(), plans, label="hallucinated", quality=AUROC)
    assert model.stages[2].band is None and model.stages[2].always
    assert model.fitted.stopped[1] == 0.0  # whoever ran the verdict went on to the ensemble


def test_a_fitted_cascade_measured_on_other_rows(fitted: CascadeModel) -> None:
    cascade, full = evaluate_cascade(fitted, cascade_rows(seed=7))
    assert full.requests == pytest.approx(7.0)
    assert cascade.requests < full.requests
    assert 0.5 < cascade.metric <= 1.0


def test_a_stage_signal_absent_from_the_file_is_refused() -> None:
    plans = [*PLANS[:2], StagePlan("ensemble", ["j1", "j3"])]
    with pytest.raises(ValueError, match=r"\['j3'\].*score it with every signal"):
        fit_cascade(cascade_rows(), plans, label="hallucinated", quality=AUROC)


def test_one_stage_is_not_a_cascade() -> None:
    with pytest.raises(ValueError, match="at least two stages"):
        fit_cascade(cascade_rows(), PLANS[:1], label="hallucinated", quality=AUROC)


def test_rows_scored_through_a_cascade_are_refused() -> None:
    rows = cascade_rows(20)
    rows[3] = rows[3].model_copy(update={"fields": {**rows[3].fields, "cascade": {"skipped": ["j1"]}}})
    with pytest.raises(ValueError, match=r"skipped signals in a cascade.*without \[cascade\]"):
        fit_cascade(rows, PLANS, label="hallucinated", quality=AUROC)


def test_the_band_search_spends_the_allowed_loss_where_it_saves_most() -> None:
    """The last stage costs 10 and adds a little; stopping early after the first costs more quality per
    request saved. Searching the first band first would spend the whole allowed loss there."""
    from trustscore.fitting._cascade import _run, _search_bands

    rng = np.random.default_rng(0)
    t = (rng.random(2000) < 0.5).astype(np.float64)
    truth = 2 * t - 1
    first = 1 / (1 + np.exp(-(0.8 * truth + rng.normal(size=t.size))))
    second = 1 / (1 + np.exp(-(2.0 * truth + rng.normal(size=t.size))))
    third = 1 / (1 + np.exp(-(2.3 * truth + rng.normal(size=t.size))))
    scores = np.column_stack([first, second, third])
    cost = np.column_stack([np.zeros(t.size), np.ones(t.size), np.full(t.size, 10.0)])
    bands = _search_bands(scores, [False] * 3, t, cost, CascadeQuality(metric="auroc", max_loss=0.01))
    _, stop = _run(scores, [False] * 3, bands)
    spent = np.take_along_axis(np.cumsum(cost, axis=1), stop[:, None], axis=1).mean()
    assert spent < 0.9  # searched from the first band only: 1.2 (the last stage on 6% of the rows)
