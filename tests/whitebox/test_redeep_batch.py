"""ReDeEP read for several samples in one right-padded forward: the same features as one at a time (fp32,
within ``TOLERANCE``), padding never read, bounded groups, and each sample failing alone."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch", reason="white-box signals need trustscore[whitebox]")

import torch

from trustscore import Sample
from trustscore._errors import NoContextError, WhiteboxModelError
from trustscore.testing._tiny import save_tiny_model
from trustscore.whitebox import _redeep_extract as redeep_extract
from trustscore.whitebox._model import LoadedModel, encode_sample, load_model
from trustscore.whitebox._redeep_extract import (
    MIN_FILL,
    extract_features,
    extract_features_batch,
    length_groups,
)
from trustscore.whitebox._redeep_features import FeatureRecipe, RedeepFeatures

TOLERANCE = 1e-6
"""Largest absolute difference of any ECS value and of any PKS value in nats (JSD), batched vs alone
(measured: 1.8e-7 and 1.2e-8 on the tiny Llama and Qwen2)."""
LEGACY_PKS_RTOL = 1e-3
"""Legacy PKS is 1e6 x a vocabulary mean of differences of near-equal log-probabilities, so fp32
rounding shows relatively: its largest relative difference (measured 1.7e-4; the reference test
allows 2e-3)."""

BASE = Sample(
    question="Where is the Eiffel Tower, and how tall is it?",
    context=[
        "The Eiffel Tower is in Paris, the capital of France. It is about 330 metres tall.",
        "Water boils at 100 degrees Celsius at sea level.",
    ],
    response="The tower is in Paris, France. It is 330 metres tall and made of iron.",
)
SAMPLES = [
    BASE,
    BASE.model_copy(update={"response": "Paris."}),
    BASE.model_copy(update={"response": "It stands in Paris and is 330 metres tall, brown since 1968."}),
    BASE.model_copy(update={"question": "How tall is it?", "response": "About 330 metres, in Paris."}),
]
HEADS = ((0, 1), (1, 3), (2, 0))
LAYERS = (0, 1, 2)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module", params=["llama", "qwen2"])
def loaded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> LoadedModel:
    path = save_tiny_model(
        tmp_path_factory.mktemp(request.param) / "model", model_type=request.param, num_layers=3
    )
    return load_model(path)


def fake_embed(texts: list[str]) -> np.ndarray:
    return np.stack([np.array([len(t), 1.0 + t.count("e"), t.count(" ")], dtype=np.float64) for t in texts])


class Forwards:
    """Records the shape of every decoder forward (rows x padded tokens)."""

    def __init__(self, loaded: LoadedModel) -> None:
        self.shapes: list[tuple[int, int]] = []
        self._handle = loaded.decoder.register_forward_pre_hook(self._hook, with_kwargs=True)

    def _hook(self, _module: Any, _args: Any, kwargs: dict[str, Any]) -> None:
        self.shapes.append(tuple(kwargs["input_ids"].shape))  # type: ignore[arg-type]

    def __enter__(self) -> Forwards:
        return self

    def __exit__(self, *_exc: object) -> None:
        self._handle.remove()


def assert_same(batched: RedeepFeatures | Exception, alone: RedeepFeatures) -> None:
    assert isinstance(batched, RedeepFeatures), batched
    assert batched.spans == alone.spans and batched.n_tokens == alone.n_tokens
    assert batched.n_context_tokens == alone.n_context_tokens
    assert batched.ecs.shape == alone.ecs.shape and batched.pks.shape == alone.pks.shape
    assert np.max(np.abs(batched.ecs - alone.ecs)) <= TOLERANCE
    if alone.recipe.legacy:
        assert np.max(np.abs(batched.pks - alone.pks) / np.abs(alone.pks)) <= LEGACY_PKS_RTOL
    else:
        assert np.max(np.abs(batched.pks - alone.pks)) <= TOLERANCE


@pytest.mark.parametrize(
    ("level", "mode"), [("token", "jsd"), ("token", "legacy"), ("chunk", "jsd"), ("chunk", "legacy")]
)
def test_batched_features_equal_one_at_a_time(loaded: LoadedModel, level: str, mode: str) -> None:
    recipe = FeatureRecipe(heads=HEADS, layers=LAYERS, level=level, pks_mode=mode)  # type: ignore[arg-type]
    options: dict[str, Any] = {"embed": fake_embed, "chunk_chars": 32, "position_chunk": 5}
    alone = [extract_features(loaded, s, recipe, **options) for s in SAMPLES]
    with Forwards(loaded) as forwards:
        batched = extract_features_batch(loaded, SAMPLES, recipe, batch_size=4, **options)
    lengths = sorted((encode_sample(loaded.tokenizer, s).n_tokens for s in SAMPLES), reverse=True)
    assert lengths[-1] < lengths[0], "the fixture must pad"
    assert forwards.shapes == [(4, lengths[0])], "one right-padded forward for the four samples"
    for got, expected in zip(batched, alone, strict=True):
        assert_same(got, expected)


def test_padding_never_enters_a_feature(loaded: LoadedModel) -> None:
    """Huge values written over the padding's embeddings change no feature, bit for bit."""
    recipe = FeatureRecipe(heads=HEADS, layers=LAYERS)
    encoded = [encode_sample(loaded.tokenizer, s).input_ids for s in SAMPLES]
    clean = extract_features_batch(loaded, SAMPLES, recipe, batch_size=4)
    padded_positions = 0

    def poison(_module: Any, args: tuple[Any, ...], output: torch.Tensor) -> torch.Tensor:
        nonlocal padded_positions
        output = output.clone()
        for row, ids in enumerate(args[0].tolist()):
            (n,) = {len(e) for e in encoded if ids[: len(e)] == e}
            output[row, n:] = 1e4 * torch.randn_like(output[row, n:])
            padded_positions += len(ids) - n
        return output

    handle = loaded.embed.register_forward_hook(poison)
    try:
        poisoned = extract_features_batch(loaded, SAMPLES, recipe, batch_size=4)
    finally:
        handle.remove()
    assert padded_positions > 0
    for a, b in zip(clean, poisoned, strict=True):
        assert isinstance(a, RedeepFeatures) and isinstance(b, RedeepFeatures)
        assert np.array_equal(a.ecs, b.ecs) and np.array_equal(a.pks, b.pks)


