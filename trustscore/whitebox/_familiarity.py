"""Self-Familiarity (Luo, Xiao, Ma 2023): does the generator know the concepts a question relies on?

For each concept of the question (rarest first, see :mod:`trustscore.whitebox._concepts`):

1. the model explains the concept, greedily (``Explain the "{concept}" within one short paragraph.``);
2. every mention of the concept is masked in that explanation;
3. the model is asked what the masked explanation ``is related to``, and the concept's probability
   as the answer is read by teacher forcing: ``exp(mean log p(concept tokens))``, the best of a few
   case variants. (The paper ran a 30-beam search constrained to the concept and used HF's
   length-normalised beam score; constrained beam search has left transformers, and teacher forcing
   gives the same length-normalised probability exactly and deterministically.)

Concept scores are combined rarest first (``accumulate``: weights 1, 1/2, 1/4, ...; or ``min``, or
``first``). The score is not a calibrated probability; :func:`fit_threshold` turns the scores of
concepts the model surely knows (:data:`COMMON_CONCEPTS`) into the paper's familiarity threshold: the
midpoint of a bootstrap 95% confidence interval of their 5th percentile.

Two backends: the local model (transformers, in a worker thread behind the model's one limiter) or a
served model through the :class:`~trustscore.llm._protocol.LLM` protocol (chat for the explanation,
completions with ``prompt_logprobs`` for teacher forcing, as vLLM offers).
"""

from __future__ import annotations

import copy
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import anyio
import numpy as np
from pydantic import BaseModel, ConfigDict

from trustscore._errors import WhiteboxLoadError
from trustscore._types import Sample, Signal, Usage
from trustscore.core._hashing import canonical_json, short_hash
from trustscore.llm._protocol import LLM, ChatRequest, LLMError, Message
from trustscore.llm._special_tokens import neutralise
from trustscore.whitebox._batching import MicroBatcher, loop_batcher
from trustscore.whitebox._concepts import (
    CONCEPT_PROMPT_VERSION,
    STOPWORDS,
    Concept,
    extract_concepts_heuristic,
    extract_concepts_llm,
    prepare_concepts,
)
from trustscore.whitebox._familiarity_config import FamiliarityConfig
from trustscore.whitebox._untrusted import neutral_text

__all__ = [
    "COMMON_CONCEPTS",
    "ConceptScore",
    "FamiliarityBackend",
    "FamiliaritySignal",
    "LocalFamiliarityBackend",
    "RemoteFamiliarityBackend",
    "ThresholdFit",
    "aggregate_scores",
    "concept_variants",
    "fit_threshold",
    "mask_concept",
]

METHOD_VERSION = "selffam-1"

COMMON_CONCEPTS: tuple[str, ...] = (
    "gravity",
    "photosynthesis",
    "democracy",
    "electricity",
    "the Moon",
    "volcano",
    "vaccine",
    "inflation",
    "the Internet",
    "oxygen",
    "evolution",
    "DNA",
    "the heart",
    "rainbow",
    "earthquake",
    "money",
    "music",
    "the Sun",
    "water cycle",
    "computer",
    "bicycle",
    "language",
    "bread",
    "chess",
    "the Pacific Ocean",
    "football",
    "elephant",
    "airplane",
    "telephone",
    "climate change",
    "the Roman Empire",
    "mathematics",
    "a triangle",
    "coffee",
    "the brain",
    "a library",
    "tax",
    "a hospital",
    "the alphabet",
    "a river",
)
"""Concepts any general-purpose model knows: the reference set for :func:`fit_threshold` (our own list;
the paper's 192-concept list carries no licence)."""


class ConceptScore(BaseModel):
    model_config = ConfigDict(frozen=True)

    concept: str
    score: float
    """exp(mean log-probability of the concept's tokens) given the masked explanation, best variant."""
    rarity: float
    explanation: str
    masked_explanation: str


# ---- pure parts ----------------------------------------------------------------------------------


def mask_concept(text: str, concept: str, mask: str = "...") -> str:
    """Replace every mention of ``concept`` in ``text`` by ``mask``.

    The mask set is the whole concept plus each of its words that is not a function word, matched
    case-insensitively on word boundaries, longest first (so "Gustav Mahler" masks as one, and a
    lone "Mahler" still goes). Word boundaries keep "art" from masking part of "start".
    """
    words = [w for w in re.findall(r"[\w'’\-]+", concept) if w.lower() not in STOPWORDS and len(w) > 1]
    targets = sorted({concept.strip(), *words} - {""}, key=len, reverse=True)
    if not targets:
        return text
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(t) for t in targets) + r")(?!\w)", re.IGNORECASE)
    return pattern.sub(lambda _: mask, text)


