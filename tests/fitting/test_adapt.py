"""Few-label adaptation: ``adapt_model`` and ``trustscore calibrate --adapt``.

An adaptation records what its labeled rows were and claims calibrated only on samples like them, of its
own domain, and only when the labels carry the claim."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.fusion.test_domain import Replay, with_lengths
from trustscore import CalibratorError, InputError, Sample
from trustscore.cli import main as cli_main
from trustscore.fitting import FitOptions, adapt_model, fit_calibrator
from trustscore.fitting._adapt import CLAIM_GROUPS, CLAIM_ROWS, auroc_bound, map_logistic
from trustscore.fusion import FusionModel, load_model, save_model
from trustscore.rows._scored import ScoredRow, label_column, rows_from_dicts
from trustscore.scoring._scorer import Scorer
from trustscore.stats._logistic import sigmoid
from trustscore.stats._metrics import ece
from trustscore.testing._synthetic import make_scored_rows, write_scored_jsonl

pytestmark = pytest.mark.anyio

FEATURES = ["distorted", "lexical:raw.numbers_unsupported|clip"]
QUESTION = "When did the bridge open?"
CONTEXT = [" ".join(["ctx"] * 200)]
RESPONSE = " ".join(["word"] * 20)


@pytest.fixture(scope="module")
def base() -> FusionModel:
    rows = rows_from_dicts(with_lengths(make_scored_rows(80, seed=5)))
    model, _ = fit_calibrator(rows, label="hallucinated", features=FEATURES, name="base", data_name="a.jsonl")
    return model


def relabeled(base: FusionModel, n_sources: int, seed: int, slope: float, level: float) -> list[dict]:
    """Synthetic rows whose labels follow ``sigmoid(level + slope * logit(P_base))``: a domain where the
    base model's score ranks, with another base rate and spread."""
    rows = with_lengths(make_scored_rows(n_sources, seed=seed), seed=seed)
    scored = rows_from_dicts(rows)
    p = np.clip(base.predict_raw(base.raw_matrix([r.signals for r in scored])), 1e-6, 1 - 1e-6)
    truth = sigmoid(level + slope * np.log(p / (1 - p)))
    rng = np.random.default_rng(seed)
    for r, q in zip(rows, truth, strict=True):
        r["hallucinated"] = bool(rng.random() >= q)
    return rows


def _ece(model: FusionModel, rows: list[ScoredRow]) -> float:
    p = 1 - model.predict_adapted(model.raw_matrix([r.signals for r in rows]))
    return ece(label_column(rows, "hallucinated"), p, n_bins=10, strategy="mass").value


def scorer_for(model: FusionModel) -> Scorer:
    return Scorer(
        local_signals=[Replay("distorted", 0.5), Replay("lexical", 0.5, {"numbers_unsupported": 1})],
        fuser=model,
    )


@pytest.fixture(scope="module")
def claiming(base: FusionModel) -> FusionModel:
    """Adapted under the name "support" on 360 QA rows from 60 documents of a domain where it ranks."""
    rows = rows_from_dicts(relabeled(base, 60, seed=21, slope=1.0, level=-1.0))
    return adapt_model(base, rows, domain="support", task_kinds=["qa"] * len(rows), data_name="b.jsonl")


def test_labels_that_carry_it_make_a_claim_that_holds_on_the_domain_s_other_rows(
    base: FusionModel, claiming: FusionModel
) -> None:
    a = claiming.adaptations[0]
    assert a.not_calibrated_reason is None, a.not_calibrated_reason
    assert a.domain == "support" and a.n == 360 and a.groups == 60 and a.task_kinds == ["qa"]
    assert a.auroc is not None and a.auroc_low is not None and a.auroc_low > 0.5
    assert 0 < a.trust_share < 1 and a.data_name == "b.jsonl"
    test = rows_from_dicts(relabeled(base, 80, seed=22, slope=1.0, level=-1.0))
    adapted = 1 - claiming.predict_adapted(claiming.raw_matrix([r.signals for r in test]), "support")
    y = label_column(test, "hallucinated")
    assert ece(y, adapted, n_bins=10, strategy="mass").value < 0.07
    assert claiming.features == base.features and claiming.coef == base.coef, "the base model is kept whole"
    assert claiming.format_version == 2 and claiming.name == "base"


