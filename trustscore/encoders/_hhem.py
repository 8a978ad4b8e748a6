"""HHEM-2.1-Open (Vectara, Apache-2.0) as a local signal, on stock transformers (no remote code).

The published model is a FLAN-T5-base encoder with a 2-way token-classification head
(``T5ForTokenClassification``) saved under a ``t5.`` prefix. Its modelling code formats each
(premise, hypothesis) pair into one prompt, reads the head's logits at the **first** token (the
literal ``<pad>`` the prompt starts with) and returns ``softmax(logits)[1]`` = P(consistent).
Here the same T5 class is built from the foundation's config, the checkpoint's tensors are loaded
without the prefix, and the same formula is applied.

Premise, as in the RAG benchmark we follow: the context, a newline, then the question (terse
answers cannot be judged without it). Hypothesis: the response. Long contexts are cut into token
windows of ``max_premise_tokens`` (T5 has no hard limit, but cost grows with the square of the
length); each window is scored as a premise and the sample keeps the **highest** consistency: the
response counts as supported when some window supports it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field

from trustscore._errors import EncoderLoadError
from trustscore._types import Sample, Signal, Usage
from trustscore.compute._torch_import import import_torch
from trustscore.core._hashing import canonical_json, short_hash
from trustscore.encoders._common import (
    CheckCancelled,
    batches,
    cached_load,
    describe_source,
    fingerprint,
    never_cancelled,
    run_in_worker,
)
from trustscore.signals import SignalConfig

__all__ = ["PROMPT", "HHEMConfig", "HHEMSignal", "build_hhem", "premise_windows"]

logger = logging.getLogger("trustscore.encoders")

_METHOD = "hhem-2.1-open/1"
PROMPT = (
    "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {text1}\n\nHypothesis: {text2}"
)
"""HHEM-2.1-Open's input template (its ``HHEMv2Config.prompt``); the head reads the first token."""
_WEIGHTS_FILE = "model.safetensors"
_PREFIX = "t5."


