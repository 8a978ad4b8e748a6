"""What ReDeEP reads, per response unit (token or chunk): the recipe (copying heads, layers, unit,
mode), the features it yields, the text chunking, and the attention rows of the selected heads
recomputed from the captured attention input and RoPE (q·k, causal softmax in fp32). The forward pass
that captures them is :mod:`trustscore.whitebox._redeep_extract`; the method is described in
:mod:`trustscore.whitebox._redeep`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from trustscore._types import Sample
from trustscore.whitebox._heads import load_or_score_copying_heads
from trustscore.whitebox._model import (
    EncodedSample,
    LoadedModel,
)
from trustscore.whitebox._profile import RedeepProfile
from trustscore.whitebox._redeep_config import RedeepConfig

if TYPE_CHECKING:
    import torch

__all__ = [
    "EmbedFn",
    "FeatureRecipe",
    "Head",
    "HeadRows",
    "RedeepFeatures",
    "attention_rows",
    "candidate_recipe",
    "check_recipe",
    "check_selection",
    "chunk_features",
    "chunk_token_sets",
    "split_text",
]


Head = tuple[int, int]


EmbedFn = Callable[[list[str]], NDArray[np.floating[Any]]]
"""Anything that maps texts to one embedding row each, e.g. ``Embedder.encode``."""


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
class HeadRows:
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


def attention_rows(
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
) -> dict[int, HeadRows]:
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
    out: dict[int, HeadRows] = {}
    for head in heads:
        q_h, k_h = q_all[:, head], k_all[:, head // group]
        rows = HeadRows()
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


def chunk_token_sets(
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


def check_recipe(loaded: LoadedModel, recipe: FeatureRecipe, embed: EmbedFn | None) -> None:
    check_selection(loaded, recipe.heads, recipe.layers)
    if recipe.level == "chunk" and embed is None:
        raise ValueError("chunk-level ReDeEP needs a sentence embedder (pass embed=Embedder.encode)")


def chunk_features(
    recipe: FeatureRecipe,
    enc: EncodedSample,
    sample: Sample,
    response_chunks: list[tuple[int, int]],
    context_chunk_texts: list[str],
    head_rows: dict[Head, HeadRows],
    per_token_pks: torch.Tensor,
    chunk_onehot: torch.Tensor | None,
    embed: EmbedFn | None,
    n_context_tokens: int,
) -> RedeepFeatures:
    """Reduce per-position attention mass and PKS to response chunks; ECS from chunk embeddings."""
    assert chunk_onehot is not None and embed is not None
    members = chunk_token_sets(response_chunks, enc.response_spans)
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
