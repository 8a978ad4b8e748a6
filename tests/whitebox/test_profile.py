"""RedeepProfile: versioned JSON round trip, refusal of tampered or mismatched files, scoring maths."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from trustscore.core._hashing import canonical_json, sha256_hex
from trustscore.whitebox._profile import (
    LogisticCombination,
    ModelIdentity,
    PaperCombination,
    ProfileError,
    RedeepProfile,
    TrainingSummary,
    transform_pks,
)

MODEL = ModelIdentity(model_type="llama", n_layers=4, n_heads=8, hidden_size=64, name="tiny")
TRAINING = TrainingSummary(
    n=40, n_responses=20, positive_rate=0.25, data_sha256="ab" * 32, split="train half"
)


def paper_profile(platt: tuple[float, float] | None = None) -> RedeepProfile:
    return RedeepProfile(
        model=MODEL,
        level="chunk",
        pks_mode="legacy",
        heads=[(1, 2), (3, 7)],
        layers=[2, 0, 3],
        combination=PaperCombination(
            beta=0.6, pks_max_min=(30.0, 3.0), ecs_max_min=(1.8, 0.2), final_max_min=(0.9, -0.55), platt=platt
        ),
        training=TRAINING,
        metrics={"auroc_response": 0.731},
    )


def logistic_profile(transform: str = "none") -> RedeepProfile:
    return RedeepProfile(
        model=MODEL,
        level="token",
        pks_mode="jsd",
        heads=[(0, 1)],
        layers=[1, 2],
        combination=LogisticCombination(
            pks_transform=transform,
            mean=[0.5, 0.1, 0.2],
            scale=[0.1, 0.05, 2.0],
            coef=[-1.25, 0.5, 0.3333333333333333],
            intercept=-0.1,
            l2=3.0,
        ),
        training=TRAINING,
    )


def resign(doc: dict) -> dict:
    doc["checksum"] = sha256_hex(canonical_json(doc["profile"]))
    return doc


@pytest.mark.parametrize(
    "make",
    [paper_profile, lambda: paper_profile((2.5, -1.0)), logistic_profile, lambda: logistic_profile("log1p")],
)
def test_json_round_trip_is_exact(tmp_path: Path, make) -> None:
    profile = make()
    path = tmp_path / "p.json"
    profile.save(path)
    loaded = RedeepProfile.load(path)
    assert loaded == profile
    assert loaded.to_json() == path.read_text(encoding="utf-8")
    assert isinstance(loaded.heads[0], tuple)


def test_tampered_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    paper_profile().save(path)
    doc = json.loads(path.read_text())
    doc["profile"]["combination"]["beta"] = 0.7
    path.write_text(json.dumps(doc))
    with pytest.raises(ProfileError, match="checksum"):
        RedeepProfile.load(path)


def test_other_schema_version_is_refused() -> None:
    doc = resign(json.loads(paper_profile().to_json()))
    doc["profile"]["schema_version"] = 2
    with pytest.raises(ProfileError, match="schema_version 2"):
        RedeepProfile.from_json(json.dumps(resign(doc)))


def test_shape_mismatch_is_refused_even_with_a_valid_checksum() -> None:
    doc = json.loads(logistic_profile().to_json())
    doc["profile"]["layers"] = [1, 2, 3]
    with pytest.raises(ProfileError, match="3 coefficients but the profile reads 1 heads \\+ 3 layers"):
        RedeepProfile.from_json(json.dumps(resign(doc)))


def test_head_outside_the_model_is_refused() -> None:
    doc = json.loads(paper_profile().to_json())
    doc["profile"]["heads"] = [[1, 2], [3, 8]]
    with pytest.raises(ProfileError, match=r"head \(3, 8\) is outside the model"):
        RedeepProfile.from_json(json.dumps(resign(doc)))


@pytest.mark.parametrize(
    "text,match",
    [("{not json", "not valid JSON"), ('{"a": 1}', "not a ReDeEP profile"), ("[]", "not a ReDeEP profile")],
)
def test_garbage_is_refused(text: str, match: str) -> None:
    with pytest.raises(ProfileError, match=match):
        RedeepProfile.from_json(text)


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match=r"nope\.json does not exist"):
        RedeepProfile.load(tmp_path / "nope.json")


def test_bad_normaliser_is_refused() -> None:
    with pytest.raises(ValueError, match="pks_max_min must be"):
        PaperCombination(beta=0.1, pks_max_min=(1.0, 1.0), ecs_max_min=(1.0, 0.0), final_max_min=(1.0, 0.0))


def test_check_model_refuses_another_architecture() -> None:
    profile = paper_profile()
    profile.check_model(MODEL.model_copy(update={"name": "renamed"}))
    with pytest.raises(ProfileError, match="n_layers: profile 4 vs model 32"):
        profile.check_model(MODEL.model_copy(update={"n_layers": 32}))
    with pytest.raises(ProfileError, match="model_type"):
        profile.check_model(MODEL.model_copy(update={"model_type": "qwen2"}))
    hashed = profile.model_copy(update={"model": MODEL.model_copy(update={"weights_hash": "aaa"})})
    hashed.check_model(MODEL)  # unknown hash on one side: architecture check only
    with pytest.raises(ProfileError, match="weights_hash"):
        hashed.check_model(MODEL.model_copy(update={"weights_hash": "bbb"}))


def test_identity_from_a_transformers_config() -> None:
    cfg = SimpleNamespace(
        model_type="llama",
        num_hidden_layers=4,
        num_attention_heads=8,
        hidden_size=64,
        _name_or_path="/models/tiny",
    )
    ident = ModelIdentity.from_hf_config(cfg)
    assert ident == MODEL.model_copy(update={"name": "/models/tiny"})


def test_paper_score_follows_the_formula() -> None:
    profile = paper_profile()
    ecs = {(1, 2): 0.5, (3, 7): 0.9, (9, 9): 123.0}  # extra keys are ignored
    pks = {2: 4.0, 0: 6.0, 3: 2.0}
    p_norm = (12.0 - 3.0) / 27.0
    e_norm = (1.4 - 0.2) / 1.6
    raw = p_norm - 0.6 * e_norm
    expected = np.clip((raw + 0.55) / 1.45, 0, 1)
    assert profile.hallucination_probability(ecs, pks) == pytest.approx(expected)
    platt = paper_profile((2.5, -1.0))
    assert platt.hallucination_probability(ecs, pks) == pytest.approx(1 / (1 + np.exp(-(2.5 * raw - 1.0))))


def test_logistic_score_follows_the_formula() -> None:
    for transform in ("none", "log1p"):
        profile = logistic_profile(transform)
        x = np.array([0.4, 0.3, 5.0])
        x[1:] = transform_pks(x[1:], transform)  # type: ignore[arg-type]
        z = (x - np.array([0.5, 0.1, 0.2])) / np.array([0.1, 0.05, 2.0])
        expected = 1 / (1 + np.exp(-(z @ np.array([-1.25, 0.5, 1 / 3]) - 0.1)))
        got = profile.hallucination_probability({(0, 1): 0.4}, {1: 0.3, 2: 5.0})
        assert got == pytest.approx(expected)


def test_token_scores_match_the_per_unit_call_and_keep_column_order() -> None:
    profile = paper_profile((1.0, 0.0))
    rng = np.random.default_rng(0)
    ecs, pks = rng.uniform(0, 1, (7, 2)), rng.uniform(0, 10, (7, 3))
    vec = profile.token_scores(ecs, pks)
    one = [
        profile.hallucination_probability({(1, 2): e[0], (3, 7): e[1]}, {2: p[0], 0: p[1], 3: p[2]})
        for e, p in zip(ecs, pks, strict=True)
    ]
    assert vec == pytest.approx(one)
    assert vec.shape == (7,)
    assert np.all((vec >= 0) & (vec <= 1))


def test_token_scores_refuse_wrong_shapes_and_nan() -> None:
    profile = paper_profile()
    with pytest.raises(ValueError, match=r"ecs must have shape \[T, 2\]"):
        profile.token_scores(np.zeros((3, 3)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"pks must have shape \[T, 3\]"):
        profile.token_scores(np.zeros((3, 2)), np.zeros((3, 1)))
    with pytest.raises(ValueError, match="3 rows but pks has 2"):
        profile.token_scores(np.zeros((3, 2)), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="finite"):
        profile.token_scores(np.full((1, 2), np.nan), np.zeros((1, 3)))
    with pytest.raises(ValueError, match=r"heads \[\(3, 7\)\], layers \[3\]"):
        profile.hallucination_probability({(1, 2): 0.1}, {2: 1.0, 0: 1.0})


def test_aggregate() -> None:
    profile = paper_profile()
    assert profile.aggregate([0.1, 0.7, 0.2]) == pytest.approx(0.7)
    assert profile.model_copy(update={"response_aggregation": "mean"}).aggregate(
        [0.1, 0.7, 0.4]
    ) == pytest.approx(0.4)
    with pytest.raises(ValueError, match="no units"):
        profile.aggregate([])
