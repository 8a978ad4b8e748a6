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

import time
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import JsonValue

from trustscore._errors import (
    EmbedderError,
    WhiteboxLoadError,
    WhiteboxModelError,
)
from trustscore._types import Sample, Signal, Span, Usage
from trustscore.core._hashing import short_hash
from trustscore.whitebox._batching import MicroBatcher, loop_batcher
from trustscore.whitebox._model import (
    load_model,
    model_key,
    model_limiter,
)
from trustscore.whitebox._profile import ModelIdentity, RedeepProfile
from trustscore.whitebox._redeep_config import RedeepConfig
from trustscore.whitebox._redeep_extract import (
    extract_features_batch,
)
from trustscore.whitebox._redeep_features import (
    EmbedFn,
    FeatureRecipe,
    RedeepFeatures,
)

if TYPE_CHECKING:
    pass

__all__ = ["METHOD_VERSION", "NO_PROFILE", "RedeepSignal"]

METHOD_VERSION = "redeep-1"
NO_PROFILE = (
    "no fitted ReDeEP profile for this model: fit one from labeled rows with "
    "`trustscore fit-redeep ROWS.jsonl --model MODEL_DIR -o profile.json` and set signals.redeep.profile"
)


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