def test_the_slope_moves_as_well_as_the_level_when_the_labels_support_it(base: FusionModel) -> None:
    """A domain whose answers are further apart than the base model says: the old intercept-only
    adaptation kept the shape; the slope now follows."""
    rows = rows_from_dicts(relabeled(base, 70, seed=31, slope=2.5, level=0.5))
    a = adapt_model(base, rows).adaptations[0]
    assert a.slope > 1.8 and abs(a.level - 0.5) < 0.6
    test = rows_from_dicts(relabeled(base, 80, seed=32, slope=2.5, level=0.5))
    assert _ece(adapt_model(base, rows), test) < 0.06


def test_signals_at_chance_make_no_claim_however_many_labels(base: FusionModel) -> None:
    """Labels drawn independently of the signals: the honest probability is the base rate, so a spread of
    scores that carries no information is never passed off as calibrated."""
    rows = with_lengths(make_scored_rows(60, seed=41), seed=41)
    rng = np.random.default_rng(41)
    for r in rows:
        r["hallucinated"] = bool(rng.random() < 0.4)
    a = adapt_model(base, rows_from_dicts(rows)).adaptations[0]
    assert a.not_calibrated_reason is not None
    assert "signals do not show that they rank" in a.not_calibrated_reason
    assert f"share of trustworthy rows, {a.trust_share:.2f}, with no spread" in a.not_calibrated_reason
    assert a.auroc_low is not None and a.auroc_low <= 0.5


def test_too_few_labels_say_how_many_more_would_make_a_claim_possible(base: FusionModel) -> None:
    rows = rows_from_dicts(relabeled(base, 60, seed=51, slope=1.0, level=-1.0))
    few = adapt_model(base, rows[:40], group=None).adaptations[0]
    assert few.not_calibrated_reason is not None and few.groups is None
    assert "uncertain by up to" in few.not_calibrated_reason
    assert "more labeled rows of this data would make a claim possible" in few.not_calibrated_reason
    more = int(few.not_calibrated_reason.split("about ")[1].split(" more")[0])
    assert more > 0 and more % 5 == 0
    enough = adapt_model(base, rows[: 40 + 2 * more], group=None).adaptations[0]
    assert enough.calibration_gap < few.calibration_gap
    under = adapt_model(base, rows[: CLAIM_ROWS - 1], group=None).adaptations[0]
    assert under.not_calibrated_reason is not None
    assert f"adapted on {CLAIM_ROWS - 1} labeled rows" in under.not_calibrated_reason
    one_document = adapt_model(base, rows[: 6 * (CLAIM_GROUPS - 1)]).adaptations[0]
    assert one_document.not_calibrated_reason is not None
    assert f"come from {CLAIM_GROUPS - 1} values of `source_id`" in one_document.not_calibrated_reason


async def test_each_adapted_result_carries_its_interval(base: FusionModel, claiming: FusionModel) -> None:
    r = await scorer_for(claiming).score_sample(
        Sample(question=QUESTION, context=CONTEXT, response=RESPONSE, domain="support")
    )
    assert r.calibrated is True and r.not_calibrated_reason is None, r.not_calibrated_reason
    assert r.score is not None and r.interval is not None
    low, high = r.interval
    assert 0 <= low < r.score < high <= 1 and high - low < 0.3
    assert json.loads(r.model_dump_json())["interval"] == [low, high]
    plain = await scorer_for(base).score(question=QUESTION, context=CONTEXT, response=RESPONSE)
    assert plain.interval is None


async def test_only_the_adaptation_of_the_sample_s_own_domain_claims(claiming: FusionModel) -> None:
    scorer = scorer_for(claiming)
    sample = {"question": QUESTION, "context": CONTEXT, "response": RESPONSE}
    unnamed = await scorer.score_sample(Sample(**sample))
    assert unnamed.calibrated is False and unnamed.not_calibrated_reason is not None
    assert "named domains only ('support')" in unnamed.not_calibrated_reason
    assert "set its `domain`" in unnamed.not_calibrated_reason
    other = await scorer.score_sample(Sample(**sample, domain="legal"))
    assert other.calibrated is False and other.not_calibrated_reason is not None
    assert "no adaptation for domain 'legal'" in other.not_calibrated_reason
    assert "--domain legal" in other.not_calibrated_reason
    own = await scorer.score_sample(Sample(**sample, domain="support"))
    assert own.calibrated is True and own.domain is not None and own.domain.inside
    named = await scorer.score(**sample, domain="support")  # the keyword form names it too
    assert named.calibrated is True and named.score == own.score


