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
``first``). The score is not a calibrated probability; the familiarity threshold is fitted offline
(:mod:`trustscore.fitting._familiarity_threshold`) and set as ``[signals.familiarity] threshold``.

Two backends (:mod:`trustscore.whitebox._familiarity_backends`): the local model or a served model
through the :class:`~trustscore.llm._protocol.LLM` protocol.
"""

from __future__ import annotations

import copy
import math
import re
import time
from collections.abc import Callable, Sequence
from typing import Literal

import anyio
import numpy as np
from pydantic import BaseModel, ConfigDict

from trustscore._errors import WhiteboxLoadError
from trustscore._types import Sample, Signal, Usage
from trustscore.core._hashing import canonical_json, short_hash
from trustscore.llm._protocol import LLM, LLMError
from trustscore.whitebox._concepts import (
    CONCEPT_PROMPT_VERSION,
    STOPWORDS,
    Concept,
    extract_concepts_heuristic,
    extract_concepts_llm,
    prepare_concepts,
)
from trustscore.whitebox._familiarity_backends import (
    FamiliarityBackend,
    LocalFamiliarityBackend,
    RemoteFamiliarityBackend,
)
from trustscore.whitebox._familiarity_config import FamiliarityConfig

__all__ = [
    "ConceptScore",
    "FamiliaritySignal",
    "aggregate_scores",
    "concept_variants",
    "mask_concept",
]

METHOD_VERSION = "selffam-1"


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
