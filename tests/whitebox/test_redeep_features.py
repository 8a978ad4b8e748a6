"""ReDeEP features from hooks equal a naive reference on the same tiny model (full eager attentions,
explicit logit lens and divergence formulas), on Llama and Qwen2."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch", reason="white-box signals need trustscore[whitebox]")

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from trustscore import Sample
from trustscore._errors import NoContextError
from trustscore.testing._tiny import save_tiny_model
from trustscore.whitebox._divergence import jensen_shannon, legacy_divergence_sum
from trustscore.whitebox._model import LoadedModel, encode_sample, load_model
from trustscore.whitebox._redeep_extract import extract_features
from trustscore.whitebox._redeep_features import FeatureRecipe, split_text

SAMPLE = Sample(
    question="Where is the Eiffel Tower, and how tall is it?",
    context=[
        "The Eiffel Tower is in Paris, the capital of France. It is about 330 metres tall.",
        "Water boils at 100 degrees Celsius at sea level.",
    ],
    response="The tower is in Paris, France. It is 330 metres tall and made of iron.",
)
HEADS = ((0, 1), (1, 3), (2, 0))
LAYERS = (0, 1, 2)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module", params=["llama", "qwen2"])
def tiny(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[LoadedModel, Any]:
    path = save_tiny_model(
        tmp_path_factory.mktemp(request.param) / "model", model_type=request.param, num_layers=3
    )
    loaded = load_model(path)
    from transformers import AutoModelForCausalLM

    eager = AutoModelForCausalLM.from_pretrained(
        path, local_files_only=True, attn_implementation="eager"
    ).eval()
    return loaded, eager


def _reference(eager: Any, loaded: LoadedModel, sample: Sample, recipe: FeatureRecipe) -> dict[str, Any]:
    """Everything the naive way: all attentions, all hidden states, full logits, numpy formulas."""
    enc = encode_sample(loaded.tokenizer, sample)
    ids = torch.tensor([enc.input_ids])
    attn_out: dict[int, torch.Tensor] = {}
    handles = [
        layer.self_attn.register_forward_hook(lambda m, a, o, i=i: attn_out.__setitem__(i, o[0][0]))
        for i, layer in enumerate(eager.model.layers)
    ]
    with torch.no_grad():
        out = eager(ids, output_attentions=True, output_hidden_states=True)
        for h in handles:
            h.remove()
        hs = [h[0] for h in out.hidden_states]
        shift = 1 if recipe.legacy else 0
        positions = list(range(enc.response_start - shift, enc.n_tokens - shift))
        keys = (
            list(range(enc.response_start))
            if recipe.legacy
            else [i for i, c in enumerate(enc.context_token_mask) if c]
        )
        k = max(1, int(recipe.top_k_fraction * len(keys)))
        last = hs[-1].double()
        ecs = np.zeros((len(positions), len(recipe.heads)))
        for col, (layer, head) in enumerate(recipe.heads):
            weights = out.attentions[layer][0, head]
            for row, p in enumerate(positions):
                top = [keys[j] for j in torch.topk(weights[p, keys], k).indices.tolist()]
                pooled = last[top].mean(0)
                ecs[row, col] = float(torch.nn.functional.cosine_similarity(pooled, last[p], dim=0))
        pks = np.zeros((len(positions), len(recipe.layers)))
        vocab = eager.config.vocab_size
        for col, layer in enumerate(recipe.layers):
            block = eager.model.layers[layer]
            mid = hs[layer] + attn_out[layer]
            after = mid + block.mlp(block.post_attention_layernorm(mid))
            if layer < len(eager.model.layers) - 1:
                torch.testing.assert_close(after, hs[layer + 1])
            lp = torch.log_softmax(eager.lm_head(eager.model.norm(mid[positions])).double(), -1).numpy()
            lq = torch.log_softmax(eager.lm_head(eager.model.norm(after[positions])).double(), -1).numpy()
            pp, qq = np.exp(lp), np.exp(lq)
            m = (pp + qq) / 2
            if recipe.legacy:
                pks[:, col] = 1e6 * np.mean(0.5 * (m * (np.log(m) - lp) + m * (np.log(m) - lq)), axis=1)
            else:
                pks[:, col] = 0.5 * np.sum(pp * (lp - np.log(m)), axis=1) + 0.5 * np.sum(
                    qq * (lq - np.log(m)), axis=1
                )
        assert vocab == eager.lm_head.weight.shape[0]
    return {"ecs": ecs, "pks": pks, "attentions": out.attentions, "enc": enc, "positions": positions}


@pytest.mark.parametrize("mode", ["jsd", "legacy"])
def test_token_features_match_naive_reference(tiny: tuple[LoadedModel, Any], mode: str) -> None:
    loaded, eager = tiny
    recipe = FeatureRecipe(heads=HEADS, layers=LAYERS, pks_mode=mode)  # type: ignore[arg-type]
    got = extract_features(loaded, SAMPLE, recipe, position_chunk=7)  # blocks that do not divide R
    ref = _reference(eager, loaded, SAMPLE, recipe)
    np.testing.assert_allclose(got.ecs, ref["ecs"], atol=2e-5)
    np.testing.assert_allclose(got.pks, ref["pks"], rtol=2e-3, atol=1e-7 if mode == "jsd" else 1e-3)
    assert got.ecs.shape == (ref["enc"].n_response_tokens, len(HEADS))
    assert got.pks.shape == (ref["enc"].n_response_tokens, len(LAYERS))


def test_paper_and_legacy_modes_differ(tiny: tuple[LoadedModel, Any]) -> None:
    loaded, _ = tiny
    paper = extract_features(loaded, SAMPLE, FeatureRecipe(heads=HEADS, layers=LAYERS))
    legacy = extract_features(loaded, SAMPLE, FeatureRecipe(heads=HEADS, layers=LAYERS, pks_mode="legacy"))
    assert not np.allclose(paper.ecs, legacy.ecs)
    assert np.all(paper.pks <= math.log(2)) and np.all(paper.pks >= 0)


def test_chunk_features_match_naive_reference(tiny: tuple[LoadedModel, Any]) -> None:
    loaded, eager = tiny
    vectors: dict[str, np.ndarray] = {}

    def fake_embed(texts: list[str]) -> np.ndarray:
        rng = np.random.default_rng(0)
        for t in texts:
            vectors.setdefault(t, rng.normal(size=16) + len(t))
        return np.stack([vectors[t] / np.linalg.norm(vectors[t]) for t in texts])

    for mode in ("jsd", "legacy"):
        recipe = FeatureRecipe(heads=HEADS, layers=LAYERS, level="chunk", pks_mode=mode)  # type: ignore[arg-type]
        got = extract_features(loaded, SAMPLE, recipe, embed=fake_embed, chunk_chars=32, position_chunk=5)
        ref = _reference(eager, loaded, SAMPLE, FeatureRecipe(heads=HEADS, layers=LAYERS, pks_mode=mode))  # type: ignore[arg-type]
        enc = ref["enc"]
        resp_chunks = split_text(SAMPLE.response, 32)
        assert got.spans == resp_chunks
        ctx_chunks = [
            (a + s, a + e) for a, b in enc.passage_char_ranges for s, e in split_text(enc.prompt[a:b], 32)
        ]
        ctx_tokens = [
            [
                i
                for i, (s, e) in enumerate(enc.token_char_ranges[: enc.response_start])
                if e > s and s < b and e > a
            ]
            for a, b in ctx_chunks
        ]
        for row, (a, b) in enumerate(resp_chunks):
            toks = [i for i, (s, e) in enumerate(enc.response_spans) if e > s and s < b and e > a]
            positions = [ref["positions"][t] for t in toks]
            # PKS: mean (paper) or the released sum of per-token vocab sums (legacy) over the chunk's tokens.
            if mode == "jsd":
                np.testing.assert_allclose(got.pks[row], ref["pks"][toks].mean(0), rtol=2e-3, atol=1e-7)
            else:
                vocab = loaded.lm_head.weight.shape[0]
                np.testing.assert_allclose(got.pks[row], ref["pks"][toks].sum(0) * vocab / 1e6, rtol=2e-3)
            for col, (layer, head) in enumerate(HEADS):
                w = ref["attentions"][layer][0, head].double()
                mass = [float(w[positions][:, c].sum()) for c in ctx_tokens]
                if mode == "jsd":
                    mass = [m / (len(positions) * len(c)) for m, c in zip(mass, ctx_tokens, strict=True)]
                best = int(np.argmax(mass))
                r_text = SAMPLE.response[a:b]
                c_text = enc.prompt[ctx_chunks[best][0] : ctx_chunks[best][1]]
                expected = float(fake_embed([r_text])[0] @ fake_embed([c_text])[0])
                assert got.ecs[row, col] == pytest.approx(expected, abs=1e-9)


def test_response_token_spans_map_to_characters(tiny: tuple[LoadedModel, Any]) -> None:
    loaded, _ = tiny
    enc = encode_sample(loaded.tokenizer, SAMPLE)
    pieces = [SAMPLE.response[a:b] for a, b in enc.response_spans]
    assert "".join(pieces) == SAMPLE.response
    assert loaded.tokenizer.decode(enc.input_ids[enc.response_start :]) == SAMPLE.response
    context_text = "".join(
        loaded.tokenizer.decode([t]) for t, c in zip(enc.input_ids, enc.context_token_mask, strict=True) if c
    )
    assert "Eiffel Tower is in Paris" in context_text and "Question" not in context_text


def test_plain_layout_without_chat_template(tmp_path: Path) -> None:
    path = save_tiny_model(tmp_path / "plain", chat_template=None, num_layers=1)
    loaded = load_model(path)
    enc = encode_sample(loaded.tokenizer, SAMPLE)
    assert enc.prompt.endswith("\n\nAnswer: ")
    assert enc.input_ids[0] == loaded.tokenizer.bos_token_id
    feats = extract_features(loaded, SAMPLE, FeatureRecipe(heads=((0, 0),), layers=(0,)))
    assert feats.n_units == enc.n_response_tokens


def test_no_context_and_bad_recipe_are_refused(tiny: tuple[LoadedModel, Any]) -> None:
    loaded, _ = tiny
    no_context = Sample(question="q?", context=["   "], response="An answer.")
    with pytest.raises(NoContextError, match="no context"):
        extract_features(loaded, no_context, FeatureRecipe(heads=HEADS, layers=LAYERS))
    with pytest.raises(ValueError, match=r"head \(9, 0\) is outside"):
        extract_features(loaded, SAMPLE, FeatureRecipe(heads=((9, 0),), layers=LAYERS))
    with pytest.raises(ValueError, match="sentence embedder"):
        extract_features(loaded, SAMPLE, FeatureRecipe(heads=HEADS, layers=LAYERS, level="chunk"))
    with pytest.raises(ValueError, match="max_tokens"):
        extract_features(loaded, SAMPLE, FeatureRecipe(heads=HEADS, layers=LAYERS), max_tokens=10)


class _LargestTensor(TorchDispatchMode):
    """Records the largest tensor any op produces."""

    def __init__(self) -> None:
        super().__init__()
        self.largest = 0

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        for t in out if isinstance(out, tuple | list) else [out]:
            if isinstance(t, torch.Tensor):
                self.largest = max(self.largest, t.numel())
        return out


def test_no_full_attention_or_logit_tensor_is_materialised(tiny: tuple[LoadedModel, Any]) -> None:
    loaded, _ = tiny
    assert loaded.config._attn_implementation == "sdpa"
    long = Sample(question=SAMPLE.question, context=[SAMPLE.context[0] * 6], response=SAMPLE.response * 3)
    n_tokens = encode_sample(loaded.tokenizer, long).n_tokens
    vocab = loaded.lm_head.weight.shape[0]
    recipe = FeatureRecipe(heads=HEADS, layers=LAYERS)
    with _LargestTensor() as probe:
        extract_features(loaded, long, recipe, position_chunk=16)
    # One head's full T x T map, or one layer's T x V logits, would already exceed this.
    assert probe.largest < min(n_tokens * n_tokens, n_tokens * vocab)
    assert probe.largest >= 16 * n_tokens  # the probe does see the [block, T] score blocks


def test_jsd_is_symmetric_bounded_and_zero_on_equal_inputs() -> None:
    g = torch.Generator().manual_seed(0)
    p, q = torch.randn(5, 50, generator=g) * 4, torch.randn(5, 50, generator=g) * 4
    torch.testing.assert_close(jensen_shannon(p, q), jensen_shannon(q, p))
    assert torch.all(jensen_shannon(p, q) <= math.log(2)) and torch.all(jensen_shannon(p, q) > 0)
    torch.testing.assert_close(jensen_shannon(p, p), torch.zeros(5), atol=1e-6, rtol=0)
    disjoint_a = torch.tensor([[100.0, -100.0]])
    disjoint_b = torch.tensor([[-100.0, 100.0]])
    assert float(jensen_shannon(disjoint_a, disjoint_b)[0]) == pytest.approx(math.log(2), abs=1e-6)


def test_legacy_divergence_matches_released_formula() -> None:
    g = torch.Generator().manual_seed(1)
    p, q = torch.randn(3, 40, generator=g), torch.randn(3, 40, generator=g)
    pp, qq = torch.softmax(p.double(), -1), torch.softmax(q.double(), -1)
    m = (pp + qq) / 2
    # F.kl_div(log P, M) is KL(M || P); the code averages 0.5 * (KL(M||P) + KL(M||Q)) over the vocabulary.
    expected = 0.5 * (
        torch.nn.functional.kl_div(pp.log(), m, reduction="none")
        + torch.nn.functional.kl_div(qq.log(), m, reduction="none")
    ).sum(-1)
    torch.testing.assert_close(legacy_divergence_sum(p, q).double(), expected, rtol=1e-4, atol=1e-7)


def test_split_text_respects_size_and_boundaries() -> None:
    text = "First sentence here. Second one is longer than that.\n\nA new paragraph starts. " + "x" * 40
    spans = split_text(text, 30)
    assert all(0 < b - a <= 30 for a, b in spans)
    assert text[spans[0][0] : spans[0][1]] == "First sentence here."
    assert "".join(text[a:b] for a, b in spans).replace(" ", "") == "".join(text.split())
    assert split_text("   ", 10) == []


def test_sliding_window_attention_matches_naive_reference(tmp_path: Path) -> None:
    """Mistral (and Qwen2's sliding layers) hide keys beyond the window; the recomputed rows must too."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = save_tiny_model(tmp_path / "mistral", model_type="mistral", num_layers=3)
    enc = encode_sample(AutoTokenizer.from_pretrained(path, local_files_only=True), SAMPLE)
    keys = [i for i, c in enumerate(enc.context_token_mask) if c]
    # The last response position sees only the second half of the context keys.
    window = enc.n_tokens - 1 - keys[len(keys) // 2] + 1
    config = json.loads((path / "config.json").read_text())
    config["sliding_window"] = window
    (path / "config.json").write_text(json.dumps(config))
    loaded = load_model(path)
    eager = AutoModelForCausalLM.from_pretrained(
        path, local_files_only=True, attn_implementation="eager"
    ).eval()
    assert eager.config.sliding_window == window
    for mode in ("jsd", "legacy"):
        recipe = FeatureRecipe(heads=HEADS, layers=LAYERS, pks_mode=mode)  # type: ignore[arg-type]
        got = extract_features(loaded, SAMPLE, recipe, position_chunk=7)
        ref = _reference(eager, loaded, SAMPLE, recipe)
        np.testing.assert_allclose(got.ecs, ref["ecs"], atol=2e-5)