async def test_a_domain_passed_by_keyword_is_checked_like_a_sample_s(claiming: FusionModel) -> None:
    scorer = scorer_for(claiming)
    with pytest.raises(InputError, match=r"domain.*adapted calibrator holds"):
        await scorer.score(question=QUESTION, context=CONTEXT, response=RESPONSE, domain="")
    with pytest.raises(InputError, match="domain"):
        await scorer.score(question=QUESTION, context=CONTEXT, response=RESPONSE, domain=3)  # type: ignore[arg-type]


async def test_a_sample_unlike_the_labeled_rows_is_scored_but_not_claimed(claiming: FusionModel) -> None:
    """The borrowed-calibration case: adapted on question answering, a summary or a short hand-written
    sample of the same domain name is ranked, never claimed."""
    scorer = scorer_for(claiming)
    summary = await scorer.score_sample(
        Sample(question="Summarize the article.", context=CONTEXT, response=RESPONSE, domain="support")
    )
    assert summary.calibrated is False and summary.score is not None and summary.domain is not None
    assert summary.domain.reasons == [
        "the sample reads as a summary task; the domain 'support' was adapted on qa rows only"
    ]
    assert summary.not_calibrated_reason is not None and "summary task" in summary.not_calibrated_reason
    short = await scorer.score_sample(
        Sample(
            question=QUESTION, context=["The bridge opened in 1998."], response="In 1999.", domain="support"
        )
    )
    assert short.calibrated is False and short.domain is not None
    assert any(
        r.startswith("context has 5 words; the domain 'support' was adapted on") for r in short.domain.reasons
    )
    assert any(r.startswith("response has 2 words") for r in short.domain.reasons)


def test_one_file_holds_one_adaptation_per_domain(base: FusionModel, claiming: FusionModel) -> None:
    rows = rows_from_dicts(relabeled(base, 60, seed=61, slope=1.0, level=1.0))
    both = adapt_model(claiming, rows, domain="legal")
    assert [a.domain for a in both.adaptations] == ["support", "legal"]
    again = adapt_model(both, rows[:200], domain="support")
    assert [a.domain for a in again.adaptations] == ["legal", "support"] and again.adaptations[1].n == 200
    assert again.coef == base.coef and again.intercept == base.intercept, "adapting never moves the base"
    raw = both.raw_matrix([r.signals for r in rows[:5]])
    assert not np.allclose(both.predict_adapted(raw, "support"), both.predict_adapted(raw, "legal"))
    assert np.allclose(both.predict_adapted(raw, "other"), both.predict_raw(raw))


def test_the_sealed_format_refuses_edits_and_the_old_adapted_files(
    base: FusionModel, claiming: FusionModel, tmp_path: Path
) -> None:
    path = save_model(claiming, tmp_path / "mine.json")
    assert load_model(path) == claiming
    data = json.loads(path.read_text())
    data["adaptations"][0]["level"] += 1.0
    (tmp_path / "edited.json").write_text(json.dumps(data))
    with pytest.raises(CalibratorError, match="edited after fitting"):
        load_model(tmp_path / "edited.json")
    for bad in ({"format_version": 1}, {"adaptations": []}):
        data = {**claiming.model_dump(mode="json"), **bad}
        data["content_sha256"] = FusionModel.compute_hash(data)
        with pytest.raises(ValueError, match="format"):
            FusionModel.model_validate(data)
    assert base.domain is not None
    old = base.model_dump(mode="json")
    old["domain"]["data_name"] = "a.jsonl + labeled.jsonl"  # how an earlier --adapt named its domain
    old["content_sha256"] = FusionModel.compute_hash(old)
    with pytest.raises(ValueError, match="adapted by an earlier trustscore"):
        FusionModel.model_validate(old)


def test_map_logistic_with_no_prior_matches_plain_maximum_likelihood() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 2))
    t = (rng.random(400) < 1 / (1 + np.exp(-(x @ [1.5, -1.0] + 0.3)))).astype(float)
    w, b = map_logistic(x, t, np.zeros(2), 0.0, coef_prior=1e-9, intercept_prior=1e-9)
    assert np.allclose(w, [1.5, -1.0], atol=0.35) and abs(b - 0.3) < 0.35


