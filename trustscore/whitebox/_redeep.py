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

Samples read together (:func:`extract_features_batch`; the signal's samples in flight) share one
right-padded forward per group of similar length; each sample's features are then reduced from its own
rows by the same steps as alone (prepare, hooked forward, reduce).

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

import numpy as np
from numpy.typing import NDArray
from pydantic import JsonValue

from trustscore._errors import (
    BudgetExceeded,
    EmbedderError,
    NoContextError,
    WhiteboxLoadError,
    WhiteboxModelError,
)
from trustscore._types import Sample, Signal, Span, Usage
from trustscore.core._hashing import short_hash
from trustscore.whitebox._batching import MicroBatcher, loop_batcher
from trustscore.whitebox._heads import load_or_score_copying_heads
from trustscore.whitebox._model import (
    EncodedSample,
    LoadedModel,
    encode_sample,
    load_model,
    model_key,
    model_limiter,
)
from trustscore.whitebox._profile import ModelIdentity, RedeepProfile
from trustscore.whitebox._redeep_config import RedeepConfig

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
    "extract_features_batch",
    "jensen_shannon",
    "legacy_divergence_sum",
    "length_groups",
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


def _check_recipe(loaded: LoadedModel, recipe: FeatureRecipe, embed: EmbedFn | None) -> None:
    check_selection(loaded, recipe.heads, recipe.layers)
    if recipe.level == "chunk" and embed is None:
        raise ValueError("chunk-level ReDeEP needs a sentence embedder (pass embed=Embedder.encode)")


@dataclass
class _Prepared:
    """One sample encoded and located, ready for the forward pass."""

    sample: Sample
    enc: EncodedSample
    positions: torch.Tensor
    """Response positions whose features are read."""
    keys: torch.Tensor
    """Positions the copying heads may pick (the context tokens)."""
    n_context_tokens: int
    k: int
    """Top-k keys per position (token level)."""
    response_chunks: list[tuple[int, int]]
    chunk_onehot: torch.Tensor | None
    """[tokens, context chunks] membership (chunk level)."""
    context_chunk_texts: list[str]


def _prepare(
    loaded: LoadedModel,
    sample: Sample,
    recipe: FeatureRecipe,
    *,
    chunk_chars: int,
    system_prompt: str,
    max_tokens: int | None,
) -> _Prepared:
    import torch

    if not sample.has_context:
        raise NoContextError(
            "sample has no context: ReDeEP measures how the response uses retrieved passages; pass context"
        )
    enc = encode_sample(loaded.tokenizer, sample, system_prompt=system_prompt)
    limit = max_tokens or int(getattr(loaded.config, "max_position_embeddings", 0) or 0) or None
    if limit is not None and enc.n_tokens > limit:
        raise WhiteboxModelError(
            f"prompt + response is {enc.n_tokens} tokens, above the limit of {limit} "
            "(raise signals.redeep.max_tokens or shorten the context)"
        )
    device = loaded.device
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
    k = max(1, int(recipe.top_k_fraction * len(keys)))

    # Chunk level: which tokens make up each response chunk and each context chunk.
    response_chunks: list[tuple[int, int]] = []
    chunk_onehot: torch.Tensor | None = None
    context_chunk_texts: list[str] = []
    if recipe.level == "chunk":
        response_chunks = split_text(sample.response, chunk_chars)
        ctx_spans = [
            (a + s, a + e)
            for a, b in enc.passage_char_ranges
            for s, e in split_text(enc.prompt[a:b], chunk_chars)
        ]
        ctx_tokens = _chunk_token_sets(ctx_spans, enc.token_char_ranges[: enc.response_start])
        kept = [i for i, toks in enumerate(ctx_tokens) if toks]
        context_chunk_texts = [enc.prompt[ctx_spans[i][0] : ctx_spans[i][1]] for i in kept]
        chunk_onehot = torch.zeros(enc.n_tokens, len(kept), device=device)
        for col, i in enumerate(kept):
            chunk_onehot[ctx_tokens[i], col] = 1.0
    return _Prepared(
        sample=sample, enc=enc, positions=positions, keys=keys, n_context_tokens=int(key_mask.sum()), k=k,
        response_chunks=response_chunks, chunk_onehot=chunk_onehot, context_chunk_texts=context_chunk_texts,
    )  # fmt: skip


@dataclass
class _Read:
    """What the hooked forward read for one sample."""

    head_rows: dict[Head, _HeadRows] = field(default_factory=dict)
    mids: dict[int, torch.Tensor] = field(default_factory=dict)
    """Per layer, the residual before the FFN at the sample's positions."""
    outs: dict[int, torch.Tensor] = field(default_factory=dict)
    """Per layer, the layer's output at the sample's positions."""
    states: torch.Tensor | None = None
    """The final (post-norm) states of the sample's tokens, fp32."""


def _hooked_forward(
    loaded: LoadedModel, batch: Sequence[_Prepared], recipe: FeatureRecipe, position_chunk: int
) -> list[_Read]:
    """One forward pass of the samples, right-padded to the longest; hooks read each row's own tokens.

    Right padding keeps every sample at its own positions (0..n-1, as alone), and under the causal
    mask no real token attends to the padding after it; every read below slices a row to its own
    tokens, so the padding's states are computed and never read.
    """
    import torch

    reads = [_Read() for _ in batch]
    heads_by_layer: dict[int, list[int]] = {}
    for layer, head in recipe.heads:
        heads_by_layer.setdefault(layer, []).append(head)

    def attention_hook(layer: int) -> Callable[..., None]:
        def hook(_module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            hidden = kwargs["hidden_states"] if "hidden_states" in kwargs else args[0]
            for row, (p, read) in enumerate(zip(batch, reads, strict=True)):
                rows = _attention_rows(
                    loaded, layer, hidden[row], kwargs["position_embeddings"], heads_by_layer[layer],
                    p.positions, p.keys, p.k, p.chunk_onehot, position_chunk,
                )  # fmt: skip
                for head, reduced in rows.items():
                    read.head_rows[(layer, head)] = reduced

        return hook

    def mid_hook(layer: int) -> Callable[..., None]:
        def hook(_module: Any, args: tuple[Any, ...]) -> None:
            for row, (p, read) in enumerate(zip(batch, reads, strict=True)):
                read.mids[layer] = args[0][row, p.positions].clone()

        return hook

    def out_hook(layer: int) -> Callable[..., None]:
        def hook(_module: Any, _args: Any, output: Any) -> None:
            hidden = output[0] if isinstance(output, tuple) else output
            for row, (p, read) in enumerate(zip(batch, reads, strict=True)):
                read.outs[layer] = hidden[row, p.positions].clone()

        return hook

    def final_hook(_module: Any, _args: Any, output: Any) -> None:
        for row, (p, read) in enumerate(zip(batch, reads, strict=True)):
            read.states = output[row, : p.enc.n_tokens].float()

    width = max(p.enc.n_tokens for p in batch)
    pad = loaded.tokenizer.pad_token_id
    pad = pad if pad is not None else loaded.tokenizer.eos_token_id or 0
    ids = torch.tensor(
        [p.enc.input_ids + [pad] * (width - p.enc.n_tokens) for p in batch], device=loaded.device
    )
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
        with torch.inference_mode():
            loaded.decoder(input_ids=ids, use_cache=False)
    finally:
        for handle in handles:
            handle.remove()
    return reads


def _reduce(
    loaded: LoadedModel,
    p: _Prepared,
    read: _Read,
    recipe: FeatureRecipe,
    *,
    embed: EmbedFn | None,
    position_chunk: int,
) -> RedeepFeatures:
    """ECS and PKS per unit from what the forward read for one sample."""
    import torch

    enc, positions, device = p.enc, p.positions, loaded.device
    with torch.inference_mode():
        states = read.states
        assert states is not None
        # PKS per position: one layer and one block of positions of logits at a time.
        per_token_pks = torch.zeros(len(positions), len(recipe.layers), dtype=torch.float64)
        vocab = int(loaded.lm_head.weight.shape[0])
        for col, layer in enumerate(recipe.layers):
            for lo in range(0, len(positions), position_chunk):
                before = loaded.logit_lens(read.mids[layer][lo : lo + position_chunk])
                after = loaded.logit_lens(read.outs[layer][lo : lo + position_chunk])
                if recipe.legacy:
                    value = legacy_divergence_sum(before, after)
                    if recipe.level == "token":
                        value = value * (1e6 / vocab)
                else:
                    value = jensen_shannon(before, after)
                per_token_pks[lo : lo + position_chunk, col] = value.double().cpu()
            del read.mids[layer], read.outs[layer]

        if recipe.level == "token":
            ecs = torch.zeros(len(positions), len(recipe.heads), dtype=torch.float64)
            own = torch.nn.functional.normalize(states[positions], dim=-1)
            for col, selected in enumerate(recipe.heads):
                top = read.head_rows[selected].top_keys
                assert top is not None
                for lo in range(0, len(positions), position_chunk):
                    idx = top[lo : lo + position_chunk]
                    pooling = torch.zeros(len(idx), enc.n_tokens, device=device)
                    pooling.scatter_(1, idx, 1.0 / p.k)
                    pooled = torch.nn.functional.normalize(pooling @ states, dim=-1)
                    ecs[lo : lo + position_chunk, col] = (
                        (pooled * own[lo : lo + position_chunk]).sum(-1).double().cpu()
                    )
            return RedeepFeatures(
                recipe=recipe, ecs=ecs.numpy(), pks=per_token_pks.numpy(), spans=list(enc.response_spans),
                n_tokens=enc.n_tokens, n_context_tokens=p.n_context_tokens,
            )  # fmt: skip

        return _chunk_features(
            recipe, enc, p.sample, p.response_chunks, p.context_chunk_texts, read.head_rows, per_token_pks,
            p.chunk_onehot, embed, p.n_context_tokens,
        )  # fmt: skip


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
    _check_recipe(loaded, recipe, embed)
    p = _prepare(
        loaded, sample, recipe, chunk_chars=chunk_chars, system_prompt=system_prompt, max_tokens=max_tokens
    )
    (read,) = _hooked_forward(loaded, [p], recipe, position_chunk)
    return _reduce(loaded, p, read, recipe, embed=embed, position_chunk=position_chunk)


BATCH_TOKENS = 8192
"""Most padded tokens in one batched forward; a longer sample still runs, alone."""
MIN_FILL = 0.75
"""A sample shares a forward only with samples at most 1/``MIN_FILL`` its length, so padding stays
under a quarter of any batched forward."""


def length_groups(lengths: Sequence[int], max_rows: int, max_tokens: int = BATCH_TOKENS) -> list[list[int]]:
    """Indices of ``lengths`` grouped for batched forwards: longest first, each group at most
    ``max_rows`` rows and ``max_tokens`` padded tokens, every member at least ``MIN_FILL`` of its
    group's longest."""
    groups: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lambda j: -lengths[j]):
        group = groups[-1] if groups else []
        longest = lengths[group[0]] if group else 0
        if (
            group
            and len(group) < max_rows
            and (len(group) + 1) * longest <= max_tokens
            and lengths[i] >= MIN_FILL * longest
        ):
            group.append(i)
        else:
            groups.append([i])
    return groups


def extract_features_batch(
    loaded: LoadedModel,
    samples: Sequence[Sample],
    recipe: FeatureRecipe,
    *,
    embed: EmbedFn | None = None,
    position_chunk: int = 256,
    chunk_chars: int = 512,
    system_prompt: str = "You are a helpful assistant.",
    max_tokens: int | None = None,
    batch_size: int = 8,
) -> list[RedeepFeatures | Exception]:
    """:func:`extract_features` of several samples in few forward passes (blocking): samples of
    similar length share one right-padded forward (:func:`length_groups`), then each sample's
    features are reduced from its own slice of it, as alone.

    One outcome per sample, in order: its features, or the error :func:`extract_features` raises for
    it alone (no context, too long, ...), so one bad sample fails alone. A batched forward that
    fails (out of memory, say) is retried one sample at a time. A recipe that does not fit the model
    raises ``ValueError``, and an exhausted budget :class:`~trustscore._errors.BudgetExceeded`, for all.
    """
    _check_recipe(loaded, recipe, embed)
    outcomes: dict[int, RedeepFeatures | Exception] = {}
    prepared: list[tuple[int, _Prepared]] = []
    for i, sample in enumerate(samples):
        try:
            prepared.append(
                (i, _prepare(
                    loaded, sample, recipe, chunk_chars=chunk_chars, system_prompt=system_prompt,
                    max_tokens=max_tokens,
                ))
            )  # fmt: skip
        except BudgetExceeded:
            raise
        except Exception as e:
            outcomes[i] = e

    def read(members: list[tuple[int, _Prepared]]) -> None:
        try:
            reads = _hooked_forward(loaded, [p for _, p in members], recipe, position_chunk)
        except BudgetExceeded:
            raise
        except Exception as e:
            if len(members) == 1:
                outcomes[members[0][0]] = e
            else:
                for member in members:
                    read([member])
            return
        for (i, p), sample_read in zip(members, reads, strict=True):
            try:
                outcomes[i] = _reduce(
                    loaded, p, sample_read, recipe, embed=embed, position_chunk=position_chunk
                )
            except BudgetExceeded:
                raise
            except Exception as e:
                outcomes[i] = e

    for group in length_groups([p.enc.n_tokens for _, p in prepared], batch_size):
        read([prepared[g] for g in group])
    return [outcomes[i] for i in range(len(samples))]


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
    kind = "local"

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
        """Samples in flight that wait for the model together are read in one batched pass
        (:func:`extract_features_batch`, at most ``batch_size``); each gets its own result or reason."""
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
            features = await self._reader().submit(sample)
            return self._signal(sample, features, started)
        except (WhiteboxLoadError, EmbedderError):
            raise  # the Scorer marks the sample incomplete: the model may load on a rerun
        except Exception as e:  # a source reports why it cannot answer; only cancellation propagates
            usage = Usage(seconds=time.perf_counter() - started)
            return Signal.failed(self.name, f"{type(e).__name__}: {e}", usage=usage, version=self.version)

    def _reader(self) -> MicroBatcher[Sample, RedeepFeatures]:
        key = self._key
        return loop_batcher(
            self, "features", self._read_batch, lambda: model_limiter(key), self.config.batch_size
        )

    def _default_embed(self) -> EmbedFn:
        if self._embed is None:
            from trustscore.textmodels import load_embedder

            self._embed = load_embedder().encode
        return self._embed

    def _read_batch(self, samples: list[Sample]) -> list[RedeepFeatures | Exception]:
        profile = self.profile
        assert profile is not None
        loaded = load_model(self.model_path, device=self.device, dtype=self.dtype)
        profile.check_model(ModelIdentity.from_hf_config(loaded.config))
        recipe = FeatureRecipe.from_profile(profile)
        embed = self._default_embed() if recipe.level == "chunk" else None
        cfg = self.config
        with loaded.lock:
            return extract_features_batch(
                loaded, samples, recipe, embed=embed, position_chunk=cfg.position_chunk,
                chunk_chars=cfg.chunk_chars, system_prompt=cfg.system_prompt, max_tokens=cfg.max_tokens,
                batch_size=cfg.batch_size,
            )  # fmt: skip

    def _signal(self, sample: Sample, features: RedeepFeatures, started: float) -> Signal:
        profile = self.profile
        assert profile is not None
        recipe = features.recipe
        cfg = self.config
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
