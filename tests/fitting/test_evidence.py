"""The evidence form: a finding that decides, its precision fitted with the linear weights, sealed in the
model file, and files without evidence read as before."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.fitting.evidence_rows import FACTS, FEATURES, evidence_row, fit_rows
from trustscore import CalibratorError
from trustscore.fitting import FitOptions, fit_calibrator
from trustscore.fitting._evidence_fit import fit_evidence, fit_evidence_lowering
from trustscore.fusion import FusionModel
from trustscore.fusion._evidence import EvidenceTerm, evidence_factor
from trustscore.rows._scored import rows_from_dicts


def generated(n: int = 600, seed: int = 0, precision: float = 0.9) -> list[dict[str, Any]]:
    """Overlap separates a little; a contradicted fact, where it fires, is wrong ``precision`` of the
    time, and fires mostly on answers that copy the context (high overlap)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        contradicted = rng.random() < 0.2
        hallucinated = bool(rng.random() < precision) if contradicted else bool(rng.random() < 0.3)
        overlap = float(
            np.clip(rng.normal(0.9 if contradicted else (0.55 if hallucinated else 0.7), 0.1), 0.01, 0.99)
        )
        rows.append(
            evidence_row(
                i,
                source_id=f"doc{i // 3}",
                dataset="a" if i % 2 else "b",
                hallucinated=hallucinated,
                overlap=overlap,
                contradicted=contradicted,
            )
        )
    return rows


def fit(evidence: tuple[str, ...]) -> FusionModel:
    return fit_rows(generated(), FitOptions(folds=3, evidence=evidence, intercept_by="dataset"))


def test_a_precise_finding_puts_any_answer_under_the_line() -> None:
    noisy_or = fit((FACTS,))
    for overlap in (0.5, 0.95, 0.99):
        assert noisy_or.predict_raw(np.array([[overlap, 1.0]]))[0] < 0.5
    assert noisy_or.evidence[0].precision == pytest.approx(0.8, abs=0.15)
    clean = np.array([[0.95, 0.0]])
    assert noisy_or.predict_raw(clean)[0] > 0.5


def test_the_joint_fit_recovers_a_known_precision() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4000, 1))
    fired = (rng.random((4000, 1)) < 0.3).astype(float)
    p = 1 / (1 + np.exp(-(1.5 * x[:, 0] + 0.5))) * (1 - 0.7 * fired[:, 0])
    t = (rng.random(4000) < p).astype(float)
    coef, intercept, precision = fit_evidence(x, t, fired, l2=1e-3)
    assert coef[0] == pytest.approx(1.5, abs=0.2)
    assert intercept == pytest.approx(0.5, abs=0.2)
    assert precision[0] == pytest.approx(0.7, abs=0.05)


def test_a_missing_count_fires_nothing() -> None:
    term = EvidenceTerm(feature="f", precision=0.8)
    raw = np.array([[np.nan], [0.0], [2.0]])
    assert evidence_factor([term], ["f"], raw).tolist() == pytest.approx([1.0, 1.0, 0.2])


def test_evidence_is_sealed_and_must_read_a_feature() -> None:
    model = fit((FACTS,))
    data = model.model_dump(mode="json")
    back = FusionModel.from_json(model.to_json())
    assert back.evidence == model.evidence
    data["evidence"][0]["precision"] = 0.1
    with pytest.raises(CalibratorError, match="content_sha256"):
        FusionModel.from_json(__import__("json").dumps(data))
    data["evidence"][0]["feature"] = "lynx|logit"
    with pytest.raises(CalibratorError, match="not among the features"):
        FusionModel.from_json(__import__("json").dumps(data))


def test_a_file_without_evidence_keeps_its_hash() -> None:
    model = fit(())
    data = model.model_dump(mode="json")
    data.pop("evidence")
    assert FusionModel.compute_hash(data) == model.content_sha256


def test_evidence_must_name_a_feature_of_the_fit() -> None:
    with pytest.raises(ValueError, match="must name features"):
        fit_calibrator(
            rows_from_dicts(generated(60)),
            label="hallucinated",
            features=["lexical"],
            options=FitOptions(folds=3, evidence=(FACTS,)),
        )


def test_rows_left_out_of_the_level_fit_the_weights_but_not_the_pooled_intercept() -> None:
    rows = rows_from_dicts(generated())
    model, _ = fit_calibrator(
        rows,
        label="hallucinated",
        features=FEATURES,
        options=FitOptions(folds=3, evidence=(FACTS,), intercept_by="dataset", intercept_without=("a",)),
    )
    kept = [r for r in rows if r.fields["dataset"] == "b"]
    p = model.predict_raw(model.raw_matrix([r.signals for r in kept]))
    trust = np.mean([not r.fields["hallucinated"] for r in kept])
    assert float(np.mean(p)) == pytest.approx(trust, abs=1e-6)


def test_a_second_contradiction_never_raises_the_score() -> None:
    # Where a count fires its term, rows with two contradictions happen to be more often right than
    # rows with one: the unconstrained linear weight on the count turns positive; it is held at 0.
    rng = np.random.default_rng(0)
    count = rng.choice([0, 1, 2], size=3000, p=[0.6, 0.2, 0.2]).astype(np.float64)
    p_trust = np.select([count == 0, count == 1], [0.7, 0.1], 0.4)
    t = (rng.random(count.size) < p_trust).astype(np.float64)
    design = ((count - count.mean()) / count.std())[:, None]
    fired_columns = (count > 0).astype(np.float64)[:, None]
    free, _, _ = fit_evidence(design, t, fired_columns, l2=1.0)
    assert free[0] > 0
    held, _, precisions = fit_evidence_lowering(design, t, fired_columns, [0], l2=1.0)
    assert held[0] == 0.0 and precisions[0] > 0.5
