"""LettuceDetect (KRLabs, MIT) as a local signal: a token classifier that marks unsupported answer tokens.

The input is the one the LettuceDetect checkpoints were trained on (lettucedetect 0.2.3):
``tokenizer(prompt, answer)`` as a pair, where ``prompt`` is the QA (or summary) instruction with
the passages numbered in it. Label 1 of the classifier is "hallucinated"; only answer tokens are read.

Long contexts: passages are grouped greedily, in order, into windows whose prompt plus the whole
answer fit ``max_length`` (as the reference does); a single passage too long for a window on its own
is cut into token windows first (the reference would truncate it). Every window is scored and each
answer token keeps its **maximum** hallucination probability over windows: a token counts as
supported only if no window finds it unsupported, the reference's documented choice.

Value: ``1 - max`` over answer tokens of the hallucination probability (higher = more trustworthy;
the reference calls a response hallucinated when any token passes 0.5). Spans: runs of consecutive
answer tokens above ``threshold``, with character offsets into the response and the run's max
probability as score.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ConfigDict, Field

from trustscore._errors import EncoderLoadError
from trustscore._types import Sample, Signal, Span, Usage
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

__all__ = [
    "LettuceDetectConfig",
    "LettuceDetectSignal",
    "TokenScores",
    "build_lettucedetect",
    "format_prompt",
    "plan_windows",
]

logger = logging.getLogger("trustscore.encoders")

_METHOD = "lettucedetect/1"

# The checkpoints' input format (LettuceDetect 0.2.3, prompts/qa_prompt_en.txt and
# summary_prompt_en.txt): a model only answers well on the layout it was trained on.
_QA = (
    "Briefly answer the following question:\n{question}\nBear in mind that your response should be "
    "strictly based on the following {n} passages:\n{context}\nIn case the passages do not contain the "
    'necessary information to answer the question, please reply with: "Unable to answer based on given '
    'passages."\noutput:'
)
_SUMMARY = "Summarize the following text:\n{context}\noutput:"
_PASSAGE_WORD = "passage"
_NO_CONTEXT = "no context: LettuceDetect checks the response against the passages; pass context=[...]"


class LettuceDetectConfig(SignalConfig):
    """``[signals.lettucedetect]``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(
        description="LettuceDetect checkpoint: a local directory or a hub id "
        "(e.g. KRLabs/lettucedect-large-modernbert-en-v1)"
    )
    adapter: str | None = Field(
        default=None,
        description="a LoRA adapter directory (written by `trustscore train-detector`) applied on `model`",
    )
    max_length: int = Field(default=4096, ge=16, description="tokens per window (the checkpoints read 4096)")
    template: Literal["qa", "summary"] = Field(
        default="qa", description="the reference's QA prompt (question + passages) or its summary prompt"
    )
    threshold: float = Field(default=0.5, gt=0.0, lt=1.0, description="token probability that makes a span")
    batch_size: int = Field(default=8, ge=1, description="windows per forward pass")
    device: str = "cpu"
    local_files_only: bool = Field(
        default=False, description="never reach the hub (set it where there is no network)"
    )


def format_prompt(passages: Sequence[str], question: str, template: str) -> str:
    """The prompt for one window, passages numbered from 1 as the reference numbers them."""
    context = "\n".join(f"{_PASSAGE_WORD} {i + 1}: {p}" for i, p in enumerate(passages))
    if template == "summary":
        return _SUMMARY.format(context=context)
    return _QA.format(question=question, n=len(passages), context=context)


def _count(tokenizer: Any, text: str) -> int:
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def _split_long(tokenizer: Any, passage: str, budget: int) -> list[str]:
    """Cut one passage into pieces of at most ``budget`` tokens, at token boundaries."""
    enc = tokenizer(passage, add_special_tokens=False, return_offsets_mapping=True)
    offsets = enc["offset_mapping"]
    pieces = []
    for i in range(0, len(offsets), budget):
        chunk = offsets[i : i + budget]
        end = offsets[i + budget][0] if i + budget < len(offsets) else len(passage)
        pieces.append(passage[chunk[0][0] : end])
    return pieces