class HHEMConfig(SignalConfig):
    """``[signals.hhem]``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(
        default="vectara/hallucination_evaluation_model",
        description="HHEM-2.1-Open checkpoint: a local directory holding model.safetensors, or a hub id",
    )
    foundation: str = Field(
        default="google/flan-t5-base",
        description="where the T5 config and tokenizer come from (HHEM ships only its head and weights)",
    )
    max_premise_tokens: int = Field(
        default=2000, ge=16, description="context tokens per window; longer contexts are windowed"
    )
    question_in_premise: bool = Field(
        default=True, description="premise = context + newline + question (what the RAG benchmark did)"
    )
    batch_size: int = Field(default=4, ge=1, description="windows per forward pass")
    device: str = "cpu"
    local_files_only: bool = Field(default=False, description="never reach the hub")


@dataclass(frozen=True)
class _Loaded:
    tokenizer: Any
    model: Any
    fingerprint: str


def premise_windows(tokenizer: Any, context: str, max_tokens: int) -> list[str]:
    """``context`` cut at token boundaries into pieces of at most ``max_tokens`` tokens."""
    offsets = tokenizer(context, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
    if len(offsets) <= max_tokens:
        return [context]
    out = []
    for i in range(0, len(offsets), max_tokens):
        end = offsets[i + max_tokens][0] if i + max_tokens < len(offsets) else len(context)
        out.append(context[offsets[i][0] : end])
    return out


def _weights_path(model: str, local_files_only: bool) -> Path:
    local = Path(model).expanduser()
    if local.is_dir():
        path = local / _WEIGHTS_FILE
        if not path.is_file():
            raise EncoderLoadError(f"signals.hhem.model: {local} has no {_WEIGHTS_FILE}")
        return path
    from huggingface_hub import hf_hub_download

    return Path(hf_hub_download(model, _WEIGHTS_FILE, local_files_only=local_files_only))


class HHEMSignal:
    """A :class:`~trustscore.signals.LocalSignal` named ``"hhem"``: P(the response is consistent)."""

    name = "hhem"
    kind = "local"

    def __init__(self, config: HHEMConfig | None = None) -> None:
        self.config = config or HHEMConfig()
        knobs = self.config.model_dump(exclude={"enabled", "batch_size", "device", "local_files_only"})
        self.version = f"{_METHOD}+{short_hash(canonical_json(knobs), 8)}"
        self._key = (
            f"hhem|{describe_source(self.config.model)}|{describe_source(self.config.foundation)}"
            f"|{self.config.device}"
        )

    def load(self) -> _Loaded:
        """Load (once per process) the checkpoint; logs which weights are used. Blocking."""
        return cached_load(self._key, self._load)

    def _load(self) -> _Loaded:
        import_torch()
        from safetensors.torch import load_file
        from transformers import AutoConfig, AutoTokenizer, T5ForTokenClassification

        cfg, opts = self.config, {"local_files_only": self.config.local_files_only}
        try:
            t5_config = AutoConfig.from_pretrained(cfg.foundation, num_labels=2, **opts)
            tokenizer = AutoTokenizer.from_pretrained(cfg.foundation, **opts)
            weights = _weights_path(cfg.model, cfg.local_files_only)
        except OSError as e:
            raise EncoderLoadError(
                f"signals.hhem: {cfg.model!r} / foundation {cfg.foundation!r} could not be loaded ({e}); "
                "give local directories or reachable hub ids"
            ) from e
        tensors = load_file(str(weights))
        state = {k.removeprefix(_PREFIX): v for k, v in tensors.items() if k.startswith(_PREFIX)}
        if not state:
            raise EncoderLoadError(f"{weights} has no '{_PREFIX}*' tensors: it is not an HHEM-2.1 checkpoint")
        model = T5ForTokenClassification(t5_config)
        try:
            missing, unexpected = model.load_state_dict(state, strict=False)
        except RuntimeError as e:  # tensor shapes differ from the foundation's config
            raise EncoderLoadError(
                f"{weights} does not fit the T5 of {cfg.foundation!r} (check signals.hhem.foundation): {e}"
            ) from e
        # The encoder's embedding is the shared one (tied), so the file may omit it.
        missing = [k for k in missing if k != "transformer.encoder.embed_tokens.weight"]
        if missing or unexpected:
            raise EncoderLoadError(
                f"{weights} does not match the T5 of {cfg.foundation!r}: missing {missing[:5]}, "
                f"unexpected {unexpected[:5]} (check signals.hhem.foundation)"
            )
        model.to(cfg.device).eval()
        loaded = _Loaded(tokenizer, model, fingerprint(model))
        logger.info(
            "hhem: loaded %s on %s (weights %s)", weights, describe_source(cfg.foundation), loaded.fingerprint
        )
        return loaded

    async def run(self, sample: Sample) -> Signal:
        return (await self.score_many([sample]))[0]

    async def score_many(self, samples: Sequence[Sample]) -> list[Signal]:
        """Score several samples, their windows sharing forward passes."""
        return await run_in_worker(self.name, self.version, self._key, samples, self.score_batch)

    def pairs(self, sample: Sample, tokenizer: Any) -> list[tuple[str, str]]:
        """The (premise, hypothesis) pairs scored for ``sample``, one per context window."""
        windows = premise_windows(tokenizer, sample.context_text, self.config.max_premise_tokens)
        if self.config.question_in_premise:
            windows = [f"{w}\n{sample.question}" for w in windows]
        return [(w, sample.response) for w in windows]

    def consistency(
        self, pairs: Sequence[tuple[str, str]], check_cancelled: CheckCancelled = never_cancelled
    ) -> list[float]:
        """P(consistent) of each (premise, hypothesis) pair, as HHEM computes it. Blocking."""
        import torch

        loaded = self.load()
        out: list[float] = []
        for chunk in batches(list(pairs), self.config.batch_size):
            check_cancelled()
            enc = loaded.tokenizer(
                [PROMPT.format(text1=p, text2=h) for p, h in chunk], return_tensors="pt", padding=True
            ).to(self.config.device)
            with torch.no_grad():
                logits = loaded.model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]).logits
            out.extend(torch.softmax(logits[:, 0, :].float(), dim=-1)[:, 1].tolist())
        return out

    def score_batch(
        self, samples: Sequence[Sample], check_cancelled: CheckCancelled = never_cancelled
    ) -> list[Signal]:
        """The signals for ``samples``, computed in the calling thread."""
        began = time.perf_counter()
        loaded = self.load()
        owners: list[int] = []
        pairs: list[tuple[str, str]] = []
        for i, s in enumerate(samples):
            if s.has_context:
                for pair in self.pairs(s, loaded.tokenizer):
                    owners.append(i)
                    pairs.append(pair)
        order = sorted(range(len(pairs)), key=lambda j: len(pairs[j][0]))  # similar lengths pad less
        scores = dict(zip(order, self.consistency([pairs[j] for j in order], check_cancelled), strict=True))
        each = Usage(seconds=(time.perf_counter() - began) / max(1, len(samples)))
        out = []
        for i in range(len(samples)):
            mine = [scores[j] for j in range(len(pairs)) if owners[j] == i]
            if not mine:
                out.append(
                    Signal.failed(
                        self.name,
                        "no context: HHEM judges the response against the context; pass context=[...]",
                        usage=each,
                        version=self.version,
                    )
                )
                continue
            best = max(mine)
            out.append(
                Signal(
                    name=self.name,
                    value=best,
                    usage=each,
                    version=self.version,
                    raw={
                        "consistency": round(best, 6),
                        "windows": [round(x, 6) for x in mine],
                        "weights": loaded.fingerprint,
                    },
                    explanation=f"P(consistent) = {best:.2f}"
                    + (f" (best of {len(mine)} windows)" if len(mine) > 1 else ""),
                    warnings=[f"context read in {len(mine)} windows"] if len(mine) > 1 else [],
                )
            )
        return out


def build_hhem(config: HHEMConfig, ctx: object | None = None) -> HHEMSignal:
    """Registry factory for ``[signals.hhem]`` (``ctx`` is not needed: the model is local)."""
    return HHEMSignal(config)
