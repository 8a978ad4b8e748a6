"""AARF, "Add Attention, Reduce FFN" (ReDeEP, Sun et al., ICLR 2025, §4.3): gated intervention in generation.

Greedy decoding with a KV cache. Each generated token is fed back once as usual; that forward
also yields the token's ReDeEP features (ECS of the profile's copying heads, PKS of its layers,
read at the token's own position) and its hallucination score ``H_t``. When ``H_t > threshold`` the
same step is run again from the same cache with the intervention on, and the next token comes from
that second pass (this is how the released code reuses its cache; the paper only says the step is
intervened). The intervention, as the paper defines it:

* the output of every copying head in A is multiplied by ``alpha`` (> 1): its d_head-wide slice of
  the attention output, before ``o_proj``;
* the FFN (MLP) output of every layer in F is multiplied by ``beta`` (in (0, 1]).

``legacy=True`` reproduces the released code instead, which scales the **attention-sublayer
output** of the layers in F (not their FFN); its head scaling of post-softmax weights without
renormalisation equals the head-output scaling above. Defaults are the paper's values for RAGTruth
with Llama-2-7B/13B (Appendix I): alpha 5, beta 0.2, threshold 0.4.

Attention weights of the fed token come from eager attention (one query row per layer and step),
so the model is loaded with ``attn_implementation="eager"``.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from trustscore._types import Sample
from trustscore.whitebox._divergence import jensen_shannon, legacy_divergence_sum
from trustscore.whitebox._model import LoadedModel, build_prompt, layout_for, load_pretrained, model_key
from trustscore.whitebox._profile import ModelIdentity, RedeepProfile
from trustscore.whitebox._redeep_features import check_selection
from trustscore.whitebox._untrusted import neutral_sample

__all__ = [
    "AARFResult",
    "AARFSettings",
    "AARFStep",
    "Intervention",
    "generate_with_aarf",
    "intervention_on",
    "load_for_aarf",
]

Head = tuple[int, int]
ScoreFn = Callable[[dict[Head, float], dict[int, float]], float]


class AARFSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    alpha: float = Field(
        default=5.0, ge=1.0, description="factor on the copying heads' outputs (paper: 5 or 2)"
    )
    beta: float = Field(
        default=0.2, gt=0.0, le=1.0, description="factor on the knowledge FFNs' outputs (paper: 0.2 or 0.5)"
    )
    threshold: float = Field(
        default=0.4, description="intervene on a step whose token score H_t exceeds this"
    )
    max_new_tokens: int = Field(default=256, ge=1)
    legacy: bool = Field(
        default=False, description="scale the F layers' attention output, as the released code does"
    )


@dataclass(frozen=True)
class AARFStep:
    """One generated token: its score, and whether the step that fed it was re-run under the intervention."""

    index: int
    token_id: int
    text: str
    score: float
    intervened: bool


@dataclass(frozen=True)
class AARFResult:
    text: str
    steps: list[AARFStep]
    heads: list[Head]
    layers: list[int]
    settings: AARFSettings

    @property
    def intervened_steps(self) -> list[int]:
        return [s.index for s in self.steps if s.intervened]


@dataclass(eq=False)
class Intervention:
    """Hooks that scale the named heads' outputs and the named layers' FFN (or, legacy, attention) outputs.

    Installed once; they act only while ``active`` is True.
    """

    loaded: LoadedModel
    heads: Sequence[Head]
    layers: Sequence[int]
    alpha: float
    beta: float
    legacy: bool = False
    active: bool = False
    _handles: list[Any] = field(default_factory=list)

    def __enter__(self) -> Intervention:
        d = self.loaded.head_dim
        by_layer: dict[int, list[int]] = {}
        for layer, head in self.heads:
            by_layer.setdefault(layer, []).append(head)
        for layer, heads in by_layer.items():
            o_proj = self.loaded.attention(layer).o_proj

            def scale_heads(
                _m: Any, args: tuple[Any, ...], heads: list[int] = heads
            ) -> tuple[Any, ...] | None:
                if not self.active:
                    return None
                x = args[0].clone()
                for h in heads:
                    x[..., h * d : (h + 1) * d] *= self.alpha
                return (x, *args[1:])

            self._handles.append(o_proj.register_forward_pre_hook(scale_heads))
        for layer in self.layers:
            block = self.loaded.layers[layer]
            target = block.self_attn if self.legacy else block.mlp

            def scale_output(_m: Any, _args: Any, output: Any) -> Any:
                if not self.active:
                    return None
                if isinstance(output, tuple):
                    return (output[0] * self.beta, *output[1:])
                return output * self.beta

            self._handles.append(target.register_forward_hook(scale_output))
        return self

    def __exit__(self, *exc: object) -> None:
        for h in self._handles:
            h.remove()
        self._handles.clear()
        self.active = False


def load_for_aarf(path: str | Path, *, device: str = "cpu", dtype: str = "float32") -> LoadedModel:
    """Load a local causal LM with eager attention (AARF reads one attention row per step)."""
    path = Path(path).expanduser().resolve()
    tokenizer, model = load_pretrained(path, device=device, dtype=dtype, attention="eager")
    layout = layout_for(model.config.model_type)
    return LoadedModel(
        model=model,
        tokenizer=tokenizer,
        layout=layout,
        path=path,
        key=model_key(path, device=device, dtype=dtype) + "|eager",
    )


def _context_positions(tokenizer: Any, prompt: str, sample: Sample) -> tuple[list[int], list[int]]:
    """Prompt token ids, and the positions of tokens that overlap a context passage."""
    enc = tokenizer(prompt, add_special_tokens=False, return_offsets_mapping=True)
    ranges, cursor = [], 0
    for passage in sample.context:
        if not passage.strip():
            continue
        start = prompt.find(passage, cursor)
        if start >= 0:
            ranges.append((start, start + len(passage)))
            cursor = start + len(passage)
    positions = [
        i
        for i, (a, b) in enumerate(enc["offset_mapping"])
        if b > a and any(b > s and a < e for s, e in ranges)
    ]
    return list(enc["input_ids"]), positions


def generate_with_aarf(
    loaded: LoadedModel,
    sample: Sample,
    *,
    profile: RedeepProfile | None = None,
    heads: Sequence[Head] | None = None,
    layers: Sequence[int] | None = None,
    score_fn: ScoreFn | None = None,
    settings: AARFSettings | None = None,
    on_step: Callable[[AARFStep], None] | None = None,
) -> AARFResult:
    """Answer ``sample`` (its question and context; its response is ignored) under AARF.

    Heads A and layers F come from ``profile`` unless given. The token score is
    ``score_fn(ecs_by_head, pks_by_layer)``, by default the profile's
    :meth:`~trustscore.whitebox._profile.RedeepProfile.hallucination_probability`; features are read
    for the profile's heads and layers (or, without a profile, for A and F). ``on_step`` sees every
    token as it is generated. Blocking.
    """
    settings = settings or AARFSettings()
    plan = _plan(loaded, profile, heads, layers, score_fn)
    sample = neutral_sample(loaded.tokenizer, sample)  # special-token strings in it stay text
    prompt = build_prompt(loaded.tokenizer, sample)
    prompt_ids, context_pos = _context_positions(loaded.tokenizer, prompt, sample)
    if not context_pos and not plan.legacy_features:
        raise ValueError(
            "no context tokens in the prompt: AARF steers the model towards the retrieved context"
        )
    key_pos = list(range(len(prompt_ids))) if plan.legacy_features else context_pos
    features = _TokenFeatures(loaded, plan, key_pos)
    steps = _decode(loaded, prompt_ids, plan, settings, features, on_step)
    text = loaded.tokenizer.decode([s.token_id for s in steps], skip_special_tokens=True)
    return AARFResult(text=text, steps=steps, heads=plan.heads, layers=plan.layers, settings=settings)


@dataclass(frozen=True)
class _Plan:
    """What to intervene on (``heads``, ``layers``), what to read for the token score, and the score."""

    heads: list[Head]
    layers: list[int]
    feature_heads: list[Head]
    feature_layers: list[int]
    legacy_features: bool
    top_k_fraction: float
    score_fn: ScoreFn


def _plan(
    loaded: LoadedModel,
    profile: RedeepProfile | None,
    heads: Sequence[Head] | None,
    layers: Sequence[int] | None,
    score_fn: ScoreFn | None,
) -> _Plan:
    """Heads, layers and score from the arguments, else the profile; refused when they do not fit."""
    if profile is not None:
        if profile.level != "token":
            raise ValueError("AARF scores every generated token: give a token-level ReDeEP profile")
        profile.check_model(ModelIdentity.from_hf_config(loaded.config))
    heads = list(heads if heads is not None else (profile.heads if profile else []))
    layers = list(layers if layers is not None else (profile.layers if profile else []))
    if not heads and not layers:
        raise ValueError("AARF needs copying heads or knowledge layers: give a profile or heads=/layers=")
    check_selection(loaded, heads, layers)
    if score_fn is None:
        if profile is None:
            raise ValueError("without a profile, pass score_fn(ecs_by_head, pks_by_layer) -> H_t")
        score_fn = profile.hallucination_probability
    return _Plan(
        heads=heads,
        layers=layers,
        feature_heads=list(profile.heads) if profile else heads,
        feature_layers=list(profile.layers) if profile else layers,
        legacy_features=profile is not None and profile.pks_mode == "legacy",
        top_k_fraction=profile.top_k_fraction if profile else 0.1,
        score_fn=score_fn,
    )


class _TokenFeatures:
    """The fed token's ReDeEP features from one forward's outputs: ECS against the prompt's final
    states at the top-k keys, PKS from the residual a hook captures before each layer's FFN."""

    def __init__(self, loaded: LoadedModel, plan: _Plan, key_pos: list[int]) -> None:
        import torch

        self.loaded, self.plan = loaded, plan
        self.k = max(1, int(plan.top_k_fraction * len(key_pos)))
        self.key_index = torch.tensor(key_pos, device=loaded.device)
        self.mids: dict[int, Any] = {}
        self.prompt_states: Any = None

    def capture_mids(self) -> list[Any]:
        """Install the hooks that keep the last position's residual before the FFN; their handles."""

        def capture_mid(layer: int) -> Callable[..., None]:
            def hook(_m: Any, args: tuple[Any, ...]) -> None:
                self.mids[layer] = args[0][0, -1]

            return hook

        return [
            self.loaded.pre_ffn_norm(layer).register_forward_pre_hook(capture_mid(layer))
            for layer in self.plan.feature_layers
        ]

    def __call__(self, out: Any) -> tuple[dict[Head, float], dict[int, float]]:
        import torch

        loaded, key_index = self.loaded, self.key_index
        last = out.hidden_states[-1][0, -1].float()
        ecs = {}
        for layer, head in self.plan.feature_heads:
            row = out.attentions[layer][0, head, -1, key_index].float()
            top = row.topk(min(self.k, row.numel())).indices
            pooled = self.prompt_states[key_index[top]].mean(dim=0)
            ecs[(layer, head)] = float(torch.nn.functional.cosine_similarity(pooled, last, dim=0))
        pks = {}
        for layer in self.plan.feature_layers:
            before = loaded.logit_lens(self.mids[layer][None])
            after = loaded.logit_lens(out.hidden_states[layer + 1][0, -1][None])
            if self.plan.legacy_features:
                pks[layer] = float(legacy_divergence_sum(before, after)[0]) / before.shape[-1] * 1e6
            else:
                pks[layer] = float(jensen_shannon(before, after)[0])
        return ecs, pks


