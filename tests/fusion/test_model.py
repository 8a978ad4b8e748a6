"""The fitted fusion model: fitting, missing signals, the Fuser contract, persistence and refusals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from trustscore import CalibratorError, Config, Signal
from trustscore._errors import CalibratorMismatchError, FeatureError
from trustscore.fitting import FitOptions, fit_calibrator
from trustscore.fusion import FusionModel, load_fuser, load_model, save_model
from trustscore.fusion._config import FusionConfig
from trustscore.fusion._features import FeatureSpec, parse_feature
from trustscore.fusion._fuser import DefaultFuser, Fuser
from trustscore.rows._scored import ScoredRow, label_column, rows_from_dicts
from trustscore.stats._metrics import auroc
from trustscore.testing._synthetic import make_scored_rows

FEATURES = ["distorted", "noisy", "lexical:raw.numbers_unsupported|clip"]


@pytest.fixture(scope="module")
def rows() -> list[ScoredRow]:
    return rows_from_dicts(make_scored_rows(80, seed=11))


@pytest.fixture(scope="module")
def fitted(rows: list[ScoredRow]) -> FusionModel:
    model, _ = fit_calibrator(rows, label="hallucinated", features=FEATURES, name="syn")
    return model


def _sig(name: str, value: float | None, **kw: object) -> Signal:
    if value is None:
        return Signal.failed(name, "timeout", version="v1")
    return Signal(name=name, value=value, version="v1", **kw)  # type: ignore[arg-type]


def test_parse_feature_forms_and_refusals() -> None:
    assert parse_feature("lynx") == FeatureSpec(signal="lynx", field="value", transform="logit")
    assert parse_feature("lynx|identity").transform == "identity"
    spec = parse_feature("lexical:raw.numbers_unsupported")
    assert (spec.field, spec.transform) == ("raw.numbers_unsupported", "identity")
    assert parse_feature(spec.key) == spec
    for bad in ["", "lynx|cube", "lex:raw.x|logit", "lex:value.x", "a b"]:
        with pytest.raises(ValueError, match="feature"):
            parse_feature(bad)


def test_fit_beats_each_signal_and_is_calibrated_held_out(rows: list[ScoredRow]) -> None:
    model, report = fit_calibrator(rows, label="hallucinated", features=FEATURES, by="task")
    held = report.held_out.report
    y = label_column(rows, "hallucinated")
    single = auroc(y, [1 - r.signals["distorted"].value for r in rows])  # type: ignore[operator]
    assert held.pooled.auroc is not None and held.pooled.auroc > single
    assert held.pooled.ece_width < 0.08
    assert set(held.groups) == {"QA", "Summary", "Data2txt"}
    assert model.held_out == report.held_out
    assert model.indicators == ["noisy"]  # the only signal missing in training
    assert report.coefficients["distorted|logit"] > 0  # more trustworthy judge -> more trust
    assert report.coefficients["lexical:raw.numbers_unsupported|clip"] < 0
    assert model.training.n == len(rows) and model.training.label == "hallucinated"
    assert model.signal_versions == {"distorted": "v1", "noisy": "v1", "lexical": "v1"}


def test_label_polarity_flips_the_target_not_the_score(rows: list[ScoredRow]) -> None:
    flipped = [
        r.model_copy(update={"fields": {**r.fields, "correct": not r.fields["hallucinated"]}}) for r in rows
    ]
    a, _ = fit_calibrator(rows, label="hallucinated", features=FEATURES)
    b, _ = fit_calibrator(flipped, label="correct", label_means="trustworthy", features=FEATURES)
    np.testing.assert_allclose(a.coef, b.coef, atol=1e-9)
    assert a.intercept == pytest.approx(b.intercept)


def test_predict_implements_the_fuser_contract(fitted: FusionModel) -> None:
    assert isinstance(fitted, Fuser)
    signals = {
        "distorted": _sig("distorted", 0.9),
        "noisy": _sig("noisy", 0.8),
        "lexical": _sig("lexical", 1.0, raw={"numbers_unsupported": 0}),
        "unrelated": _sig("unrelated", 0.1),
    }
    out = fitted.predict(signals)
    assert out.calibrated and out.score is not None and 0 <= out.score <= 1
    assert out.used == ["distorted", "noisy", "lexical"]
    assert out.description == f"calibrator:syn@{fitted.content_sha256[:12]}"
    worse = fitted.predict({**signals, "distorted": _sig("distorted", 0.1)})
    assert worse.score is not None and worse.score < out.score


def test_a_missing_signal_with_an_indicator_uses_mean_imputation_plus_the_indicator(
    fitted: FusionModel,
) -> None:
    base = {
        "distorted": _sig("distorted", 0.7),
        "lexical": _sig("lexical", 0.5, raw={"numbers_unsupported": 1}),
    }
    failed = fitted.predict({**base, "noisy": _sig("noisy", None)})
    absent = fitted.predict(base)
    assert failed.score == absent.score and failed.used == ["distorted", "lexical"]
    # By hand: noisy's standardised feature is 0 (its training mean) and its indicator is 1.
    f = fitted.features
    z0 = (np.log(0.7 / 0.3) - f[0].center) / f[0].scale
    z2 = (1.0 - f[2].center) / f[2].scale
    logit = fitted.intercept + fitted.coef[0] * z0 + fitted.coef[2] * z2 + fitted.coef[3] * 1.0
    assert absent.score == pytest.approx(1 / (1 + np.exp(-logit)))


def test_a_signal_never_missing_in_training_is_imputed_with_its_training_mean(fitted: FusionModel) -> None:
    center = fitted.features[0].center  # distorted, logit space
    at_mean = 1 / (1 + np.exp(-center))
    rest = {"noisy": _sig("noisy", 0.6), "lexical": _sig("lexical", 0.5, raw={"numbers_unsupported": 1})}
    missing = fitted.predict(rest)
    imputed = fitted.predict({**rest, "distorted": _sig("distorted", at_mean)})
    assert missing.score == pytest.approx(imputed.score, abs=1e-9)
    assert missing.used == ["noisy", "lexical"]


def test_a_timed_out_judge_degrades_the_score_without_shifting_it(rows: list[ScoredRow]) -> None:
    train, test = rows[: 6 * 60], rows[6 * 60 :]
    model, _ = fit_calibrator(train, label="hallucinated", features=["distorted", "noisy"])
    full = [r.signals for r in test if r.signals["noisy"].value is not None]
    without = [{"noisy": s["noisy"]} for s in full]
    p_full = np.array([model.predict(s).score for s in full])
    p_without = np.array([model.predict(s).score for s in without])
    # Losing the strong judge costs ranking power but the scores stay centred where they were.
    assert abs(p_full.mean() - p_without.mean()) < 0.05
    assert p_without.std() < p_full.std()


def test_no_signal_at_all_gives_no_score(fitted: FusionModel) -> None:
    out = fitted.predict({"noisy": _sig("noisy", None)})
    assert out.score is None and out.used == [] and out.calibrated


def test_a_changed_signal_version_is_refused(fitted: FusionModel, tmp_path: Path) -> None:
    signals = {"distorted": Signal(name="distorted", value=0.5, version="v2")}
    with pytest.raises(CalibratorMismatchError, match=r"'distorted' version 'v1' but got version 'v2'"):
        fitted.predict(signals)
    path = save_model(fitted, tmp_path / "m.json")
    with pytest.raises(CalibratorMismatchError, match="refit"):
        load_model(path, signal_versions={"noisy": "v9"})
    running = {"noisy": "v1", "distorted": "v1", "lexical": "v1", "other": "x"}
    assert load_model(path, signal_versions=running) == fitted


def test_a_calibrator_reading_a_signal_the_scorer_does_not_run_is_refused(
    fitted: FusionModel, tmp_path: Path
) -> None:
    path = save_model(fitted, tmp_path / "m.json")
    not_running = r"reads signal\(s\) \['distorted', 'lexical'\] that this scorer does not run"
    with pytest.raises(CalibratorMismatchError, match=not_running):
        load_model(path, signal_versions={"noisy": "v1"})


def test_a_signal_without_the_raw_feature_is_refused(fitted: FusionModel) -> None:
    with pytest.raises(FeatureError, match=r"has no 'raw.numbers_unsupported'"):
        fitted.predict({"lexical": Signal(name="lexical", value=0.5, raw=3, version="v1")})
    with pytest.raises(FeatureError, match="not a finite number"):
        fitted.predict(
            {"lexical": Signal(name="lexical", value=0.5, raw={"numbers_unsupported": "x"}, version="v1")}
        )


def test_the_json_round_trip_is_exact(fitted: FusionModel, rows: list[ScoredRow], tmp_path: Path) -> None:
    path = save_model(fitted, tmp_path / "sub" / "m.json")
    back = load_model(path)
    assert back == fitted and back.content_sha256 == fitted.content_sha256
    a = [fitted.predict(r.signals).score for r in rows]
    b = [back.predict(r.signals).score for r in rows]
    assert a == b  # bit-identical, not approximately equal
    assert json.loads(path.read_text())["kind"] == "stacked_lr"


def _tampered(path: Path, edit: object) -> str:
    data = json.loads(path.read_text())
    edit(data)  # type: ignore[operator]
    return json.dumps(data)


@pytest.mark.parametrize(
    "edit, match",
    [
        (lambda d: d["coef"].__setitem__(0, d["coef"][0] + 0.5), "edited after fitting"),
        (lambda d: d.__setitem__("intercept", 0.0), "edited after fitting"),
        (lambda d: d["signal_versions"].__setitem__("noisy", "v2"), "edited after fitting"),
        (lambda d: d.__setitem__("format_version", 3), "format_version"),
        (lambda d: d.__setitem__("format_version", 2), "a file without adaptations is format 1"),
        (lambda d: d.__setitem__("surprise", 1), "surprise"),
        (lambda d: d.pop("training"), "training"),
        (lambda d: d["coef"].pop(), "coefficients"),
        (lambda d: d["features"][0].__setitem__("scale", -1.0), "scale"),
        (lambda d: d.__setitem__("kind", "pickle"), "kind"),
    ],
)
def test_a_tampered_or_malformed_file_is_refused(
    fitted: FusionModel, tmp_path: Path, edit: object, match: str
) -> None:
    path = save_model(fitted, tmp_path / "m.json")
    path.write_text(_tampered(path, edit))
    with pytest.raises(CalibratorError, match=match):
        load_model(path)


def test_unreadable_files_are_refused_with_the_path(tmp_path: Path) -> None:
    with pytest.raises(CalibratorError, match="does not exist"):
        load_model(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(CalibratorError, match=r"bad\.json is not a valid trustscore calibrator"):
        load_model(bad)


def test_load_fuser_reads_the_configured_file_or_falls_back_to_the_default(
    fitted: FusionModel, tmp_path: Path
) -> None:
    assert isinstance(load_fuser(FusionConfig()), DefaultFuser)
    save_model(fitted, tmp_path / "calibration" / "syn.json")
    toml = tmp_path / "trustscore.toml"
    toml.write_text('[fusion]\ncalibrator = "calibration/syn.json"\n')
    fuser = load_fuser(Config.from_toml(toml).fusion)
    assert isinstance(fuser, FusionModel) and fuser == fitted


@pytest.mark.parametrize(
    "options",
    [
        FitOptions(stack="beta"),
        FitOptions(stack="isotonic"),
        FitOptions(post_hoc="isotonic"),
        FitOptions(post_hoc="beta"),
    ],
)
def test_stacking_and_post_hoc_options_fit_and_round_trip(
    rows: list[ScoredRow], options: FitOptions, tmp_path: Path
) -> None:
    model, report = fit_calibrator(rows, label="hallucinated", features=FEATURES, options=options)
    if options.stack:
        assert all((f.stack is not None) == (f.spec.field == "value") for f in model.features)
    if options.post_hoc:
        assert model.post_hoc is not None and model.post_hoc.kind == options.post_hoc
        assert 0 < model.training.post_hoc_rows < model.training.n
    held = report.held_out.report.pooled
    assert held.auroc is not None and held.auroc > 0.8 and held.ece_width < 0.12
    back = load_model(save_model(model, tmp_path / "m.json"))
    assert [back.predict(r.signals).score for r in rows[:50]] == [
        model.predict(r.signals).score for r in rows[:50]
    ]


def test_fit_refuses_bad_input_with_the_reason(rows: list[ScoredRow]) -> None:
    with pytest.raises(ValueError, match="label column 'nope'"):
        fit_calibrator(rows, label="nope")
    with pytest.raises(ValueError, match="no 'nope' field"):
        fit_calibrator(rows, label="hallucinated", group="nope")
    with pytest.raises(ValueError, match="has no value in any training row"):
        fit_calibrator(rows, label="hallucinated", features=["distorted", "ghost"])
    mixed = [
        r.model_copy(
            update={
                "signals": {
                    **r.signals,
                    "distorted": r.signals["distorted"].model_copy(update={"version": "v2"}),
                }
            }
        )
        if i % 2
        else r
        for i, r in enumerate(rows)
    ]
    with pytest.raises(ValueError, match="several versions"):
        fit_calibrator(mixed, label="hallucinated", features=["distorted"])
    one_class = [r.model_copy(update={"fields": {**r.fields, "hallucinated": True}}) for r in rows]
    with pytest.raises(ValueError, match="only one label value"):
        fit_calibrator(one_class, label="hallucinated", features=["distorted"])


def _collinear_rows(n_sources: int, seed: int) -> list[ScoredRow]:
    """Two judges that both rank well alone, but jointly the second gets a negative weight."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_sources * 6):
        a = rng.normal()
        b = 0.9 * a + np.sqrt(1 - 0.81) * rng.normal()
        trustworthy = rng.random() < 1 / (1 + np.exp(-(3 * a - 1.5 * b)))
        out.append(
            {
                "id": str(i),
                "score": None,
                "calibrated": False,
                "signals": {
                    "a": {"value": float(1 / (1 + np.exp(-a))), "version": "v1"},
                    "b": {"value": float(1 / (1 + np.exp(-b))), "version": "v1"},
                },
                "hallucinated": not trustworthy,
                "source_id": str(i // 6),
            }
        )
    return rows_from_dicts(out)


def test_monotone_keeps_every_judge_weight_non_negative() -> None:
    rows = _collinear_rows(150, 12)
    _, free_report = fit_calibrator(rows, label="hallucinated")
    assert free_report.coefficients["b|logit"] < 0  # the unconstrained fit punishes a better verdict
    mono, report = fit_calibrator(rows, label="hallucinated", options=FitOptions(monotone=True))
    assert report.coefficients["b|logit"] == 0.0 and report.coefficients["a|logit"] > 0
    grid = np.linspace(0.05, 0.95, 19)
    scores = [mono.predict({"a": _sig("a", 0.6), "b": _sig("b", float(v))}).score for v in grid]
    assert np.all(np.diff(np.asarray(scores, dtype=float)) >= 0)


def test_stacking_a_signal_present_in_one_class_only_names_the_feature(rows: list[ScoredRow]) -> None:
    """A judge that only answered on trustworthy rows cannot get a per-signal calibrator: say which."""
    partial = [
        r.model_copy(
            update={
                "signals": {
                    **r.signals,
                    "sparse": Signal(
                        name="sparse",
                        value=None if r.fields["hallucinated"] else 0.7,
                        error="timeout" if r.fields["hallucinated"] else None,
                        version="v1",
                    ),
                }
            }
        )
        for r in rows
    ]
    with pytest.raises(ValueError, match=r"feature 'sparse\|logit'.*drop --stack or this feature"):
        fit_calibrator(partial, label="hallucinated", options=FitOptions(stack="platt"))


def test_a_null_raw_field_reads_as_missing_not_as_an_error() -> None:
    spec = parse_feature("lexical:raw.numbers_unsupported_share")
    signal = Signal(name="lexical", value=0.8, raw={"numbers_unsupported_share": None}, version="v1")
    assert spec.read({"lexical": signal}) is None


def test_a_ranking_only_model_scores_the_same_but_never_claims_calibrated(
    fitted: FusionModel, tmp_path: Path
) -> None:
    reason = "base rate of your data unknown: adapt it with 25+ labeled rows"
    ranking = fitted.ranking_only(reason)
    assert ranking.content_sha256 != fitted.content_sha256 and ranking.coef == fitted.coef
    signals = {
        "distorted": _sig("distorted", 0.9),
        "noisy": _sig("noisy", 0.8),
        "lexical": _sig("lexical", 1.0, raw={"numbers_unsupported": 0}),
    }
    out, claimed = ranking.predict(signals), fitted.predict(signals)
    assert out.score == claimed.score
    assert out.calibrated is False and out.not_calibrated_reason == reason
    assert claimed.calibrated is True and claimed.not_calibrated_reason is None
    assert load_model(save_model(ranking, tmp_path / "ranking.json")) == ranking
    edited = json.loads(ranking.to_json())
    edited["not_calibrated_reason"] = None
    with pytest.raises(CalibratorError, match="content_sha256"):
        FusionModel.from_json(json.dumps(edited))


def test_a_file_written_before_the_reason_existed_keeps_its_hash(fitted: FusionModel) -> None:
    data = json.loads(fitted.to_json())
    del data["not_calibrated_reason"]
    assert FusionModel.from_json(json.dumps(data)) == fitted


def test_the_default_fuser_says_why_it_is_not_calibrated() -> None:
    out = DefaultFuser().predict({"a": _sig("a", 0.9), "b": _sig("b", 0.4)})
    assert out.calibrated is False
    assert out.not_calibrated_reason is not None and "trustscore calibrate" in out.not_calibrated_reason


def test_a_missing_label_counts_its_rows_in_plain_words() -> None:
    rows = rows_from_dicts([{"id": i, "score": 0.5, "signals": {}} for i in ("a", "b")])
    with pytest.raises(ValueError, match=r"^1 row has no 0/1 .* \(b\)"):
        label_column([rows[0].model_copy(update={"fields": {"hallucinated": 1}}), rows[1]], "hallucinated")
    with pytest.raises(ValueError, match=r"^2 rows have no 0/1 .* \(a, b\)"):
        label_column(rows, "hallucinated")