def plan_windows(
    tokenizer: Any, passages: list[str], question: str, answer: str, *, max_length: int, template: str
) -> list[list[str]]:
    """Group passages into windows whose prompt, with the whole answer, fits ``max_length`` tokens.

    The same greedy grouping as the reference (a window closes when the next numbered passage line
    would not fit); a passage that cannot fit any window alone is cut into token windows first.
    Raises ``ValueError`` when the answer and the instructions alone leave no room for context.
    """
    budget = max_length - _count(tokenizer, answer) - 3  # [CLS] prompt [SEP] answer [SEP]
    if _count(tokenizer, format_prompt(passages, question, template)) <= budget:
        return [passages]
    overhead = _count(tokenizer, format_prompt([""], question, template))
    passage_budget = budget - overhead
    line_margin = _count(tokenizer, f"{_PASSAGE_WORD} {len(passages) + 1}: ") + 2
    if passage_budget - line_margin <= 0:
        raise ValueError(
            f"the answer and the instructions take {max_length - passage_budget} of the {max_length} tokens "
            "of a window: no room is left for the context (raise signals.lettucedetect.max_length if the "
            "checkpoint reads longer inputs)"
        )
    pieces: list[str] = []
    for p in passages:
        if _count(tokenizer, f"{_PASSAGE_WORD} {len(pieces) + 1}: {p}") > passage_budget:
            pieces.extend(_split_long(tokenizer, p, passage_budget - line_margin))
        else:
            pieces.append(p)
    groups: list[list[str]] = []
    current: list[str] = []
    used = 0
    for p in pieces:
        cost = _count(tokenizer, f"{_PASSAGE_WORD} {len(current) + 1}: {p}") + (1 if current else 0)
        if current and used + cost > passage_budget:
            groups.append(current)
            current, used = [], 0
            cost = _count(tokenizer, f"{_PASSAGE_WORD} 1: {p}")
        current.append(p)
        used += cost
    groups.append(current)
    return groups


@dataclass(frozen=True)
class TokenScores:
    """One answer's token-level result: character offsets into the answer and P(hallucinated)."""

    offsets: list[tuple[int, int]]
    probs: list[float]
    windows: int


@dataclass(frozen=True)
class _Loaded:
    tokenizer: Any
    model: Any
    fingerprint: str