def concept_variants(concept: str) -> list[str]:
    """The concept as written, lower-cased and capitalised (the paper's variants bar upper case)."""
    c = concept.strip()
    out: list[str] = []
    for v in (c, c.lower(), c[:1].upper() + c[1:]):
        if v and v not in out:
            out.append(v)
    return out


def aggregate_scores(
    scores: Sequence[float], how: Literal["accumulate", "min", "first"], decay: float = 0.5
) -> float:
    """Combine concept scores given rarest first."""
    if not scores:
        raise ValueError("no concept scores to aggregate")
    s = np.asarray(scores, dtype=np.float64)
    if how == "min":
        return float(s.min())
    if how == "first":
        return float(s[0])
    weights = decay ** np.arange(s.size)
    return float((weights * s).sum() / weights.sum())


@dataclass(frozen=True)
class ThresholdFit:
    threshold: float
    """Scores at or above it count as familiar."""
    ci_low: float
    ci_high: float
    quantile: float
    n: int


def fit_threshold(
    common_scores: Sequence[float],
    *,
    quantile: float = 0.05,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
) -> ThresholdFit:
    """The paper's threshold: midpoint of a bootstrap CI of the ``quantile`` of scores on common concepts.

    Procedure: score concepts the model surely knows (e.g. :data:`COMMON_CONCEPTS`) with the same
    pipeline and settings as in production; resample them with replacement ``n_boot`` times; take the
    ``quantile`` of each resample; the percentile interval of those at ``confidence`` gives (low, high);
    the threshold is their midpoint. Refit whenever the model, prompts or scoring change.
    """
    s = np.asarray(common_scores, dtype=np.float64)
    if s.size < 2:
        raise ValueError(f"fit_threshold needs at least 2 common-concept scores, got {s.size}")
    if not np.all(np.isfinite(s)):
        raise ValueError("common-concept scores must be finite")
    if not 0 < quantile < 1 or not 0 < confidence < 1:
        raise ValueError("quantile and confidence must be in (0, 1)")
    rng = np.random.default_rng(seed)
    boot = np.quantile(rng.choice(s, size=(n_boot, s.size), replace=True), quantile, axis=1)
    alpha = (1 - confidence) / 2
    low, high = (float(v) for v in np.quantile(boot, [alpha, 1 - alpha]))
    return ThresholdFit(
        threshold=(low + high) / 2, ci_low=low, ci_high=high, quantile=quantile, n=int(s.size)
    )


# ---- backends ------------------------------------------------------------------------------------

EXPLAIN_BATCH = 16
"""Most explanations generated in one batch."""


class FamiliarityBackend(Protocol):
    """Where the model runs: explanation by greedy generation, concept log-probs by teacher forcing."""

    identity: str

    async def explain(self, message: str, max_tokens: int) -> tuple[str, Usage]: ...

    async def continuation_logprobs(
        self, message: str, continuations: Sequence[str]
    ) -> tuple[list[list[float]], Usage]:
        """Per continuation, the log-probability of each of its tokens answering ``message``."""
        ...