def _decode(
    loaded: LoadedModel,
    prompt_ids: list[int],
    plan: _Plan,
    settings: AARFSettings,
    features: _TokenFeatures,
    on_step: Callable[[AARFStep], None] | None,
) -> list[AARFStep]:
    """Greedy decoding with a KV cache; a step whose token score passes the threshold is re-run from
    the same cache with the intervention on, and the next token comes from that second pass."""
    import torch

    steps: list[AARFStep] = []
    tok, device = loaded.tokenizer, loaded.device
    with (
        loaded.lock,
        torch.no_grad(),
        Intervention(
            loaded, plan.heads, plan.layers, settings.alpha, settings.beta, settings.legacy
        ) as intervention,
    ):
        handles = features.capture_mids()
        try:
            out = loaded.model(
                input_ids=torch.tensor([prompt_ids], device=device), use_cache=True, output_hidden_states=True
            )
            features.prompt_states = out.hidden_states[-1][0].float()
            cache = _cache_of(out)
            cache_keyword = _cache_keyword(loaded.model)
            logits = out.logits[0, -1]
            for index in range(settings.max_new_tokens):
                token = int(logits.argmax())
                if token == tok.eos_token_id:
                    break
                length = cache.get_seq_length()
                fed = torch.tensor([[token]], device=device)
                out = loaded.model(
                    input_ids=fed,
                    use_cache=True,
                    output_attentions=True,
                    output_hidden_states=True,
                    **{cache_keyword: cache},
                )
                score = float(plan.score_fn(*features(out)))
                if not math.isfinite(score):
                    raise ValueError(f"the token score of step {index} is not finite")
                last_step = index + 1 == settings.max_new_tokens
                intervened = score > settings.threshold and not last_step
                if intervened:
                    cache.crop(length - cache.get_seq_length())  # negative: drop the step just run
                    intervention.active = True
                    try:
                        out = loaded.model(input_ids=fed, use_cache=True, **{cache_keyword: cache})
                    finally:
                        intervention.active = False
                step = AARFStep(index, token, tok.decode([token]), score, intervened)
                steps.append(step)
                if on_step is not None:
                    on_step(step)
                logits = out.logits[0, -1]
        finally:
            for h in handles:
                h.remove()
    return steps


def _cache_keyword(model: Any) -> str:
    """The name of the key/value cache in the model's forward: transformers renamed ``past_key_values``
    to ``cache`` (the old name, deprecated, goes in 5.40)."""
    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


def _cache_of(out: Any) -> Any:
    """The key/value cache a forward returned, under either name (see :func:`_cache_keyword`)."""
    cache = getattr(out, "cache", None)
    return cache if cache is not None else out.past_key_values


@contextmanager
def intervention_on(
    loaded: LoadedModel,
    heads: Sequence[Head],
    layers: Sequence[int],
    *,
    alpha: float,
    beta: float,
    legacy: bool = False,
) -> Iterator[Intervention]:
    """The intervention switched on for every forward inside the block (for tests and ablations)."""
    with Intervention(loaded, heads, layers, alpha, beta, legacy) as iv:
        iv.active = True
        yield iv