def test_a_sample_that_cannot_be_read_fails_alone_with_its_reason(loaded: LoadedModel) -> None:
    recipe = FeatureRecipe(heads=HEADS, layers=LAYERS)
    limit = max(encode_sample(loaded.tokenizer, s).n_tokens for s in SAMPLES)
    too_long = BASE.model_copy(update={"response": BASE.response * 4})
    no_context = BASE.model_copy(update={"context": []})
    batch = [SAMPLES[0], too_long, no_context, SAMPLES[1]]
    got = extract_features_batch(loaded, batch, recipe, max_tokens=limit)
    assert isinstance(got[1], WhiteboxModelError) and "signals.redeep.max_tokens" in str(got[1])
    assert isinstance(got[2], NoContextError)
    assert_same(got[0], extract_features(loaded, SAMPLES[0], recipe))
    assert_same(got[3], extract_features(loaded, SAMPLES[1], recipe))


def test_a_failing_batched_forward_is_retried_one_sample_at_a_time(
    loaded: LoadedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A forward that fails for the batch (out of memory, say) costs no sample its features; one that
    fails for one sample fails that sample alone."""
    recipe = FeatureRecipe(heads=HEADS, layers=LAYERS)
    real = redeep_extract._hooked_forward
    broken_response = SAMPLES[2].response

    def fragile(loaded: LoadedModel, batch: list[Any], *args: Any) -> Any:
        if len(batch) > 1:
            raise RuntimeError("out of memory")
        if batch[0].sample.response == broken_response:
            raise RuntimeError("this sample breaks the model")
        return real(loaded, batch, *args)

    monkeypatch.setattr(redeep_extract, "_hooked_forward", fragile)
    got = extract_features_batch(loaded, SAMPLES, recipe, batch_size=4)
    assert isinstance(got[2], RuntimeError) and str(got[2]) == "this sample breaks the model"
    for i in (0, 1, 3):
        assert_same(got[i], extract_features(loaded, SAMPLES[i], recipe))


def test_a_recipe_that_does_not_fit_fails_the_whole_batch(loaded: LoadedModel) -> None:
    with pytest.raises(ValueError, match="outside the model"):
        extract_features_batch(loaded, SAMPLES, FeatureRecipe(heads=((9, 0),), layers=(0,)))


def test_length_groups_bound_rows_tokens_and_padding() -> None:
    lengths = [100, 90, 80, 76, 74, 60, 50, 1000, 40]
    groups = length_groups(lengths, max_rows=3, max_tokens=400)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))
    for group in groups:
        longest = max(lengths[i] for i in group)
        assert len(group) <= 3
        assert len(group) == 1 or len(group) * longest <= 400
        assert all(lengths[i] >= MIN_FILL * longest for i in group), "padding under a quarter"
    assert groups[0] == [7], "a sample longer than the token bound runs alone"
    assert [100, 90, 80] in [[lengths[i] for i in g] for g in groups]
    assert length_groups([], max_rows=4) == []
