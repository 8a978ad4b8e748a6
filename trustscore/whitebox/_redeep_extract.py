"""ReDeEP's features from one teacher-forced forward pass: prepare the sample (chunks, token sets),
run the model with hooks that capture the attention inputs, the residuals around each FFN and the final
states (one layer and one block of positions at a time: no L x T x V tensor), then reduce each
sample's rows to :class:`~trustscore.whitebox._redeep_features.RedeepFeatures`.

Samples read together (:func:`extract_features_batch`) share one right-padded forward per group of
similar length; each sample's features are then reduced from its own rows by the same steps as alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trustscore._errors import (
    BudgetExceeded,
    NoContextError,
    WhiteboxModelError,
)
from trustscore._types import Sample
from trustscore.whitebox._divergence import jensen_shannon, legacy_divergence_sum
from trustscore.whitebox._model import (
    EncodedSample,
    LoadedModel,
    encode_sample,
)
from trustscore.whitebox._redeep_features import (
    EmbedFn,
    FeatureRecipe,
    Head,
    HeadRows,
    RedeepFeatures,
    attention_rows,
    check_recipe,
    chunk_features,
    chunk_token_sets,
    split_text,
)

if TYPE_CHECKING:
    import torch

__all__ = [
    "BATCH_TOKENS",
    "MIN_FILL",
    "extract_features",
    "extract_features_batch",
    "length_groups",
]


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
        ctx_tokens = chunk_token_sets(ctx_spans, enc.token_char_ranges[: enc.response_start])
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

    head_rows: dict[Head, HeadRows] = field(default_factory=dict)
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
                rows = attention_rows(
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

        return chunk_features(
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
    check_recipe(loaded, recipe, embed)
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
    check_recipe(loaded, recipe, embed)
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
