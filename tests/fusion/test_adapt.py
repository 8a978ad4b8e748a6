"""Few-label recalibration: ``adapt_model`` and ``trustscore calibrate --adapt``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.fusion.test_domain import with_lengths
from trustscore.cli import main as cli_main
from trustscore.errors import CalibratorError
from trustscore.fitting.adapt import CLAIM_ROWS, adapt_model, map_logistic
from trustscore.fitting.calibrator import FitOptions, fit_calibrator
from trustscore.fusion.model import FusionModel
from trustscore.fusion.store import load_model, save_model
from trustscore.rows.scored import ScoredRow, label_column, rows_from_dicts
from trustscore.stats.metrics import ece
from trustscore.testing.synthetic import make_scored_rows, write_scored_jsonl

FEATURES = ["distorted", "lexical:raw.numbers_unsupported|clip"]


@pytest.fixture(scope="module")
def base() -> FusionModel:
    rows = rows_from_dicts(with_lengths(make_scored_rows(80, seed=5)))
    model, _ = fit_calibrator(rows, label="hallucinated", features=FEATURES, name="base", data_name="a.jsonl")
    return model


def shifted(n_sources: int, seed: int) -> list[dict]:
    """The same signals, but twice as many hallucinations: flip half of the trustworthy labels."""
    rows = with_lengths(make_scored_rows(n_sources, seed=seed), seed=seed)
    rng = np.random.default_rng(seed)
    for r in rows:
        if not r["hallucinated"] and rng.random() < 0.5:
            r["hallucinated"] = True
    return rows


def _ece(model: FusionModel, rows: list[ScoredRow]) -> float:
    p = 1 - model.predict_raw(model.raw_matrix([r.signals for r in rows]))
    return ece(label_column(rows, "hallucinated"), p, n_bins=10, strategy="mass").value


def test_fifty_labels_of_a_shifted_domain_repair_calibration(base: FusionModel) -> None:
    few = rows_from_dicts(shifted(9, seed=21))[:50]
    test = rows_from_dicts(shifted(80, seed=22))
    adapted = adapt_model(base, few, data_name="b.jsonl")
    assert _ece(adapted, test) < _ece(base, test) - 0.05
    assert adapted.intercept < base.intercept, "more hallucinations: lower P(trustworthy) everywhere"
    assert adapted.features == base.features and adapted.indicators == base.indicators
    assert adapted.training.n == 50 and adapted.name == "base.adapted"
    assert adapted.domain is not None and base.domain is not None
    assert adapted.domain.data_name == "a.jsonl + b.jsonl"
    for old, new in zip(base.domain.dimensions, adapted.domain.dimensions, strict=True):
        lo_old, hi_old = base.domain.bounds(old)
        lo_new, hi_new = adapted.domain.bounds(new)
        assert lo_new <= lo_old and hi_new >= hi_old, "the adapted domain covers the base one"


def test_the_prior_holds_the_coefficients_near_the_base_with_few_labels(base: FusionModel) -> None:
    few = rows_from_dicts(shifted(9, seed=23))[:25]
    many = rows_from_dicts(shifted(200, seed=24))
    near = adapt_model(base, few)
    far = adapt_model(base, many)
    move = lambda m: float(np.abs(np.subtract(m.coef, base.coef)).sum())  # noqa: E731
    assert move(near) < move(far)
    strong = adapt_model(base, few, coef_prior=1e6, intercept_prior=1e6)
    assert np.allclose(strong.coef, base.coef, atol=1e-3) and abs(strong.intercept - base.intercept) < 1e-3


def test_map_logistic_with_no_prior_matches_plain_maximum_likelihood() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 2))
    t = (rng.random(400) < 1 / (1 + np.exp(-(x @ [1.5, -1.0] + 0.3)))).astype(float)
    w, b = map_logistic(x, t, np.zeros(2), 0.0, coef_prior=1e-9, intercept_prior=1e-9)
    assert np.allclose(w, [1.5, -1.0], atol=0.35) and abs(b - 0.3) < 0.35


def test_refusals_name_the_problem(base: FusionModel) -> None:
    rows = rows_from_dicts(make_scored_rows(3, seed=1))[:5]
    with pytest.raises(ValueError, match="at least 10"):
        adapt_model(base, rows)
    data = rows_from_dicts(make_scored_rows(60, seed=2))
    with_post_hoc, _ = fit_calibrator(
        data, label="hallucinated", features=FEATURES, options=FitOptions(post_hoc="platt")
    )
    with pytest.raises(CalibratorError, match="post-hoc"):
        adapt_model(with_post_hoc, data)


def test_cli_calibrate_adapt_writes_a_loadable_model(
    base: FusionModel, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base_path = save_model(base, tmp_path / "base.json")
    labeled = write_scored_jsonl(tmp_path / "labeled.jsonl", shifted(12, seed=31)[:60])
    out = tmp_path / "new.json"
    assert cli_main(["calibrate", "--adapt", str(base_path), str(labeled), "-o", str(out)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "60 labeled rows" in text and "in-sample" in text and "intercept" in text
    model = load_model(out)
    assert model.name == "new" and model.domain is not None
    assert "labeled.jsonl" in model.domain.data_name
    assert cli_main(["calibrate", "--adapt", str(tmp_path / "nope.json"), str(labeled), "-o", str(out)]) == 2
    assert "does not exist" in " ".join(capsys.readouterr().err.split())
    json.loads(out.read_text())


def test_cli_calibrate_adapt_from_plain_labeled_samples_starts_from_the_shipped_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import anyio

    import trustscore.cli.score as cli_score
    from tests.calibrators.test_shipped import CONTEXT, default_versions, local_pair
    from trustscore import Config, Scorer

    labeled = tmp_path / "labeled.jsonl"
    with labeled.open("w", encoding="utf-8") as f:
        for i in range(30):
            f.write(
                json.dumps(
                    {
                        "id": f"r{i}",
                        "question": "When did it open?",
                        "context": CONTEXT,
                        "response": f"The footbridge opened in May {1990 + i}.",
                        "hallucinated": i % 3 == 0,
                    }
                )
                + "\n"
            )
    grounded = iter([i % 3 != 0 for i in range(30)])

    def scorer(config: Path | None, *, no_cache: bool) -> Scorer:
        return Scorer(Config(), local_signals=local_pair(default_versions(), grounded=next(grounded)))

    class OneScorerPerRow:
        def score_many_sync(self, samples: list, **_: object) -> list:
            return [anyio.run(scorer(None, no_cache=False).score_sample, s) for s in samples]

    monkeypatch.setattr(cli_score, "build_scorer", lambda config, no_cache: OneScorerPerRow())
    out = tmp_path / "mine.json"
    assert cli_main(["calibrate", str(labeled), "--adapt", "-o", str(out)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "30 labeled rows; adapted calibrator:local_multidomain@" in text
    assert "mine: claims calibrated on data like these rows" in text
    model = load_model(out)
    assert model.name == "mine" and model.not_calibrated_reason is None
    assert model.training.n == 30


def test_cli_calibrate_adapt_refuses_plain_samples_for_a_base_of_your_own(
    base: FusionModel, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labeled = tmp_path / "plain.jsonl"
    labeled.write_text(json.dumps({"question": "q", "response": "r", "hallucinated": True}) + "\n")
    base_path = save_model(base, tmp_path / "base.json")
    assert (
        cli_main(["calibrate", "--adapt", str(base_path), str(labeled), "-o", str(tmp_path / "x.json")]) == 2
    )
    err = " ".join(capsys.readouterr().err.split())
    assert "without signals: score them first with `trustscore score`" in err


def test_an_adapted_model_claims_calibrated_only_from_25_labeled_rows(base: FusionModel) -> None:
    rows = rows_from_dicts(shifted(12, seed=41))
    few = adapt_model(base, rows[: CLAIM_ROWS - 1])
    enough = adapt_model(base, rows[:CLAIM_ROWS])
    assert few.not_calibrated_reason is not None
    assert f"adapted on {CLAIM_ROWS - 1} labeled rows" in few.not_calibrated_reason
    assert "adapt again" in few.not_calibrated_reason
    assert enough.not_calibrated_reason is None
    signals = rows[0].signals
    assert few.predict(signals).calibrated is False and enough.predict(signals).calibrated is True