class LocalFamiliarityBackend:
    """The local model (``model_path``), shared with the other white-box signals."""

    def __init__(
        self,
        model_path: str | Path,
        *,
        device: str = "cpu",
        dtype: Literal["float32", "bfloat16", "float16"] = "float32",
    ) -> None:
        from trustscore.whitebox._model import model_key

        self.model_path = Path(model_path)
        self.device = device
        self.dtype = dtype
        self._key = model_key(self.model_path, device=device, dtype=dtype)
        self.identity = f"local:{self.model_path.name}|{dtype}"

    async def explain(self, message: str, max_tokens: int) -> tuple[str, Usage]:
        """Greedy explanation; calls that wait for the model together are generated as one batch
        (the concepts of a question, and of the samples in flight)."""
        return await self._explainer().submit((message, max_tokens))

    def _explainer(self) -> MicroBatcher[tuple[str, int], tuple[str, Usage]]:
        from trustscore.whitebox._model import model_limiter

        key = self._key
        return loop_batcher(self, "explain", self._explain_batch, lambda: model_limiter(key), EXPLAIN_BATCH)

    async def continuation_logprobs(
        self, message: str, continuations: Sequence[str]
    ) -> tuple[list[list[float]], Usage]:
        return await self._in_worker(self._logprobs, message, list(continuations))

    async def _in_worker(self, fn: Any, *args: Any) -> Any:
        from trustscore.whitebox._model import model_limiter

        return await anyio.to_thread.run_sync(fn, *args, limiter=model_limiter(self._key))

    def _loaded(self) -> Any:
        from trustscore.whitebox._model import load_model

        return load_model(self.model_path, device=self.device, dtype=self.dtype)

    @staticmethod
    def _prompt(tokenizer: Any, message: str) -> tuple[str, bool, str]:
        """(prompt text, add special tokens, separator before the answer). The message holds sample
        text: its special-token strings are neutralised, never read as control tokens."""
        message = neutral_text(tokenizer, message)
        if getattr(tokenizer, "chat_template", None):
            text = tokenizer.apply_chat_template(
                [{"role": "user", "content": message}], tokenize=False, add_generation_prompt=True
            )
            return str(text), False, ""
        return f"USER: {message}\nASSISTANT:", True, " "

    def _explain(self, message: str, max_tokens: int) -> tuple[str, Usage]:
        import torch

        started = time.perf_counter()
        loaded = self._loaded()
        tok = loaded.tokenizer
        prompt, special, _ = self._prompt(tok, message)
        ids = tok(prompt, add_special_tokens=special, return_tensors="pt")["input_ids"].to(loaded.device)
        pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        with loaded.lock, torch.inference_mode():
            out = loaded.model.generate(
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=max_tokens,
                do_sample=False,
                num_beams=1,
                pad_token_id=pad,
                eos_token_id=tok.eos_token_id,
            )
        new = out[0, ids.shape[1] :]
        text = tok.decode(new, skip_special_tokens=True).strip()
        return text, Usage(
            prompt_tokens=int(ids.shape[1]),
            completion_tokens=int(new.shape[0]),
            seconds=time.perf_counter() - started,
        )

    def _explain_batch(self, calls: list[tuple[str, int]]) -> list[tuple[str, Usage]]:
        """Greedy explanations of several messages in one ``generate``: prompts left-padded, each
        output cut at its own ``max_tokens`` and first end-of-sequence token. The texts equal
        :meth:`_explain`'s up to float rounding of the padded batch (docs/whitebox.md)."""
        import torch

        if len(calls) == 1:
            return [self._explain(*calls[0])]
        started = time.perf_counter()
        loaded = self._loaded()
        tok = loaded.tokenizer
        prompts = []
        for message, _ in calls:
            prompt, special, _ = self._prompt(tok, message)
            prompts.append(list(tok(prompt, add_special_tokens=special)["input_ids"]))
        width = max(len(p) for p in prompts)
        pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts], device=loaded.device)
        mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts], device=loaded.device)
        with loaded.lock, torch.inference_mode():
            out = loaded.model.generate(
                input_ids=ids,
                attention_mask=mask,
                max_new_tokens=max(limit for _, limit in calls),
                do_sample=False,
                num_beams=1,
                pad_token_id=pad,
                eos_token_id=tok.eos_token_id,
            )
        share = (time.perf_counter() - started) / len(calls)
        results = []
        for row, (prompt_ids, (_, limit)) in enumerate(zip(prompts, calls, strict=True)):
            new = out[row, width:].tolist()[:limit]
            if tok.eos_token_id in new:
                new = new[: new.index(tok.eos_token_id) + 1]
            text = tok.decode(new, skip_special_tokens=True).strip()
            results.append(
                (text, Usage(prompt_tokens=len(prompt_ids), completion_tokens=len(new), seconds=share))
            )
        return results

    def _logprobs(self, message: str, continuations: list[str]) -> tuple[list[list[float]], Usage]:
        import torch

        started = time.perf_counter()
        loaded = self._loaded()
        tok = loaded.tokenizer
        prompt, special, sep = self._prompt(tok, message)
        out: list[list[float]] = []
        n_tokens = 0
        for cont in (neutral_text(tok, c) for c in continuations):
            enc = tok(prompt + sep + cont, add_special_tokens=special, return_offsets_mapping=True)
            ids: list[int] = list(enc["input_ids"])
            start = next(
                (i for i, (_, end) in enumerate(enc["offset_mapping"]) if end > len(prompt)), len(ids)
            )
            if start == len(ids) or start == 0:
                raise ValueError(f"the continuation {cont!r} produced no tokens to score")
            n_tokens += len(ids)
            x = torch.tensor([ids], device=loaded.device)
            with loaded.lock, torch.inference_mode():
                logits = loaded.model(input_ids=x).logits[0].float()
            logp = torch.log_softmax(logits[start - 1 : -1], dim=-1)
            target = x[0, start:]
            out.append(logp.gather(1, target[:, None])[:, 0].tolist())
        return out, Usage(prompt_tokens=n_tokens, seconds=time.perf_counter() - started)


