"""AARF on a tiny random Llama: the named heads and layers, by the exact factors, only past the threshold."""

from __future__ import annotations

from pathlib import Path

import pytest

from trustscore import Sample
from trustscore.testing._tiny import save_tiny_model
from trustscore.whitebox._model import build_prompt
from trustscore.whitebox._profile import (
    LogisticCombination,
    ModelIdentity,
    RedeepProfile,
    TrainingSummary,
)
from trustscore.whitebox.aarf import (
    AARFSettings,
    Intervention,
    _cache_keyword,
    _cache_of,
    generate_with_aarf,
    load_for_aarf,
)

torch = pytest.importorskip("torch")

SAMPLE = Sample(
    question="Where does the river flow?",
    context=["The river flows north through the valley."],
    response="(ignored)",
)
HEADS = [(0, 1), (1, 3)]
LAYERS = [1]


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return load_for_aarf(save_tiny_model(tmp_path_factory.mktemp("aarf") / "llama", num_layers=3))


def _plain_greedy(loaded, n: int) -> list[int]:  # type: ignore[no-untyped-def]
    ids = loaded.tokenizer(
        build_prompt(loaded.tokenizer, SAMPLE), add_special_tokens=False, return_tensors="pt"
    ).input_ids
    out = loaded.model.generate(ids, max_new_tokens=n, do_sample=False, eos_token_id=None)
    return out[0, ids.shape[1] :].tolist()


def test_below_the_threshold_generation_is_plain_greedy(loaded) -> None:  # type: ignore[no-untyped-def]
    seen = []
    result = generate_with_aarf(
        loaded,
        SAMPLE,
        heads=HEADS,
        layers=LAYERS,
        score_fn=lambda e, p: 0.1,
        settings=AARFSettings(threshold=0.4, max_new_tokens=8),
        on_step=seen.append,
    )
    assert [s.token_id for s in result.steps] == _plain_greedy(loaded, 8)
    assert result.intervened_steps == [] and seen == result.steps


def test_intervenes_on_exactly_the_steps_whose_score_passes(loaded) -> None:  # type: ignore[no-untyped-def]
    script = [0.1, 0.5, 0.4, 0.9, 0.0, 0.0, 0.0, 0.95]
    calls = iter(script)
    result = generate_with_aarf(
        loaded,
        SAMPLE,
        heads=HEADS,
        layers=LAYERS,
        score_fn=lambda e, p: next(calls),
        settings=AARFSettings(threshold=0.4, max_new_tokens=8),
    )
    assert [s.score for s in result.steps] == script
    assert result.intervened_steps == [1, 3]  # 0.4 is not above; the last step has no next token to steer
    plain = _plain_greedy(loaded, 8)
    # Tokens up to the first intervened step's own token are untouched; the one after it comes from the
    # intervened pass.
    assert [s.token_id for s in result.steps[:2]] == plain[:2]


def test_the_intervened_pass_equals_a_forward_with_the_hooks_on(loaded) -> None:  # type: ignore[no-untyped-def]
    scores = iter([1.0, 0.0])
    result = generate_with_aarf(
        loaded,
        SAMPLE,
        heads=HEADS,
        layers=LAYERS,
        score_fn=lambda e, p: next(scores),
        settings=AARFSettings(alpha=3.0, beta=0.5, max_new_tokens=2),
    )
    assert result.intervened_steps == [0]
    ids = loaded.tokenizer(
        build_prompt(loaded.tokenizer, SAMPLE), add_special_tokens=False, return_tensors="pt"
    ).input_ids
    first = result.steps[0].token_id
    full = torch.cat([ids, torch.tensor([[first]])], dim=1)
    with torch.no_grad():
        prefix = loaded.model(input_ids=ids, use_cache=True)
        with Intervention(loaded, HEADS, LAYERS, 3.0, 0.5) as iv:
            iv.active = True
            cache = {_cache_keyword(loaded.model): _cache_of(prefix)}  # either transformers' name
            logits = loaded.model(input_ids=full[:, -1:], **cache).logits
    assert result.steps[1].token_id == int(logits[0, -1].argmax())


