"""ReDeEP fitting: selection on the training split only, recovery of informative heads, sklearn parity."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from trustscore.fitting._redeep import (
    FeatureSet,
    LogisticSelection,
    PaperSelection,
    feature_aurocs,
    fit_logistic_profile,
    fit_paper_profile,
    grouped_folds,
    response_scores,
    select_logistic,
    select_paper,
)
from trustscore.stats._metrics import auroc_or_nan
from trustscore.whitebox._profile import LogisticCombination, ModelIdentity, PaperCombination, RedeepProfile

MODEL = ModelIdentity(model_type="llama", n_layers=8, n_heads=4, hidden_size=32)
HEADS = [(layer, head) for layer in range(4) for head in range(4)]  # 16 candidate heads
LAYERS = list(range(8))


def synthetic(
    n_responses: int, seed: int, ecs_informative: dict[int, float], pks_informative: dict[int, float]
) -> FeatureSet:
    """2-3 chunks per response; informative ECS columns drop and PKS columns rise on hallucinated chunks."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 4, n_responses)
    n = int(sizes.sum())
    y = (rng.uniform(size=n) < 0.3).astype(int)
    ecs = rng.normal(0.6, 0.1, (n, len(HEADS)))
    pks = rng.gamma(2.0, 3.0, (n, len(LAYERS)))
    for j, strength in ecs_informative.items():
        ecs[:, j] -= strength * 0.1 * y
    for j, strength in pks_informative.items():
        pks[:, j] += strength * 3.0 * y
    responses = np.repeat([f"r{i}" for i in range(n_responses)], sizes)
    groups = np.repeat([f"s{i // 2}" for i in range(n_responses)], sizes)  # two responses per source
    return FeatureSet.build(
        ecs, pks, y, heads=HEADS, layers=LAYERS, groups=list(groups), responses=list(responses)
    )


def test_auroc_matches_sklearn_with_ties() -> None:
    rng = np.random.default_rng(1)
    s = rng.integers(0, 5, 200).astype(float)
    y = rng.integers(0, 2, 200)
    assert auroc_or_nan(y, s) == pytest.approx(roc_auc_score(y, s))
    assert np.isnan(auroc_or_nan([1, 1], [0.1, 0.2]))


def test_response_scores_aggregate_and_label_any() -> None:
    data = FeatureSet.build(
        np.zeros((4, 1)),
        np.zeros((4, 1)),
        [0, 1, 0, 0],
        heads=[(0, 0)],
        layers=[0],
        responses=["a", "a", "b", "b"],
    )
    s_max, y = response_scores([0.2, 0.6, 0.1, 0.3], data, "max")
    s_mean, _ = response_scores([0.2, 0.6, 0.1, 0.3], data, "mean")
    assert s_max.tolist() == pytest.approx([0.6, 0.3])
    assert s_mean.tolist() == pytest.approx([0.4, 0.2])
    assert y.tolist() == [1, 0]


def test_grouped_folds_never_split_a_group() -> None:
    groups = np.array([f"g{i % 7}" for i in range(50)])
    folds = grouped_folds(groups, 3, seed=4)
    assert sum(int(f.sum()) for f in folds) == 50
    for g in np.unique(groups):
        assert sum(bool(f[groups == g].any()) for f in folds) == 1
    with pytest.raises(ValueError, match="7 groups cannot make 8 grouped folds"):
        grouped_folds(groups, 8, seed=0)


def test_feature_set_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match=r"ecs must have shape \[2, 1\]"):
        FeatureSet.build(np.zeros((2, 2)), np.zeros((2, 1)), [0, 1], heads=[(0, 0)], layers=[0])
    with pytest.raises(ValueError, match="0/1"):
        FeatureSet.build(np.zeros((2, 1)), np.zeros((2, 1)), [0, 2], heads=[(0, 0)], layers=[0])
    with pytest.raises(ValueError, match="finite"):
        FeatureSet.build(np.array([[np.nan], [0]]), np.zeros((2, 1)), [0, 1], heads=[(0, 0)], layers=[0])
    with pytest.raises(ValueError, match="empty"):
        FeatureSet.build(np.zeros((0, 1)), np.zeros((0, 1)), [], heads=[(0, 0)], layers=[0])


def test_known_informative_heads_and_layers_are_recovered() -> None:
    data = synthetic(300, seed=0, ecs_informative={5: 2.0, 11: 1.5}, pks_informative={6: 1.5})
    head_auc, layer_auc = feature_aurocs(data)
    assert set(np.argsort(-head_auc)[:2]) == {5, 11}
    assert int(np.argmax(layer_auc)) == 6
    profile = fit_paper_profile(data, model=MODEL, level="chunk", pks_mode="jsd", split="synthetic train")
    assert set(profile.heads[:2]) == {HEADS[5], HEADS[11]}
    assert profile.layers[0] == 6
    assert isinstance(profile.combination, PaperCombination) and profile.combination.beta > 0
    test = synthetic(300, seed=1, ecs_informative={5: 2.0, 11: 1.5}, pks_informative={6: 1.5})
    ecs, pks = test.columns_for(profile)
    s, y = response_scores(profile.token_scores(ecs, pks), test, "mean")
    assert auroc_or_nan(y, s) > 0.8