_BYTE_LEVEL_SPACE = str.maketrans({"Ġ": " ", "▁": " ", "Ċ": "\n"})


class RemoteFamiliarityBackend:
    """A served model through the LLM protocol; teacher forcing by ``prompt_logprobs`` (vLLM)."""

    def __init__(self, llm: LLM, *, template: str | None = None) -> None:
        self.llm = llm
        self.template = template
        self.identity = f"remote:{llm.model}"
        self._tag = f"familiarity@{short_hash(template or 'chat-template')}"

    async def explain(self, message: str, max_tokens: int) -> tuple[str, Usage]:
        result = await self.llm.generate(
            ChatRequest(
                messages=[Message(role="user", content=message)],
                temperature=0.0,
                max_tokens=max_tokens,
                tag=self._tag + ":explain",
            )
        )
        return result.text.strip(), result.usage

    async def continuation_logprobs(
        self, message: str, continuations: Sequence[str]
    ) -> tuple[list[list[float]], Usage]:
        out: list[list[float]] = []
        usage = Usage()
        for cont in continuations:
            result = await self.llm.generate(self._teacher_forcing(message, cont))
            usage = usage + result.usage
            out.append(_suffix_logprobs(result.prompt_logprobs, result.prompt_token_strs, cont))
        return out, usage

    def _teacher_forcing(self, message: str, continuation: str) -> ChatRequest:
        """The continuation as the model's own answer to ``message``, its prompt tokens scored.

        Without a ``template`` the server renders the model's chat template (the same one the
        explanation request went through), with the continuation as the open assistant turn;
        a ``template`` is a hand-written turn format for a model served without one.
        """
        if self.template is None:
            return ChatRequest(
                messages=[
                    Message(role="user", content=message),
                    Message(role="assistant", content=continuation),
                ],
                continue_final_message=True,
                max_tokens=1,
                temperature=0.0,
                prompt_logprobs=0,
                tag=self._tag + ":teacher-forcing",
            )
        return ChatRequest(
            # A raw prompt is sent as written: the message (built from the sample) must not carry
            # turn markers into the hand-written turn format.
            prompt=f"{self.template.format(message=neutralise(message))} {continuation}",
            max_tokens=1,
            temperature=0.0,
            prompt_logprobs=0,
            tag=self._tag + ":teacher-forcing",
        )


def _suffix_logprobs(
    logprobs: list[dict[str, float] | None] | None, tokens: list[str] | None, suffix: str
) -> list[float]:
    """Log-probs of the prompt's last tokens that spell ``suffix`` (byte-level or sentencepiece strings)."""
    if logprobs is None or tokens is None:
        raise ValueError(
            "the server returned no prompt_logprobs: the remote familiarity backend needs vLLM completions"
        )
    if len(logprobs) != len(tokens):
        raise ValueError(f"prompt_logprobs ({len(logprobs)}) and prompt tokens ({len(tokens)}) do not align")
    need = len(suffix.strip())
    covered = ""
    picked: list[float] = []
    for i in range(len(tokens) - 1, 0, -1):
        token = tokens[i]
        entry = logprobs[i]
        if entry is None:
            raise ValueError(f"prompt token {i} ({token!r}) has no logprob")
        if token in entry:
            picked.append(entry[token])
        elif len(entry) == 1:  # prompt_logprobs=0: only the prompt token itself, possibly keyed differently
            picked.append(next(iter(entry.values())))
        else:
            raise ValueError(f"prompt token {token!r} is missing from its logprob entry")
        covered = token.translate(_BYTE_LEVEL_SPACE) + covered
        if len(covered.strip()) >= need:
            if not covered.strip().endswith(suffix.strip()):
                raise ValueError(f"the prompt's last tokens spell {covered!r}, not the concept {suffix!r}")
            return picked[::-1]
    raise ValueError(f"the prompt tokens do not cover the concept {suffix!r}")