class LettuceDetectSignal:
    """A :class:`~trustscore.signals.LocalSignal` named ``"lettucedetect"`` (higher = better supported)."""

    name = "lettucedetect"
    kind = "local"

    def __init__(self, config: LettuceDetectConfig) -> None:
        self.config = config
        knobs = config.model_dump(exclude={"enabled", "batch_size", "device", "local_files_only"})
        self.version = f"{_METHOD}+{short_hash(canonical_json(knobs), 8)}"
        self._key = (
            f"lettucedetect|{describe_source(config.model)}"
            f"|{config.adapter and describe_source(config.adapter)}"
            f"|{config.device}"
        )

    def load(self) -> _Loaded:
        """Load (once per process) the checkpoint; logs which weights are used. Blocking."""
        return cached_load(self._key, self._load)

    def _load(self) -> _Loaded:
        torch = import_torch()
        from transformers import AutoModelForTokenClassification, AutoTokenizer

        source = describe_source(self.config.model)
        offline = self.config.local_files_only
        try:
            tokenizer = AutoTokenizer.from_pretrained(self.config.model, local_files_only=offline)
            model = AutoModelForTokenClassification.from_pretrained(
                self.config.model, dtype=torch.float32, local_files_only=offline
            )
        except OSError as e:
            raise EncoderLoadError(
                f"signals.lettucedetect.model = {self.config.model!r} could not be loaded ({e}); "
                "give a saved LettuceDetect checkpoint directory or a reachable hub id"
            ) from e
        if self.config.adapter is not None:
            from peft import PeftModel

            try:
                model = PeftModel.from_pretrained(
                    model, self.config.adapter, local_files_only=self.config.local_files_only
                ).merge_and_unload()
            except (OSError, ValueError) as e:
                raise EncoderLoadError(
                    f"signals.lettucedetect.adapter = {self.config.adapter!r} could not be applied ({e})"
                ) from e
            source += f" + adapter {describe_source(self.config.adapter)}"
        if not getattr(tokenizer, "is_fast", False):
            raise EncoderLoadError(f"the tokenizer of {source} is not a fast tokenizer (offsets are needed)")
        if model.config.num_labels != 2:
            raise EncoderLoadError(
                f"{source} has {model.config.num_labels} labels; a LettuceDetect checkpoint has 2 "
                "(supported, hallucinated)"
            )
        model.to(self.config.device).eval()
        loaded = _Loaded(tokenizer, model, fingerprint(model))
        logger.info(
            "lettucedetect: loaded %s (%s, weights %s)", source, model.config.model_type, loaded.fingerprint
        )
        return loaded

    async def run(self, sample: Sample) -> Signal:
        return (await self.score_many([sample]))[0]

    async def score_many(self, samples: Sequence[Sample]) -> list[Signal]:
        """Score several samples, their windows sharing forward passes."""
        return await run_in_worker(self.name, self.version, self._key, samples, self.score_batch)

    def token_scores(
        self, samples: Sequence[Sample], check_cancelled: CheckCancelled = never_cancelled
    ) -> list[TokenScores]:
        """Per-answer-token hallucination probabilities of each sample (max over its windows). Blocking."""
        import torch

        loaded = self.load()
        tok, cfg = loaded.tokenizer, self.config
        jobs: list[tuple[int, Any]] = []
        for i, s in enumerate(samples):
            for group in plan_windows(
                tok, list(s.context), s.question, s.response, max_length=cfg.max_length, template=cfg.template
            ):
                enc = tok(
                    format_prompt(group, s.question, cfg.template),
                    s.response,
                    truncation="only_first",
                    max_length=cfg.max_length,
                    return_offsets_mapping=True,
                )
                jobs.append((i, enc))
        per_sample: list[list[list[float]]] = [[] for _ in samples]
        offsets: list[list[tuple[int, int]]] = [[] for _ in samples]
        order = sorted(range(len(jobs)), key=lambda j: len(jobs[j][1]["input_ids"]))
        for chunk in batches(order, cfg.batch_size):
            check_cancelled()
            encs = [jobs[j][1] for j in chunk]
            width = max(len(e["input_ids"]) for e in encs)
            ids = torch.full((len(encs), width), tok.pad_token_id or 0, dtype=torch.long)
            mask = torch.zeros((len(encs), width), dtype=torch.long)
            for row, e in enumerate(encs):
                ids[row, : len(e["input_ids"])] = torch.tensor(e["input_ids"])
                mask[row, : len(e["input_ids"])] = 1
            with torch.no_grad():
                logits = loaded.model(input_ids=ids.to(cfg.device), attention_mask=mask.to(cfg.device)).logits
            probs = torch.softmax(logits.float(), dim=-1)[..., 1].cpu()
            for row, j in enumerate(chunk):
                i, e = jobs[j]
                answer_pos = [k for k, sid in enumerate(e.sequence_ids()) if sid == 1]
                per_sample[i].append([float(probs[row, k]) for k in answer_pos])
                offsets[i] = [tuple(e["offset_mapping"][k]) for k in answer_pos]  # same in every window
        return [
            TokenScores(
                offsets=offsets[i],
                probs=[max(col) for col in zip(*per_sample[i], strict=True)],
                windows=len(per_sample[i]),
            )
            for i in range(len(samples))
        ]

    def score_batch(
        self, samples: Sequence[Sample], check_cancelled: CheckCancelled = never_cancelled
    ) -> list[Signal]:
        """The signals for ``samples``, computed in the calling thread."""
        began = time.perf_counter()
        usable = [s for s in samples if s.has_context]
        scores = iter(self.token_scores(usable, check_cancelled)) if usable else iter(())
        each = (time.perf_counter() - began) / max(1, len(samples))
        fp = self.load().fingerprint
        return [
            self._signal(s, next(scores), each, fp)
            if s.has_context
            else Signal.failed(self.name, _NO_CONTEXT, version=self.version)
            for s in samples
        ]

    def _signal(self, sample: Sample, ts: TokenScores, seconds: float, weights: str) -> Signal:
        if not ts.probs:
            return Signal.failed(self.name, "the response has no tokens", version=self.version)
        spans = answer_spans(sample.response, ts, self.config.threshold)
        worst = max(ts.probs)
        return Signal(
            name=self.name,
            value=1.0 - worst,
            raw={
                "max_token_prob": round(worst, 6),
                "tokens": len(ts.probs),
                "windows": ts.windows,
                "weights": weights,
            },
            explanation=f"{len(spans)} unsupported span(s); highest token probability {worst:.2f}",
            warnings=[f"context read in {ts.windows} windows"] if ts.windows > 1 else [],
            spans=spans,
            usage=Usage(seconds=seconds),
            version=self.version,
        )


def answer_spans(answer: str, ts: TokenScores, threshold: float) -> list[Span]:
    """Runs of consecutive answer tokens with probability above ``threshold`` (empty tokens skipped)."""
    spans: list[Span] = []
    start = end = -1
    best = 0.0
    for (a, b), p in zip(ts.offsets, ts.probs, strict=True):
        if a == b:
            continue
        if p > threshold:
            if start < 0:
                start, best = a, p
            end, best = b, max(best, p)
        elif start >= 0:
            spans.append(Span(start=start, end=end, text=answer[start:end], score=round(best, 6)))
            start = -1
    if start >= 0:
        spans.append(Span(start=start, end=end, text=answer[start:end], score=round(best, 6)))
    return spans


def build_lettucedetect(config: LettuceDetectConfig, ctx: object | None = None) -> LettuceDetectSignal:
    """Registry factory for ``[signals.lettucedetect]`` (``ctx`` is not needed: the model is local)."""
    return LettuceDetectSignal(config)