def test_selection_uses_the_training_split_only() -> None:
    """Head 2 / layer 3 inform only in train; head 9 / layer 7 only in test: the fit must pick the former."""
    train = synthetic(200, seed=2, ecs_informative={2: 2.0}, pks_informative={3: 2.0})
    test = synthetic(200, seed=3, ecs_informative={9: 3.0}, pks_informative={7: 3.0})
    paper = fit_paper_profile(train, model=MODEL, level="chunk", pks_mode="jsd", split="train")
    assert paper.heads[0] == HEADS[2] and paper.layers[0] == 3
    assert HEADS[9] not in paper.heads[:3] and 7 not in paper.layers[:3]
    assert paper.training.data_sha256 == train.data_sha256() != test.data_sha256()
    assert paper.training.n == train.n
    logistic = fit_logistic_profile(train, model=MODEL, level="chunk", pks_mode="jsd", split="train")
    assert isinstance(logistic.combination, LogisticCombination)
    coef = np.abs(np.asarray(logistic.combination.coef))
    assert int(np.argmax(coef[: len(HEADS)])) == 2
    assert int(np.argmax(coef[len(HEADS) :])) == 3


def test_cv_grid_search_prefers_the_true_sizes() -> None:
    data = synthetic(400, seed=5, ecs_informative={0: 1.5, 1: 1.5, 2: 1.5}, pks_informative={})
    sel = select_paper(data, head_sizes=(1, 3, 16), layer_sizes=(1,), betas=(0.0, 2.0, 5.0), n_folds=4)
    assert sel.n_heads == 3
    assert sel.beta > 0
    assert 0.5 < sel.cv_auroc <= 1.0


def test_paper_fit_with_a_given_selection_reproduces_min_max_normalisers() -> None:
    data = synthetic(120, seed=6, ecs_informative={4: 2.0}, pks_informative={1: 2.0})
    profile = fit_paper_profile(
        data,
        model=MODEL,
        level="chunk",
        pks_mode="legacy",
        split="train",
        selection=PaperSelection(1, 2, 0.6, float("nan")),
    )
    combo = profile.combination
    assert isinstance(combo, PaperCombination)
    ecs, pks = data.columns_for(profile)
    assert combo.ecs_max_min == pytest.approx((ecs.sum(1).max(), ecs.sum(1).min()))
    assert combo.pks_max_min == pytest.approx((pks.sum(1).max(), pks.sum(1).min()))
    raw = combo.raw_score(ecs, pks)
    assert combo.final_max_min == pytest.approx((raw.max(), raw.min()))
    assert combo.platt is not None and combo.platt[0] > 0  # higher score -> more likely hallucinated


def test_logistic_matches_scikit_learn() -> None:
    data = synthetic(150, seed=7, ecs_informative={3: 1.0}, pks_informative={2: 1.0})
    profile = fit_logistic_profile(
        data,
        model=MODEL,
        level="token",
        pks_mode="jsd",
        split="train",
        selection=LogisticSelection(l2=2.0, pks_transform="none", cv_logloss=float("nan")),
    )
    x = np.hstack([data.ecs, data.pks])
    z = (x - x.mean(0)) / x.std(0)
    ref = LogisticRegression(C=0.5, tol=1e-12, max_iter=10_000).fit(z, data.labels)
    combo = profile.combination
    assert isinstance(combo, LogisticCombination)
    assert np.asarray(combo.coef) == pytest.approx(ref.coef_[0], abs=1e-5)
    assert combo.intercept == pytest.approx(ref.intercept_[0], abs=1e-5)
    ecs, pks = data.columns_for(profile)
    assert profile.token_scores(ecs, pks) == pytest.approx(ref.predict_proba(z)[:, 1], abs=1e-6)


def test_logistic_l2_choice_follows_the_signal() -> None:
    noise = synthetic(200, seed=8, ecs_informative={}, pks_informative={})
    strong = synthetic(200, seed=8, ecs_informative={0: 4.0, 1: 4.0}, pks_informative={0: 3.0})
    grid = (0.01, 1.0, 100.0)
    assert select_logistic(noise, l2_grid=grid, pks_transforms=("none",)).l2 == 100.0
    assert select_logistic(strong, l2_grid=grid, pks_transforms=("none",)).l2 < 100.0


def test_log1p_transform_is_chosen_for_heavy_tailed_pks_and_saved() -> None:
    rng = np.random.default_rng(9)
    n = 600
    y = (rng.uniform(size=n) < 0.4).astype(int)
    pks = np.exp(rng.normal(1.0 + 1.2 * y, 1.0)[:, None] + rng.normal(0, 0.01, (n, 1)))  # log-normal signal
    data = FeatureSet.build(
        rng.normal(0.5, 0.1, (n, 1)),
        pks,
        y,
        heads=[(0, 0)],
        layers=[0],
        groups=[f"g{i // 3}" for i in range(n)],
    )
    profile = fit_logistic_profile(data, model=MODEL, level="chunk", pks_mode="legacy", split="train")
    assert isinstance(profile.combination, LogisticCombination)
    assert profile.combination.pks_transform == "log1p"
    assert RedeepProfile.from_json(profile.to_json()) == profile


def test_single_class_training_data_is_refused() -> None:
    data = FeatureSet.build(np.zeros((20, 1)), np.zeros((20, 1)), [0] * 20, heads=[(0, 0)], layers=[0])
    with pytest.raises(ValueError, match="only one class"):
        fit_logistic_profile(data, model=MODEL, level="chunk", pks_mode="jsd", split="x")
    with pytest.raises(ValueError, match="both classes"):
        select_paper(data)