# ---- the signal ----------------------------------------------------------------------------------


class FamiliaritySignal:
    """The ``familiarity`` local signal: how well the generator knows the question's concepts.

    ``value`` is the aggregated concept score in [0, 1] (higher = more familiar = more trustworthy); it
    does not need a response, so :meth:`familiarity` can run before generation.
    """

    name = "familiarity"
    kind = "local"

    def __init__(
        self,
        config: FamiliarityConfig,
        backend: FamiliarityBackend | None,
        *,
        concept_llm: LLM | None = None,
        unavailable: str | None = None,
    ) -> None:
        self.config = config
        self.backend = backend
        self.concept_llm = concept_llm
        self.unavailable = unavailable or "no model to measure familiarity with"
        settings = config.model_dump(
            mode="json",
            exclude={"enabled", "backend", "concepts", "threshold", "model_path", "device", "dtype"},
        )
        identity = backend.identity if backend is not None else "none"
        self.version = (
            f"{METHOD_VERSION}+{short_hash(canonical_json([settings, identity, CONCEPT_PROMPT_VERSION]))}"
        )

    @classmethod
    def from_config(
        cls, cfg: FamiliarityConfig, llm: LLM | None, *, generator: LLM | None = None
    ) -> FamiliaritySignal:
        """Build from ``[signals.familiarity]``. ``llm`` is the judge (concept extraction); ``generator``
        the served generator for the remote backend (defaults to ``llm``)."""
        remote = generator or llm
        backend: FamiliarityBackend | None = None
        unavailable = None
        want_local = cfg.backend == "local" or (cfg.backend == "auto" and cfg.model_path is not None)
        if want_local:
            if cfg.model_path is None:
                unavailable = "signals.familiarity.backend = 'local' but its model_path is not set"
            else:
                backend = LocalFamiliarityBackend(cfg.model_path, device=cfg.device, dtype=cfg.dtype)
        elif remote is not None:
            backend = RemoteFamiliarityBackend(remote, template=cfg.remote_template)
        else:
            unavailable = (
                "no model for familiarity: set signals.familiarity.model_path (local) or pass the "
                "generator's LLM (remote)"
            )
        concept_llm = llm if cfg.concepts in ("auto", "llm") else None
        return cls(cfg, backend, concept_llm=concept_llm, unavailable=unavailable)

    async def run(self, sample: Sample) -> Signal:
        """As :meth:`familiarity`, but a local model that cannot load raises WhiteboxLoadError, which
        the Scorer reports as missing with the sample incomplete (a rerun may load it)."""
        return await self._familiarity(sample.question)

    def bound(self, bind: Callable[[LLM], LLM]) -> FamiliaritySignal:
        """This signal with every LLM it asks handed through ``bind``: the Scorer binds it to its run on
        one sample, so the calls are counted there."""
        view = copy.copy(self)
        if self.concept_llm is not None:
            view.concept_llm = bind(self.concept_llm)
        if isinstance(self.backend, RemoteFamiliarityBackend):
            view.backend = RemoteFamiliarityBackend(bind(self.backend.llm), template=self.backend.template)
        return view

    async def familiarity(self, question: str) -> Signal:
        """Pre-generation check: the familiarity of ``question``'s concepts, as the "familiarity" Signal."""
        try:
            return await self._familiarity(question)
        except WhiteboxLoadError as e:
            return Signal.failed(self.name, f"{type(e).__name__}: {e}", version=self.version)

    async def _familiarity(self, question: str) -> Signal:
        started = time.perf_counter()
        if not question.strip():
            return Signal.failed(
                self.name,
                "question is empty: pass the question whose concepts to check",
                version=self.version,
            )
        if self.backend is None:
            return Signal.failed(self.name, self.unavailable, version=self.version)
        usage = Usage()
        warnings: list[str] = []
        try:
            concepts, usage = await self._concepts(question, warnings)
            if not concepts:
                return Signal.failed(
                    self.name,
                    "no concept found in the question: nothing to check familiarity of",
                    usage=_timed(usage, started),
                    version=self.version,
                )
            scores: list[ConceptScore | None] = [None] * len(concepts)
            usages: list[Usage] = [Usage()] * len(concepts)

            errors: list[Exception] = []

            async def one(i: int, concept: Concept) -> None:
                # errors are collected, not raised, so the first one surfaces plainly (no exception group)
                try:
                    scores[i], usages[i] = await self._score(concept)
                except (LLMError, ValueError, RuntimeError, OSError) as e:
                    errors.append(e)

            async with anyio.create_task_group() as tg:
                for i, concept in enumerate(concepts):
                    tg.start_soon(one, i, concept)
            usage = Usage.total([usage, *usages])
            if errors:
                raise errors[0]
        except LLMError as e:
            return Signal.failed(
                self.name, f"LLM: {e.reason}", usage=_timed(usage + e.usage, started), version=self.version
            )
        except WhiteboxLoadError:
            raise  # the Scorer marks the sample incomplete: the model may load on a rerun
        except (ValueError, RuntimeError, OSError) as e:
            return Signal.failed(
                self.name, f"{type(e).__name__}: {e}", usage=_timed(usage, started), version=self.version
            )
        done = [s for s in scores if s is not None]
        value = aggregate_scores([s.score for s in done], self.config.aggregation, self.config.decay)
        threshold = self.config.threshold
        for s in done:
            if not s.explanation:
                warnings.append(f"the model gave an empty explanation of {s.concept!r}")
        least = min(done, key=lambda s: s.score)
        return Signal(
            name=self.name,
            value=min(1.0, max(0.0, value)),
            raw={
                "score": value,
                "familiar": None if threshold is None else value >= threshold,
                "threshold": threshold,
                "concepts": [{"concept": s.concept, "score": s.score, "rarity": s.rarity} for s in done],
            },
            explanation=f"least familiar concept: {least.concept!r} ({least.score:.3f})",
            warnings=warnings,
            usage=_timed(usage, started),
            version=self.version,
        )

    async def score_concept(self, concept: str) -> ConceptScore:
        """One concept's score (explain, mask, teacher-force); raises on model errors."""
        score, _ = await self._score(Concept(text=concept, rarity=0.0, position=-1))
        return score

    async def calibrate_threshold(
        self, concepts: Sequence[str] = COMMON_CONCEPTS, **fit: Any
    ) -> tuple[ThresholdFit, list[ConceptScore]]:
        """Score common concepts with this very pipeline and fit the threshold (see :func:`fit_threshold`).

        Put the returned ``threshold`` into ``[signals.familiarity] threshold``.
        """
        scored = [await self.score_concept(c) for c in concepts]
        return fit_threshold([s.score for s in scored], **fit), scored

    async def _concepts(self, question: str, warnings: list[str]) -> tuple[list[Concept], Usage]:
        cfg = self.config
        usage = Usage()
        entities: list[str] | None = None
        if self.concept_llm is not None:
            try:
                entities, result = await extract_concepts_llm(question, self.concept_llm)
                usage = result.usage
            except (LLMError, ValueError) as e:
                if cfg.concepts == "llm":
                    raise
                usage = e.usage if isinstance(e, LLMError) else usage
                reason = e.reason if isinstance(e, LLMError) else str(e)
                warnings.append(f"concept extraction by the LLM failed ({reason}); used the heuristic")
        elif cfg.concepts == "llm":
            raise ValueError("signals.familiarity.concepts = 'llm' but no judge LLM was given")
        if entities is None:
            entities = extract_concepts_heuristic(question, common_top_n=cfg.common_top_n)
        return prepare_concepts(
            question, entities, common_top_n=cfg.common_top_n, max_concepts=cfg.max_concepts
        ), usage

    async def _score(self, concept: Concept) -> tuple[ConceptScore, Usage]:
        assert self.backend is not None
        cfg = self.config
        explanation, u1 = await self.backend.explain(
            cfg.explain_prompt.format(concept=concept.text), cfg.explanation_max_tokens
        )
        masked = mask_concept(explanation, concept.text, cfg.mask)
        variants = concept_variants(concept.text)
        logprobs, u2 = await self.backend.continuation_logprobs(
            cfg.infer_prompt.format(explanation=masked), variants
        )
        best = max(math.exp(float(np.mean(lp))) for lp in logprobs if lp)
        return ConceptScore(
            concept=concept.text,
            score=best,
            rarity=concept.rarity,
            explanation=explanation,
            masked_explanation=masked,
        ), u1 + u2


def _timed(usage: Usage, started: float) -> Usage:
    return usage.model_copy(update={"seconds": time.perf_counter() - started})