def test_map_logistic_stays_finite_on_separable_rows() -> None:
    """A full Newton step overshoots on separable rows; the backtracking keeps the prior in charge."""
    x = np.r_[np.full(12, -1.0), np.full(13, 1.0)][:, None]
    t = (x[:, 0] > 0).astype(float)
    w, b = map_logistic(x, t, np.ones(1), 0.0, coef_prior=2.0, intercept_prior=0.5)
    assert 1 < w[0] < 5 and abs(b) < 1


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


def test_cli_calibrate_adapt_names_the_domain_and_adds_to_the_file(
    base: FusionModel, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base_path = save_model(base, tmp_path / "base.json")
    labeled = write_scored_jsonl(
        tmp_path / "labeled.jsonl", relabeled(base, 60, seed=71, slope=1.0, level=-1.0)
    )
    out = tmp_path / "mine.json"
    args = ["calibrate", "--adapt", str(base_path), str(labeled), "-o", str(out), "--domain", "support"]
    assert cli_main(args) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "360 labeled rows (domain 'support')" in text and "in-sample" in text
    assert "level" in text and "slope" in text and "95% lower bound" in text
    assert "claims calibrated on samples of the domain 'support' like these rows" in text
    args = ["calibrate", "--adapt", str(out), str(labeled), "-o", str(out), "--domain", "legal"]
    assert cli_main(args) == 0
    assert "the file also holds: domain 'support'" in " ".join(capsys.readouterr().out.split())
    model = load_model(out)
    assert model.name == "mine" and [a.domain for a in model.adaptations] == ["support", "legal"]
    assert model.adaptations[0].groups == 60, "the bootstrap resamples whole source_id values"
    args = [
        "calibrate",
        "--adapt",
        str(out),
        str(labeled),
        "-o",
        str(out),
        "--domain",
        "legal",
        "--group",
        "none",
    ]
    assert cli_main(args) == 0 and load_model(out).adaptations[1].groups is None
    assert cli_main(["calibrate", "--adapt", str(tmp_path / "nope.json"), str(labeled), "-o", str(out)]) == 2
    assert "does not exist" in " ".join(capsys.readouterr().err.split())


def test_cli_calibrate_adapt_from_plain_labeled_samples_records_their_task_kind_and_domain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:

    import trustscore.cli._score as cli_score
    from tests.calibrators.test_shipped import CONTEXT as SHIPPED_CONTEXT
    from tests.calibrators.test_shipped import OneScorerPerRow, default_versions

    labeled = tmp_path / "labeled.jsonl"
    with labeled.open("w", encoding="utf-8") as f:
        for i in range(30):
            row = {
                "id": f"r{i}",
                "question": "When did it open?",
                "context": SHIPPED_CONTEXT,
                "response": f"The footbridge opened in May {1990 + i}.",
                "hallucinated": i % 3 == 0,
                "domain": "bridges",
            }
            f.write(json.dumps(row) + "\n")
    grounded = iter([i % 3 != 0 for i in range(30)])

    scorer = OneScorerPerRow(default_versions(), grounded)
    monkeypatch.setattr(cli_score, "build_scorer", lambda config, no_cache: scorer)
    out = tmp_path / "mine.json"
    assert cli_main(["calibrate", str(labeled), "--adapt", "-o", str(out)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "30 labeled rows (domain 'bridges'); adapted calibrator:local_multidomain@" in text
    a = load_model(out).adaptations[0]
    assert a.domain == "bridges" and a.task_kinds == ["qa"] and a.n == 30
    assert {r.name for r in a.ranges} >= {"response_words", "context_words"}


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


def test_the_auroc_lower_bound_of_a_near_chance_score_on_few_rows_is_never_negative() -> None:
    """An adaptation's AUROC bound is held to [0, 1] where it loads: the fit must never make one below."""
    t = np.array([1.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    score = np.array([0.2, 0.9, 0.1, 0.8, 0.3, 0.05])  # ranks the wrong way: AUROC about 0.1
    found = auroc_bound(t, score)
    assert found is not None
    auroc, se, low = found
    assert auroc - 1.65 * se < 0 and low == 0.0
