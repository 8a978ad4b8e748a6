"""The ``redeep`` LocalSignal: profile scoring, spans, missing cases, concurrency, lazy imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import numpy as np
import pytest

pytest.importorskip("torch", reason="white-box signals need trustscore[whitebox]")


from trustscore import Sample, Signal
from trustscore._errors import WhiteboxModelError
from trustscore.signals import LocalSignal
from trustscore.testing._tiny import save_tiny_model
from trustscore.whitebox._model import encode_sample, load_model, model_key, model_limiter
from trustscore.whitebox._profile import (
    LogisticCombination,
    ModelIdentity,
    PaperCombination,
    ProfileError,
    RedeepProfile,
    TrainingSummary,
)
from trustscore.whitebox._redeep import NO_PROFILE, RedeepSignal
from trustscore.whitebox._redeep_config import RedeepConfig
from trustscore.whitebox._redeep_extract import extract_features
from trustscore.whitebox._redeep_features import FeatureRecipe, candidate_recipe

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("one_torch_thread")]

SAMPLE = Sample(
    question="Where is the Eiffel Tower?",
    context=["The Eiffel Tower is in Paris, the capital of France.", "It was finished in 1889."],
    response="The Eiffel Tower is in Paris. It was built in 1889 by aliens.",
)
TRAINING = TrainingSummary(n=100, positive_rate=0.4, data_sha256="0" * 64, split="synthetic test fixture")


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_model(tmp_path_factory.mktemp("signal") / "llama", num_layers=2)


def _profile(path: Path, *, level: str = "token", n_layers: int | None = None) -> RedeepProfile:
    identity = ModelIdentity.from_hf_config(load_model(path).config)
    if n_layers is not None:
        identity = identity.model_copy(update={"n_layers": n_layers})
    return RedeepProfile(
        model=identity,
        level=level,  # type: ignore[arg-type]
        pks_mode="jsd",
        heads=[(0, 1), (1, 2)],
        layers=[0, 1],
        # Steep weights on the first ECS column so that some tokens land on each side of 0.5.
        combination=LogisticCombination(
            mean=[0.3, 0.3, 0, 0], scale=[0.1, 1, 1, 1], coef=[-3.0, 0, 0, 0], intercept=0.0, l2=1.0
        ),
        response_aggregation="mean",
        training=TRAINING,
    )


async def test_value_and_spans_follow_the_profile(model_path: Path) -> None:
    profile = _profile(model_path)
    signal = RedeepSignal(model_path=model_path, profile=profile)
    assert isinstance(signal, LocalSignal)
    result = await signal.run(SAMPLE)
    assert result.value is not None, result.error
    features = extract_features(load_model(model_path), SAMPLE, FeatureRecipe.from_profile(profile))
    probs = profile.token_scores(features.ecs, features.pks)
    assert result.value == pytest.approx(1 - probs.mean())
    assert 0 < (probs >= 0.5).sum() < len(probs), "fixture must flag some tokens and not others"
    flagged = [features.spans[i] for i in np.flatnonzero(probs >= 0.5)]
    covered = {c for s in result.spans for c in range(s.start, s.end)}
    assert covered == {c for a, b in flagged for c in range(a, b)}
    for span in result.spans:
        assert span.text == SAMPLE.response[span.start : span.end]
        assert span.label == "hallucination" and span.score is not None and span.score >= 0.5
    assert set(result.raw) >= {"p_hallucinated", "ecs_mean", "pks_mean", "units"}  # type: ignore[arg-type]
    assert (
        result.usage.prompt_tokens == features.n_tokens
        and result.version
        and result.version.startswith("redeep-1+")
    )


async def test_without_profile_the_signal_is_missing_with_the_reason(model_path: Path) -> None:
    result = await RedeepSignal(model_path=model_path, profile=None).run(SAMPLE)
    assert result.missing and result.error == NO_PROFILE
    assert "set signals.redeep.profile" in NO_PROFILE and "trustscore fit-redeep" in NO_PROFILE


async def test_empty_context_is_missing(model_path: Path) -> None:
    result = await RedeepSignal(model_path=model_path, profile=_profile(model_path)).run(
        Sample(question="q?", context=[], response="An answer.")
    )
    assert result.missing and "no context" in (result.error or "")


async def test_profile_for_another_model_is_missing(model_path: Path) -> None:
    result = await RedeepSignal(model_path=model_path, profile=_profile(model_path, n_layers=32)).run(SAMPLE)
    assert result.missing and "fitted for another model" in (result.error or "")


async def test_oversized_input_is_missing_and_names_the_setting(model_path: Path) -> None:
    signal = RedeepSignal(
        model_path=model_path, profile=_profile(model_path), config=RedeepConfig(max_tokens=16)
    )
    result = await signal.run(SAMPLE)
    assert result.missing and "signals.redeep.max_tokens" in (result.error or "")


async def test_concurrent_runs_match_sequential(model_path: Path) -> None:
    signal = RedeepSignal(model_path=model_path, profile=_profile(model_path))
    samples = [SAMPLE, SAMPLE.model_copy(update={"response": "Paris. Built in 1889."}), SAMPLE]
    sequential = [await signal.run(s) for s in samples]
    results: dict[int, Signal] = {}

    async def one(i: int, s: Sample) -> None:
        results[i] = await signal.run(s)

    async with anyio.create_task_group() as tg:
        for i, s in enumerate(samples):
            tg.start_soon(one, i, s)
    for i, expected in enumerate(sequential):  # runs in flight are batched: equal up to float rounding
        assert results[i].value == pytest.approx(expected.value)
        assert [(s.start, s.end, s.text) for s in results[i].spans] == [
            (s.start, s.end, s.text) for s in expected.spans
        ]
        assert [s.score for s in results[i].spans] == pytest.approx([s.score for s in expected.spans])


async def test_runs_in_flight_share_a_forward_and_fail_alone(model_path: Path) -> None:
    """Runs that wait for the model together are read in one batched forward; an oversized one among
    them is missing with its reason and costs the others nothing."""
    loaded = load_model(model_path)
    limit = encode_sample(loaded.tokenizer, SAMPLE).n_tokens + 8
    signal = RedeepSignal(
        model_path=model_path, profile=_profile(model_path), config=RedeepConfig(max_tokens=limit)
    )
    samples = [
        SAMPLE,
        SAMPLE.model_copy(update={"response": SAMPLE.response * 3}),  # above max_tokens
        SAMPLE.model_copy(update={"response": "Paris. Built in 1889."}),
        SAMPLE.model_copy(update={"response": "In Paris, built by aliens."}),
    ]
    sequential = [await signal.run(s) for s in samples]
    rows: list[int] = []
    handle = loaded.decoder.register_forward_pre_hook(
        lambda _m, _a, kw: rows.append(int(kw["input_ids"].shape[0])), with_kwargs=True
    )
    results: dict[int, Signal] = {}

    async def one(i: int) -> None:
        results[i] = await signal.run(samples[i])

    limiter = model_limiter(model_key(model_path))
    try:
        await limiter.acquire()  # the model is busy: all four runs wait for it together
        async with anyio.create_task_group() as tg:
            for i in range(len(samples)):
                tg.start_soon(one, i)
            await anyio.wait_all_tasks_blocked()
            limiter.release()
    finally:
        handle.remove()
    # the first run leads a batch of its own; the other three wait together, one of them oversized
    assert sum(rows) == 3 and len(rows) == 2, rows
    assert results[1].missing and "signals.redeep.max_tokens" in (results[1].error or "")
    for i in (0, 2, 3):
        assert results[i].value == pytest.approx(sequential[i].value)


async def test_chunk_level_uses_the_given_embedder(model_path: Path) -> None:
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(texts)
        return np.stack([np.array([len(t), 1.0, t.count("e")]) for t in texts])

    identity = ModelIdentity.from_hf_config(load_model(model_path).config)
    profile = RedeepProfile(
        model=identity, level="chunk", pks_mode="jsd", heads=[(0, 1)], layers=[1],
        combination=PaperCombination(
            beta=0.5, pks_max_min=(0.01, 0.0), ecs_max_min=(1.0, -1.0), final_max_min=(1.0, -1.0)
        ),
        training=TRAINING,
    )  # fmt: skip
    signal = RedeepSignal(
        model_path=model_path, profile=profile, config=RedeepConfig(chunk_chars=32), embed=embed
    )
    result = await signal.run(SAMPLE)
    assert result.value is not None, result.error
    assert calls and SAMPLE.response[:29] in calls[0]
    assert result.raw["units"] == 2  # type: ignore[index,call-overload]


def test_from_config(model_path: Path, tmp_path: Path) -> None:
    with pytest.raises(WhiteboxModelError, match=r"signals\.redeep\.model_path is not set"):
        RedeepSignal.from_config(RedeepConfig())
    missing = RedeepConfig(model_path=model_path, profile=tmp_path / "nope.json")
    with pytest.raises(ProfileError, match="does not exist"):
        RedeepSignal.from_config(missing)
    profile = _profile(model_path)
    profile.save(tmp_path / "p.json")
    signal = RedeepSignal.from_config(RedeepConfig(model_path=model_path, profile=tmp_path / "p.json"))
    assert signal.profile == profile and signal.name == "redeep"
    assert RedeepSignal.from_config(RedeepConfig(model_path=model_path)).profile is None


def test_whitebox_modules_import_without_torch() -> None:
    code = (
        "import sys, trustscore, trustscore.whitebox._redeep, trustscore.whitebox._heads;"
        "import trustscore.whitebox._model;"
        "heavy = [m for m in ('torch', 'transformers') if m in sys.modules]; assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_candidate_recipe_reads_top_copying_heads_and_every_layer(model_path: Path, tmp_path: Path) -> None:
    loaded = load_model(model_path)
    config = RedeepConfig(candidate_heads=3, heads_cache_dir=tmp_path, gershgorin_sample=None)
    recipe = candidate_recipe(loaded, config, level="chunk", pks_mode="legacy")
    assert len(recipe.heads) == 3 and recipe.layers == (0, 1)
    assert recipe.level == "chunk" and recipe.legacy
    assert list((tmp_path / "copying_heads").glob("*.json")), "copying-head scores are cached"


async def test_unexpected_errors_become_a_missing_signal(
    model_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trustscore.whitebox import _redeep as redeep

    def broken(*_a: object, **_k: object) -> None:
        raise IndexError("boom inside the model")

    monkeypatch.setattr(redeep, "extract_features_batch", broken)
    result = await RedeepSignal(model_path=model_path, profile=_profile(model_path)).run(SAMPLE)
    assert result.missing and result.error == "IndexError: boom inside the model"


async def test_cancellation_propagates_and_frees_the_model(model_path: Path) -> None:
    signal = RedeepSignal(model_path=model_path, profile=_profile(model_path))
    with anyio.move_on_after(0) as scope:
        await signal.run(SAMPLE)
    assert scope.cancelled_caught
    after = await signal.run(SAMPLE)
    assert after.value is not None


def test_label_units_marks_units_overlapping_an_annotated_span() -> None:
    from trustscore.fitting._redeep import label_units

    units = [(0, 3), (4, 9), (10, 14), (14, 15)]
    assert label_units(units, [(5, 6)]).tolist() == [0, 1, 0, 0]
    assert label_units(units, [(9, 10), (14, 40)]).tolist() == [0, 0, 0, 1]  # touching is not overlapping
    assert label_units(units, []).tolist() == [0, 0, 0, 0]


async def test_collect_features_then_fit_gives_a_profile_the_signal_scores_with(
    model_path: Path, tmp_path: Path
) -> None:
    from trustscore.fitting._redeep import collect_features, fit_logistic_profile

    loaded = load_model(model_path)
    recipe = FeatureRecipe(heads=((0, 1), (1, 2), (1, 3)), layers=(0, 1))
    samples = [SAMPLE.model_copy(update={"id": f"r{i}"}) for i in range(4)]
    bad = SAMPLE.response.index("by aliens")
    hallucinated = [[(bad, bad + len("by aliens"))], [], [(bad, bad + 2)], []]
    data = collect_features(loaded, samples, hallucinated, recipe, groups=["s0", "s0", "s1", "s1"])
    one = extract_features(loaded, SAMPLE, recipe)
    assert data.n == 4 * one.n_units and data.heads == recipe.heads and data.layers == recipe.layers
    np.testing.assert_allclose(data.ecs[: one.n_units], one.ecs)
    flagged = [
        SAMPLE.response[a:b] for (a, b), y in zip(one.spans, data.labels[: one.n_units], strict=True) if y
    ]
    assert "".join(flagged).strip() == "by aliens"
    assert data.labels[one.n_units : 2 * one.n_units].sum() == 0
    assert sorted(set(data.groups.tolist())) == ["s0", "s1"] and data.responses[0] == "r0"
    with pytest.raises(ValueError, match="one entry per sample"):
        collect_features(loaded, samples, hallucinated[:2], recipe)

    profile = fit_logistic_profile(
        data,
        model=ModelIdentity.from_hf_config(loaded.config),
        level="token",
        pks_mode="jsd",
        split="test fixture",
        n_folds=2,
    )
    profile.save(tmp_path / "p.json")
    signal = RedeepSignal(model_path=model_path, profile=RedeepProfile.load(tmp_path / "p.json"))
    out = await signal.run(SAMPLE)
    assert out.value is not None and 0.0 <= out.value <= 1.0, out.error