@pytest.mark.parametrize("legacy", [False, True], ids=["paper", "legacy"])
def test_hooks_scale_exactly_the_named_heads_and_layers(loaded, legacy: bool) -> None:  # type: ignore[no-untyped-def]
    alpha, beta = 5.0, 0.2
    d = loaded.head_dim
    before: dict[str, torch.Tensor] = {}
    after: dict[str, torch.Tensor] = {}
    handles = []

    def pre(store: dict, name: str):  # type: ignore[no-untyped-def]
        return lambda _m, args: store.__setitem__(name, args[0].detach().clone())

    def post(store: dict, name: str):  # type: ignore[no-untyped-def]
        return lambda _m, _a, out: store.__setitem__(
            name, (out[0] if isinstance(out, tuple) else out).detach().clone()
        )

    def sublayer(layer: int):  # type: ignore[no-untyped-def]
        return loaded.layers[layer].self_attn if legacy else loaded.layers[layer].mlp

    for layer in range(loaded.n_layers):
        handles.append(loaded.attention(layer).o_proj.register_forward_pre_hook(pre(before, f"o{layer}")))
        handles.append(sublayer(layer).register_forward_hook(post(before, f"f{layer}")))
    ids = loaded.tokenizer("The river flows north.", return_tensors="pt").input_ids
    try:
        with Intervention(loaded, HEADS, LAYERS, alpha, beta, legacy=legacy) as iv:
            for layer in range(loaded.n_layers):
                handles.append(
                    loaded.attention(layer).o_proj.register_forward_pre_hook(pre(after, f"o{layer}"))
                )
                handles.append(sublayer(layer).register_forward_hook(post(after, f"f{layer}")))
            with torch.no_grad():
                loaded.model(input_ids=ids)
                for key in before:  # inactive: nothing changes
                    assert torch.equal(before[key], after[key])
                iv.active = True
                loaded.model(input_ids=ids)
    finally:
        for h in handles:
            h.remove()
    for layer in range(loaded.n_layers):
        for head in range(loaded.n_heads):
            sl = slice(head * d, (head + 1) * d)
            factor = alpha if (layer, head) in HEADS else 1.0
            assert torch.equal(after[f"o{layer}"][..., sl], before[f"o{layer}"][..., sl] * factor), (
                layer,
                head,
            )
        factor = beta if layer in LAYERS else 1.0
        assert torch.equal(after[f"f{layer}"], before[f"f{layer}"] * factor), layer
    assert not any(after[f"o{layer}"].equal(before[f"o{layer}"]) for layer in {h[0] for h in HEADS})


def _profile(loaded, level: str = "token") -> RedeepProfile:  # type: ignore[no-untyped-def]
    return RedeepProfile(
        model=ModelIdentity.from_hf_config(loaded.config),
        level=level,
        pks_mode="jsd",
        heads=[(2, 0)],
        layers=[0, 2],
        combination=LogisticCombination(
            mean=[0.5, 0.0, 0.0], scale=[0.2, 1e-4, 1e-4], coef=[-2.0, 1.0, 1.0], intercept=0.0, l2=1.0
        ),
        training=TrainingSummary(n=10, positive_rate=0.5, data_sha256="0" * 64, split="test fixture"),
    )


def test_a_profile_gives_the_heads_layers_and_the_token_score(loaded) -> None:  # type: ignore[no-untyped-def]
    profile = _profile(loaded)
    result = generate_with_aarf(loaded, SAMPLE, profile=profile, settings=AARFSettings(max_new_tokens=6))
    assert result.heads == [(2, 0)] and result.layers == [0, 2]
    assert all(0.0 <= s.score <= 1.0 for s in result.steps)
    assert len({round(s.score, 6) for s in result.steps}) > 1, "the score must follow the tokens"
    assert result.intervened_steps == [s.index for s in result.steps[:-1] if s.score > 0.4]


def test_bad_requests_are_refused_with_the_reason(loaded, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="token-level"):
        generate_with_aarf(loaded, SAMPLE, profile=_profile(loaded, "chunk"))
    with pytest.raises(ValueError, match="outside the model"):
        generate_with_aarf(loaded, SAMPLE, heads=[(9, 0)], score_fn=lambda e, p: 0.0)
    with pytest.raises(ValueError, match="score_fn"):
        generate_with_aarf(loaded, SAMPLE, heads=HEADS)
    with pytest.raises(ValueError, match="heads or knowledge layers"):
        generate_with_aarf(loaded, SAMPLE, heads=[], layers=[], score_fn=lambda e, p: 0.0)
    with pytest.raises(ValueError, match="no context"):
        generate_with_aarf(loaded, Sample(question="q", response="r"), heads=HEADS, score_fn=lambda e, p: 0.0)
    with pytest.raises(ValueError):
        AARFSettings(beta=1.5)


class _OldForward:
    """A model of a transformers release before the rename: ``past_key_values`` in and out."""

    def forward(self, input_ids: object = None, past_key_values: object = None) -> None:
        return None


class _NewForward:
    def forward(self, input_ids: object = None, cache: object = None) -> None:
        return None


def test_the_cache_goes_by_the_name_the_installed_transformers_takes() -> None:
    assert _cache_keyword(_OldForward()) == "past_key_values"
    assert _cache_keyword(_NewForward()) == "cache"

    class Old:
        past_key_values = "kv"

    class New:
        cache = "kv"
        past_key_values = "deprecated"

    assert _cache_of(Old()) == "kv" and _cache_of(New()) == "kv"
