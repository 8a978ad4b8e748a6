"""ReDeEP (Sun et al., ICLR 2025) from one teacher-forced forward pass, and the ``redeep`` signal.

Per response unit (token or chunk) two feature families are read from the local model:

* **ECS** (External Context Score), one column per copying head in A: for each response position,
  the top-k% context keys the head attends to, their last-layer states mean-pooled, and the cosine
  of that mean with the position's own last-layer state (the final, post-norm state, as HF returns
  it). Chunk level: the head picks, for each response chunk, the context chunk it attends to most;
  ECS is the cosine of the two chunks' sentence embeddings.
* **PKS** (Parametric Knowledge Score), one column per layer in F: the Jensen-Shannon divergence
  (natural log, fp32, bounded by ln 2) between the logit-lens distributions of the residual before
  the FFN (input of ``post_attention_layernorm``) and after it (the layer's output). Chunk level:
  the mean over the chunk's tokens.

Attention rows are recomputed only for the selected heads, from the captured attention input and
RoPE (q·k, causal softmax in fp32), block by block of response positions; the model itself runs
with SDPA and no L x H x T x T tensor is ever made. Logit-lens logits exist for one layer and one
block of positions at a time, so no L x T x V tensor is made either.

**Legacy mode** (profile ``pks_mode = "legacy"``) reproduces the released code (Jeryi-Sun/ReDEeP-ICLR)
so its numbers can be compared: PKS = 1e6 · mean over the vocabulary of ½(KL(M‖P) + KL(M‖Q)) with
M = (P+Q)/2 at token level, and the vocabulary *sum* of the same, summed over the chunk's tokens, at
chunk level; ECS keys are the whole prefix (BOS, system prompt, template, question and context),
not only the passages; a token's features are read at the position that predicts it (one to its
left); and the chunk's context partner is chosen by the *sum* (not the mean) of attention.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import anyio
import numpy as np
from numpy.typing import NDArray
from pydantic import JsonValue

from trustscore.core.hashing import short_hash
from trustscore.errors import EmbedderError, NoContextError, WhiteboxLoadError, WhiteboxModelError
from trustscore.types import Sample, Signal, Span, Usage
from trustscore.whitebox.heads import load_or_score_copying_heads
from trustscore.whitebox.model import (
    EncodedSample,
    LoadedModel,
    encode_sample,
    load_model,
    model_key,
    model_limiter,
)
from trustscore.whitebox.profile import ModelIdentity, RedeepProfile
from trustscore.whitebox.redeep_config import RedeepConfig

if TYPE_CHECKING:
    import torch

__all__ = [
    "METHOD_VERSION",
    "NO_PROFILE",
    "EmbedFn",
    "FeatureRecipe",
    "RedeepFeatures",
    "RedeepSignal",
    "candidate_recipe",
    "check_selection",
    "extract_features",
    "jensen_shannon",
    "legacy_divergence_sum",
    "split_text",
]

METHOD_VERSION = "redeep-1"
NO_PROFILE = (
    "no fitted ReDeEP profile for this model: fit one from labeled rows with "
    "`trustscore fit-redeep ROWS.jsonl --model MODEL_DIR -o profile.json` and set signals.redeep.profile"
)

Head = tuple[int, int]
EmbedFn = Callable[[list[str]], NDArray[np.floating[Any]]]
"""Anything that maps texts to one embedding row each, e.g. ``Embedder.encode``."""


# ---- divergences -------------------------------------------------------------------------------


def jensen_shannon(logits_p: torch.Tensor, logits_q: torch.Tensor) -> torch.Tensor:
    """JSD(P, Q) per row in nats (symmetric, in [0, ln 2]); logits in any dtype, computed in fp32."""
    import torch

    lp = torch.log_softmax(logits_p.float(), dim=-1)
    lq = torch.log_softmax(logits_q.float(), dim=-1)
    lm = torch.logaddexp(lp, lq) - math.log(2.0)
    kl_pm = (lp.exp() * (lp - lm)).sum(dim=-1)
    kl_qm = (lq.exp() * (lq - lm)).sum(dim=-1)
    return (0.5 * (kl_pm + kl_qm)).clamp(0.0, math.log(2.0))


def legacy_divergence_sum(logits_p: torch.Tensor, logits_q: torch.Tensor) -> torch.Tensor:
    """The released code's divergence before its reductions: sum_v ½(KL(M‖P) + KL(M‖Q))_v per row.

    (``F.kl_div(log P, M)`` computes KL(M‖P), the reverse of the JSD's terms.) Token level divides
    by the vocabulary size and multiplies by 1e6; chunk level sums it over the chunk's tokens.
    """
    import torch

    lp = torch.log_softmax(logits_p.float(), dim=-1)
    lq = torch.log_softmax(logits_q.float(), dim=-1)
    lm = torch.logaddexp(lp, lq) - math.log(2.0)
    m = lm.exp()
    return 0.5 * ((m * (lm - lp)).sum(dim=-1) + (m * (lm - lq)).sum(dim=-1))


# ---- chunking ----------------------------------------------------------------------------------

_SEPARATORS = ("\n\n", "\n", ". ", " ")


def split_text(text: str, max_chars: int) -> list[tuple[int, int]]:
    """Character spans of chunks of at most ``max_chars``, cut at the coarsest separator that fits.

    Like a recursive character splitter with no overlap: paragraph, then line, then sentence, then
    word boundaries, else a hard cut. Whitespace at chunk edges is left out of the spans.
    """
    spans: list[tuple[int, int]] = []
    start, n = 0, len(text)
    while start < n:
        while start < n and text[start].isspace():
            start += 1
        if start >= n:
            break
        end = min(start + max_chars, n)
        if end < n:
            window = text[start:end]
            for sep in _SEPARATORS:
                cut = window.rfind(sep)
                if cut > 0:
                    end = start + cut + len(sep)
                    break
        stop = end
        while stop > start and text[stop - 1].isspace():
            stop -= 1
        spans.append((start, stop))
        start = end
    return spans


# ---- features ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FeatureRecipe:
    """What to extract: must match what the profile was fitted on."""

    heads: tuple[Head, ...]
    layers: tuple[int, ...]
    level: Literal["token", "chunk"] = "token"
    pks_mode: Literal["jsd", "legacy"] = "jsd"
    top_k_fraction: float = 0.1

    def __post_init__(self) -> None:
        if not 0.0 < self.top_k_fraction <= 1.0:
            raise ValueError(f"top_k_fraction must be in (0, 1], got {self.top_k_fraction}")

    @classmethod
    def from_profile(cls, profile: RedeepProfile) -> FeatureRecipe:
        return cls(
            heads=tuple((int(a), int(b)) for a, b in profile.heads),
            layers=tuple(int(x) for x in profile.layers),
            level=profile.level,
            pks_mode=profile.pks_mode,
            top_k_fraction=profile.top_k_fraction,
        )

    @property
    def legacy(self) -> bool:
        return self.pks_mode == "legacy"


def candidate_recipe(
    loaded: LoadedModel,
    config: RedeepConfig | None = None,
    *,
    level: Literal["token", "chunk"] = "token",
    pks_mode: Literal["jsd", "legacy"] = "jsd",
    top_k_fraction: float = 0.1,
) -> FeatureRecipe:
    """What to extract when fitting a profile: the strongest ``config.candidate_heads`` copying heads
    (scored from the weights, cached) and every layer. The fit then picks A and F among them."""
    config = config or RedeepConfig()
    copying = load_or_score_copying_heads(
        loaded, cache_dir=config.heads_cache_dir, gershgorin_sample=config.gershgorin_sample
    )
    return FeatureRecipe(
        heads=tuple(copying.top(config.candidate_heads)),
        layers=tuple(range(loaded.n_layers)),
        level=level,
        pks_mode=pks_mode,
        top_k_fraction=top_k_fraction,
    )


@dataclass(frozen=True)
class RedeepFeatures:
    """Features of one sample: one row per unit (response token or chunk)."""

    recipe: FeatureRecipe
    ecs: NDArray[np.float64]
    """[units, len(recipe.heads)]"""
    pks: NDArray[np.float64]
    """[units, len(recipe.layers)]"""
    spans: list[tuple[int, int]]
    """Per unit, its ``[start, end)`` characters in the response."""
    n_tokens: int
    n_context_tokens: int

    @property
    def n_units(self) -> int:
        return len(self.spans)


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    import torch

    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


@dataclass
class _HeadRows:
    """What one selected head's attention rows were reduced to."""

    top_keys: torch.Tensor | None = None
    """[R, k] key positions of the top-k keys per response position (token level)."""
    block_mass: torch.Tensor | None = None
    """[R, C] attention mass per context chunk per response position (chunk level)."""


def _sliding_window(config: Any, layer: int) -> int | None:
    """The attention window of ``layer`` (Mistral: every layer; Qwen2: its "sliding_attention" layers).

    A query at position q sees keys k with ``q - k < window`` (transformers' sliding-window mask).
    """
    window = getattr(config, "sliding_window", None)
    layer_types = getattr(config, "layer_types", None)
    if window is None or (layer_types is not None and layer_types[layer] != "sliding_attention"):
        return None
    return int(window)


def _attention_rows(
    loaded: LoadedModel,
    layer: int,
    hidden: torch.Tensor,
    position_embeddings: tuple[torch.Tensor, torch.Tensor],
    heads: list[int],
    positions: torch.Tensor,
    keys: torch.Tensor,
    k: int,
    chunk_onehot: torch.Tensor | None,
    block: int,
) -> dict[int, _HeadRows]:
    """Recompute the selected heads' attention rows at ``positions`` and reduce them at once.

    ``hidden`` is the attention module's input [T, d] (already through the input norm). Only
    [block, T] scores of one head exist at a time.
    """
    import torch

    attn = loaded.attention(layer)
    dh, group = loaded.head_dim, loaded.n_heads // loaded.n_kv_heads
    n_keys_total = int(positions.max().item()) + 1
    cos, sin = (t[0].float() for t in position_embeddings)
    q_all = attn.q_proj(hidden[positions]).float().view(len(positions), -1, dh)
    k_all = attn.k_proj(hidden[:n_keys_total]).float().view(n_keys_total, -1, dh)
    if hasattr(attn, "q_norm"):  # families with per-head q/k norms (applied before RoPE)
        q_all, k_all = attn.q_norm(q_all), attn.k_norm(k_all)
    q_all = q_all * cos[positions, None, :] + _rotate_half(q_all) * sin[positions, None, :]
    k_all = k_all * cos[:n_keys_total, None, :] + _rotate_half(k_all) * sin[:n_keys_total, None, :]
    scaling = float(getattr(attn, "scaling", dh**-0.5))
    key_index = torch.arange(n_keys_total, device=hidden.device)
    window = _sliding_window(loaded.config, layer)
    out: dict[int, _HeadRows] = {}
    for head in heads:
        q_h, k_h = q_all[:, head], k_all[:, head // group]
        rows = _HeadRows()
        tops, masses = [], []
        for lo in range(0, len(positions), block):
            pos = positions[lo : lo + block]
            scores = (q_h[lo : lo + block] @ k_h.T) * scaling  # [b, T']
            hidden_keys = key_index[None, :] > pos[:, None]
            if window is not None:
                hidden_keys = hidden_keys | (key_index[None, :] <= pos[:, None] - window)
            scores = scores.masked_fill(hidden_keys, float("-inf"))
            if chunk_onehot is None:
                # softmax is monotone within a row, so the top-k keys are the top-k scores.
                tops.append(keys[scores[:, keys].topk(k, dim=-1).indices])
            else:
                weights = torch.softmax(scores, dim=-1)
                masses.append(weights @ chunk_onehot[:n_keys_total])
        if chunk_onehot is None:
            rows.top_keys = torch.cat(tops)
        else:
            rows.block_mass = torch.cat(masses)
        out[head] = rows
    return out


def _chunk_token_sets(
    char_spans: Sequence[tuple[int, int]], token_ranges: Sequence[tuple[int, int]], offset: int = 0
) -> list[list[int]]:
    """For each chunk, the indices of the tokens whose characters overlap it (``offset`` shifts chunks)."""
    sets = []
    for start, end in char_spans:
        a, b = start + offset, end + offset
        sets.append([i for i, (s, e) in enumerate(token_ranges) if e > s and s < b and e > a])
    return sets


def extract_features(
    loaded: LoadedModel,
    sample: Sample,
    recipe: FeatureRecipe,
    *,
    embed: EmbedFn | None = None,
    position_chunk: int = 256,
    chunk_chars: int = 512,
    system_prompt: str = "You are a helpful assistant.",
    max_tokens: int | None = None,
) -> RedeepFeatures:
    """One hooked forward pass of ``prompt + response``; ECS and PKS per unit (blocking).

    Raises ``NoContextError`` when there is nothing to attend to, ``WhiteboxModelError`` for
    inputs the model cannot take, ``ValueError`` for a recipe that does not fit the model.
    """
    import torch

    _check_recipe(loaded, sample, recipe, embed)
    enc = _encode_within_limit(loaded, sample, system_prompt, max_tokens)
    where = _read_positions(enc, recipe, loaded.device)
    response_chunks: list[tuple[int, int]] = []
    context_chunk_texts: list[str] = []
    chunk_onehot: torch.Tensor | None = None
    if recipe.level == "chunk":
        response_chunks = split_text(sample.response, chunk_chars)
        context_chunk_texts, chunk_onehot = _context_chunks(enc, chunk_chars, loaded.device)
    captured = _hooked_forward(loaded, enc, recipe, where, chunk_onehot, position_chunk)
    with torch.inference_mode():
        per_token_pks = _token_pks(loaded, recipe, captured, len(where.positions), position_chunk)
        if recipe.level == "token":
            return RedeepFeatures(
                recipe=recipe, ecs=_token_ecs(recipe, enc, where, captured, position_chunk).numpy(),
                pks=per_token_pks.numpy(), spans=list(enc.response_spans),
                n_tokens=enc.n_tokens, n_context_tokens=int(where.key_mask.sum()),
            )  # fmt: skip

        return _chunk_features(
            recipe, enc, sample, response_chunks, context_chunk_texts, captured.head_rows, per_token_pks,
            chunk_onehot, embed, int(where.key_mask.sum()),
        )  # fmt: skip


def _check_recipe(loaded: LoadedModel, sample: Sample, recipe: FeatureRecipe, embed: EmbedFn | None) -> None:
    """Refuse a recipe outside the model, chunk level without an embedder, and a sample without context."""
    check_selection(loaded, recipe.heads, recipe.layers)
    if recipe.level == "chunk" and embed is None:
        raise ValueError("chunk-level ReDeEP needs a sentence embedder (pass embed=Embedder.encode)")
    if not sample.has_context:
        raise NoContextError(
            "sample has no context: ReDeEP measures how the response uses retrieved passages; pass context"
        )


def check_selection(loaded: LoadedModel, heads: Sequence[Head], layers: Sequence[int]) -> None:
    """Refuse (``ValueError``) a head or layer the model does not have."""
    for layer, head in heads:
        if not (0 <= layer < loaded.n_layers and 0 <= head < loaded.n_heads):
            raise ValueError(
                f"head ({layer}, {head}) is outside the model ({loaded.n_layers} x {loaded.n_heads})"
            )
    for layer in layers:
        if not 0 <= layer < loaded.n_layers:
            raise ValueError(f"layer {layer} is outside the model ({loaded.n_layers} layers)")


def _encode_within_limit(
    loaded: LoadedModel, sample: Sample, system_prompt: str, max_tokens: int | None
) -> EncodedSample:
    """The chat-formatted sample, refused when it is longer than ``max_tokens`` (else the model's window)."""
    enc = encode_sample(loaded.tokenizer, sample, system_prompt=system_prompt)
    limit = max_tokens or int(getattr(loaded.config, "max_position_embeddings", 0) or 0) or None
    if limit is not None and enc.n_tokens > limit:
        raise WhiteboxModelError(
            f"prompt + response is {enc.n_tokens} tokens, above the limit of {limit} "
            "(raise signals.redeep.max_tokens or shorten the context)"
        )
    return enc


@dataclass
class _ReadPositions:
    """Where the features are read: the response positions, the context keys and top-k's k."""

    positions: torch.Tensor
    key_mask: torch.Tensor
    keys: torch.Tensor
    k: int


def _read_positions(enc: EncodedSample, recipe: FeatureRecipe, device: Any) -> _ReadPositions:
    import torch

    shift = 1 if recipe.legacy else 0
    positions = torch.arange(enc.response_start - shift, enc.n_tokens - shift, device=device)
    if recipe.legacy:
        key_mask = torch.arange(enc.n_tokens, device=device) < enc.response_start
    else:
        key_mask = torch.tensor(enc.context_token_mask, device=device)
    keys = key_mask.nonzero().flatten()
    if len(keys) == 0:
        raise NoContextError(
            "the context produced no tokens in the prompt: nothing for the copying heads to read"
        )
    return _ReadPositions(positions, key_mask, keys, max(1, int(recipe.top_k_fraction * len(keys))))


def _context_chunks(enc: EncodedSample, chunk_chars: int, device: Any) -> tuple[list[str], torch.Tensor]:
    """Chunk level: the context chunks' texts and which prompt tokens make up each ([T, C] one-hot)."""
    import torch

    ctx_spans = [
        (a + s, a + e)
        for a, b in enc.passage_char_ranges
        for s, e in split_text(enc.prompt[a:b], chunk_chars)
    ]
    ctx_tokens = _chunk_token_sets(ctx_spans, enc.token_char_ranges[: enc.response_start])
    kept = [i for i, toks in enumerate(ctx_tokens) if toks]
    chunk_onehot = torch.zeros(enc.n_tokens, len(kept), device=device)
    for col, i in enumerate(kept):
        chunk_onehot[ctx_tokens[i], col] = 1.0
    return [enc.prompt[ctx_spans[i][0] : ctx_spans[i][1]] for i in kept], chunk_onehot


@dataclass
class _Captured:
    """What the hooks keep from the forward pass."""

    head_rows: dict[Head, _HeadRows] = field(default_factory=dict)
    mids: dict[int, torch.Tensor] = field(default_factory=dict)
    """per PKS layer: the residual before the FFN at the read positions"""
    outs: dict[int, torch.Tensor] = field(default_factory=dict)
    """per PKS layer: the layer's output at the read positions"""
    states: torch.Tensor | None = None
    """[T, d] final (post-norm) states, fp32"""


def _hooked_forward(
    loaded: LoadedModel,
    enc: EncodedSample,
    recipe: FeatureRecipe,
    where: _ReadPositions,
    chunk_onehot: torch.Tensor | None,
    position_chunk: int,
) -> _Captured:
    """Run the model once over the sample with hooks that reduce the selected heads' attention rows and
    keep the PKS layers' residuals and the final states."""
    import torch

    heads_by_layer: dict[int, list[int]] = {}
    for layer, head in recipe.heads:
        heads_by_layer.setdefault(layer, []).append(head)
    captured = _Captured()
    positions = where.positions

    def attention_hook(layer: int) -> Callable[..., None]:
        def hook(_module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            hidden = kwargs["hidden_states"] if "hidden_states" in kwargs else args[0]
            rows = _attention_rows(
                loaded, layer, hidden[0], kwargs["position_embeddings"], heads_by_layer[layer],
                positions, where.keys, where.k, chunk_onehot, position_chunk,
            )  # fmt: skip
            for head, reduced in rows.items():
                captured.head_rows[(layer, head)] = reduced

        return hook

    def mid_hook(layer: int) -> Callable[..., None]:
        def hook(_module: Any, args: tuple[Any, ...]) -> None:
            captured.mids[layer] = args[0][0, positions].clone()

        return hook

    def out_hook(layer: int) -> Callable[..., None]:
        def hook(_module: Any, _args: Any, output: Any) -> None:
            hidden = output[0] if isinstance(output, tuple) else output
            captured.outs[layer] = hidden[0, positions].clone()

        return hook

    def final_hook(_module: Any, _args: Any, output: Any) -> None:
        captured.states = output[0].float()

    handles = []
    try:
        for layer in heads_by_layer:
            handles.append(
                loaded.attention(layer).register_forward_pre_hook(attention_hook(layer), with_kwargs=True)
            )
        for layer in recipe.layers:
            handles.append(loaded.pre_ffn_norm(layer).register_forward_pre_hook(mid_hook(layer)))
            handles.append(loaded.layers[layer].register_forward_hook(out_hook(layer)))
        handles.append(loaded.final_norm.register_forward_hook(final_hook))
        ids = torch.tensor([enc.input_ids], device=loaded.device)
        with torch.inference_mode():
            loaded.decoder(input_ids=ids, use_cache=False)
    finally:
        for handle in handles:
            handle.remove()
    return captured


def _token_pks(
    loaded: LoadedModel, recipe: FeatureRecipe, captured: _Captured, n_positions: int, position_chunk: int
) -> torch.Tensor:
    """[R, len(layers)] PKS per read position: one layer and one block of positions of logits at a time
    (frees each layer's captured residuals once read)."""
    import torch

    per_token_pks = torch.zeros(n_positions, len(recipe.layers), dtype=torch.float64)
    vocab = int(loaded.lm_head.weight.shape[0])
    mids, outs = captured.mids, captured.outs
    for col, layer in enumerate(recipe.layers):
        for lo in range(0, n_positions, position_chunk):
            before = loaded.logit_lens(mids[layer][lo : lo + position_chunk])
            after = loaded.logit_lens(outs[layer][lo : lo + position_chunk])
            if recipe.legacy:
                value = legacy_divergence_sum(before, after)
                if recipe.level == "token":
                    value = value * (1e6 / vocab)
            else:
                value = jensen_shannon(before, after)
            per_token_pks[lo : lo + position_chunk, col] = value.double().cpu()
        del mids[layer], outs[layer]
    return per_token_pks


def _token_ecs(
    recipe: FeatureRecipe, enc: EncodedSample, where: _ReadPositions, captured: _Captured, position_chunk: int
) -> torch.Tensor:
    """[R, len(heads)] ECS per read position: cosine of its final state with its top-k keys' mean state."""
    import torch

    states = captured.states
    assert states is not None
    positions = where.positions
    ecs = torch.zeros(len(positions), len(recipe.heads), dtype=torch.float64)
    own = torch.nn.functional.normalize(states[positions], dim=-1)
    for col, selected in enumerate(recipe.heads):
        top = captured.head_rows[selected].top_keys
        assert top is not None
        for lo in range(0, len(positions), position_chunk):
            idx = top[lo : lo + position_chunk]
            pooling = torch.zeros(len(idx), enc.n_tokens, device=states.device)
            pooling.scatter_(1, idx, 1.0 / where.k)
            pooled = torch.nn.functional.normalize(pooling @ states, dim=-1)
            ecs[lo : lo + position_chunk, col] = (
                (pooled * own[lo : lo + position_chunk]).sum(-1).double().cpu()
            )
    return ecs


def _chunk_features(
    recipe: FeatureRecipe,
    enc: EncodedSample,
    sample: Sample,
    response_chunks: list[tuple[int, int]],
    context_chunk_texts: list[str],
    head_rows: dict[Head, _HeadRows],
    per_token_pks: torch.Tensor,
    chunk_onehot: torch.Tensor | None,
    embed: EmbedFn | None,
    n_context_tokens: int,
) -> RedeepFeatures:
    """Reduce per-position attention mass and PKS to response chunks; ECS from chunk embeddings."""
    assert chunk_onehot is not None and embed is not None
    members = _chunk_token_sets(response_chunks, enc.response_spans)
    kept = [i for i, toks in enumerate(members) if toks]
    spans = [response_chunks[i] for i in kept]
    texts = [sample.response[a:b] for a, b in spans]
    vectors = np.asarray(embed(texts + context_chunk_texts), dtype=np.float64)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    resp_vec, ctx_vec = vectors[: len(texts)], vectors[len(texts) :]
    ctx_sizes = chunk_onehot.sum(dim=0).double().cpu().numpy()  # tokens per context chunk
    ecs = np.zeros((len(kept), len(recipe.heads)))
    pks = np.zeros((len(kept), len(recipe.layers)))
    token_pks = per_token_pks.numpy()
    for row, i in enumerate(kept):
        toks = members[i]
        pks[row] = token_pks[toks].sum(axis=0) if recipe.legacy else token_pks[toks].mean(axis=0)
        for col, head in enumerate(recipe.heads):
            mass_rows = head_rows[head].block_mass
            assert mass_rows is not None
            mass = mass_rows[toks].sum(dim=0).double().cpu().numpy()
            if not recipe.legacy:  # the paper mean-pools the block; the code sums it
                mass = mass / (len(toks) * ctx_sizes)
            ecs[row, col] = float(resp_vec[row] @ ctx_vec[int(np.argmax(mass))])
    return RedeepFeatures(
        recipe=recipe, ecs=ecs, pks=pks, spans=spans, n_tokens=enc.n_tokens, n_context_tokens=n_context_tokens
    )


# ---- the signal --------------------------------------------------------------------------------


def _merge_spans(
    response: str, units: list[tuple[int, int]], probs: NDArray[np.float64], threshold: float
) -> list[Span]:
    """Consecutive flagged units joined into one span, scored by their highest probability."""
    spans: list[Span] = []
    run: list[int] = []
    for i in [*range(len(units)), -1]:
        if i >= 0 and probs[i] >= threshold:
            run.append(i)
            continue
        if run:
            start, end = units[run[0]][0], units[run[-1]][1]
            spans.append(
                Span(
                    start=start,
                    end=end,
                    text=response[start:end],
                    score=float(probs[run].max()),
                    label="hallucination",
                )
            )
            run = []
    return spans


class RedeepSignal:
    """The ``redeep`` local signal: value = 1 - P(hallucinated) from a fitted profile."""

    name = "redeep"

    def __init__(
        self,
        *,
        model_path: str | Path,
        profile: RedeepProfile | None,
        config: RedeepConfig | None = None,
        device: str = "cpu",
        dtype: Literal["float32", "bfloat16", "float16"] = "float32",
        embed: EmbedFn | None = None,
    ) -> None:
        self.model_path = Path(model_path)
        self.profile = profile
        self.config = config or RedeepConfig()
        self.device = device
        self.dtype = dtype
        self._embed = embed
        self._key = model_key(self.model_path, device=device, dtype=dtype)
        fitted = profile.checksum() if profile is not None else "none"
        self.version = f"{METHOD_VERSION}+{short_hash(fitted)}"

    @classmethod
    def from_config(cls, config: RedeepConfig, *, embed: EmbedFn | None = None) -> RedeepSignal:
        """Build from ``[signals.redeep]``; a named profile that cannot be read is an error here, not at
        scoring."""
        if config.model_path is None:
            raise WhiteboxModelError(
                "signals.redeep.model_path is not set: point it at the generator model's local directory"
            )
        profile = RedeepProfile.load(config.profile) if config.profile is not None else None
        return cls(
            model_path=config.model_path, profile=profile, config=config,
            device=config.device, dtype=config.dtype, embed=embed,
        )  # fmt: skip

    async def run(self, sample: Sample) -> Signal:
        started = time.perf_counter()
        if self.profile is None:
            return Signal.failed(self.name, NO_PROFILE, version=self.version)
        if not sample.has_context:
            return Signal.failed(
                self.name,
                "sample has no context: ReDeEP measures how the response uses retrieved passages; "
                "pass context",
                version=self.version,
            )
        try:
            return await anyio.to_thread.run_sync(
                self._score, sample, started, limiter=model_limiter(self._key)
            )
        except (WhiteboxLoadError, EmbedderError):
            raise  # the Scorer marks the sample incomplete: the model may load on a rerun
        except Exception as e:  # a source reports why it cannot answer; only cancellation propagates
            usage = Usage(seconds=time.perf_counter() - started)
            return Signal.failed(self.name, f"{type(e).__name__}: {e}", usage=usage, version=self.version)

    def _default_embed(self) -> EmbedFn:
        if self._embed is None:
            from trustscore.grounding.embedder import load_embedder

            self._embed = load_embedder().encode
        return self._embed

    def _score(self, sample: Sample, started: float) -> Signal:
        profile = self.profile
        assert profile is not None
        loaded = load_model(self.model_path, device=self.device, dtype=self.dtype)
        profile.check_model(ModelIdentity.from_hf_config(loaded.config))
        recipe = FeatureRecipe.from_profile(profile)
        embed = self._default_embed() if recipe.level == "chunk" else None
        cfg = self.config
        with loaded.lock:
            features = extract_features(
                loaded, sample, recipe, embed=embed, position_chunk=cfg.position_chunk,
                chunk_chars=cfg.chunk_chars, system_prompt=cfg.system_prompt, max_tokens=cfg.max_tokens,
            )  # fmt: skip
        probs = profile.token_scores(features.ecs, features.pks)
        p_hallucinated = profile.aggregate(probs)
        raw: dict[str, JsonValue] = {
            "p_hallucinated": p_hallucinated,
            "level": recipe.level,
            "units": features.n_units,
            "ecs_mean": {
                f"{a}:{b}": float(v)
                for (a, b), v in zip(recipe.heads, features.ecs.mean(axis=0), strict=True)
            },
            "pks_mean": {
                str(layer): float(v)
                for layer, v in zip(recipe.layers, features.pks.mean(axis=0), strict=True)
            },
        }
        return Signal(
            name=self.name,
            value=min(1.0, max(0.0, 1.0 - p_hallucinated)),
            raw=raw,
            spans=_merge_spans(sample.response, features.spans, probs, cfg.span_threshold),
            usage=Usage(prompt_tokens=features.n_tokens, seconds=time.perf_counter() - started),
            version=self.version,
        )
