"""EmbeddingGrounding: is each response sentence close in meaning to some part of the context?

Every response sentence is embedded and compared (cosine) with windows of 1..k consecutive
context sentences; its *support* is the best similarity it finds. The per-sentence supports are
aggregated into the signal (``aggregate``; by default the lower
quartile, chosen on RAGTruth train_extra) and clipped into [0, 1]. ``raw`` carries every aggregate so a fused
model can use several, and the weakest sentences come back as spans.

**Short answers are judged as claims.** A response of fewer than ``claim_words`` words
("1998.", "Paris, I think.") has little meaning of its own: alone it matches nothing, so a correct short
answer scored lower than a long invented sentence. Such a response is embedded together with the
question ("When did the bridge open? 1998."), the claim it actually makes. Only whole short responses:
prefixing the short sentences of a long answer ("Sure!", "Here are the steps:") lifted the unfaithful
answers too and cost 0.06 AUROC on RAGTruth QA. ``raw["plain_*"]`` keeps the aggregates of the sentences
embedded alone, so the two can be compared on the same run.

**Negation.** ``raw["negation_mismatch"]`` is the share of response sentences whose negation
("not", "never", "no", "n't", ...) disagrees with the context window they match best: embeddings
barely move when a "not" is added, so this is the one meaning change they would otherwise miss.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError
from typing import TYPE_CHECKING

import anyio
import numpy as np
from pydantic import JsonValue

from trustscore._errors import EmbedderError
from trustscore._types import Sample, Signal, Span, Usage
from trustscore.compute._deadline import checkpoint
from trustscore.core._hashing import canonical_json, short_hash
from trustscore.grounding._config import EmbeddingSettings
from trustscore.grounding._polar import polar_reply
from trustscore.grounding._screen import SCREEN, screened_out
from trustscore.grounding._text import Piece, context_units, has_negation, split_long, split_sentences
from trustscore.textmodels._embedder import (
    Embedder,
    bundled_model_name,
    choose_runtime,
    load_embedder,
    model_identity,
    runtime_releases,
)

if TYPE_CHECKING:
    from trustscore.signals import VectorStore

__all__ = ["EmbeddingGrounding", "aggregate_similarities"]

_METHOD = "embedding-grounding/4"
_SOFTMIN_TEMPERATURE = 0.1


def aggregate_similarities(best: np.ndarray, low: float) -> dict[str, float]:
    """The summaries of per-sentence best similarities that the signal reports.

    ``softmin`` is ``-t log mean exp(-s / t)`` with t = 0.1: between the mean and the minimum,
    pulled towards the weakest sentences. ``frac_low`` is the share of sentences below ``low``.
    """
    t = _SOFTMIN_TEMPERATURE
    shifted = -best / t
    peak = float(shifted.max())
    softmin = -t * (peak + float(np.log(np.mean(np.exp(shifted - peak)))))
    return {
        "min": float(best.min()),
        "mean": float(best.mean()),
        "q25": float(np.quantile(best, 0.25)),
        "softmin": softmin,
        "frac_low": float(np.mean(best < low)),
    }


@dataclass(frozen=True, slots=True)
class _Chunks:
    texts: list[str]
    trimmed: bool


class EmbeddingGrounding:
    """A :class:`~trustscore.signals.LocalSignal` named ``"embedding"`` (higher = better grounded).

    The model is loaded on first use (process-wide, shared with other users of the same folder).
    A sample's text work runs in a worker thread; its forward passes run on the embedder's one
    encoder lane, batched with those of the other samples in flight. ``store`` (the local-signal
    cache) keeps embeddings across runs.
    """

    name = "embedding"
    kind = "local"

    def __init__(
        self,
        config: EmbeddingSettings | None = None,
        *,
        embedder: Embedder | None = None,
        store: VectorStore | None = None,
    ) -> None:
        self.config = config or EmbeddingSettings()
        self._embedder = embedder
        self._load_lock = threading.Lock()
        self._store = store
        cfg = self.config
        knobs = {
            # int8 on ONNX, fp32 on torch: the default model's values differ between runtimes
            "model": str(cfg.model) if cfg.model else bundled_model_name(cfg.runtime),
            "windows": list(cfg.windows),
            "aggregate": cfg.aggregate,
            "low": cfg.low_similarity,
            "max_words": cfg.max_words_per_chunk,
            "claim_words": cfg.claim_words,
        }
        self.version = f"{_METHOD}+{short_hash(canonical_json(knobs), 8)}"

    async def run(self, sample: Sample) -> Signal:
        """As :meth:`score`, but a model that cannot load raises EmbedderError, which the Scorer
        reports as missing with the sample incomplete (a rerun may load it)."""
        return await anyio.to_thread.run_sync(self._score, sample)

    def cache_identity(self) -> str | None:
        """The version, the model's weights hash and the runtime's library releases (blocking: hashes a
        custom model's weights once per process); None when the model cannot be found."""
        try:
            model = (
                self._embedder.identity
                if self._embedder is not None
                else model_identity(self.config.model, self.config.runtime)
            )
            chosen = (
                self._embedder.runtime
                if self._embedder is not None
                else choose_runtime(self.config.model, self.config.runtime)
            )
            runtime = [chosen, *runtime_releases(chosen)]
        except (EmbedderError, OSError, PackageNotFoundError):
            return None  # the signal will say why it is missing; nothing to cache
        return canonical_json([self.version, model, runtime, SCREEN])

    def embedder(self) -> Embedder:
        """The embedder this signal uses, loaded on first call (raises EmbedderError); a call while
        another thread loads it waits for that load rather than loading a second copy."""
        with self._load_lock:
            if self._embedder is None:
                cfg = self.config
                self._embedder = load_embedder(
                    cfg.model,
                    threads=cfg.threads,
                    runtime=cfg.runtime,
                    device=cfg.device,
                )
            return self._embedder

    def start_loading(self) -> None:
        """Load the embedder on a background thread, so that the model's load (most of a fresh process's
        first score) overlaps what the caller does until then; a failure is left for the first score to
        report (it loads again and says why)."""
        if self._embedder is not None:
            return

        def load() -> None:
            try:
                self.embedder()
            except Exception:  # the first score reports it
                return

        threading.Thread(target=load, name="trustscore-embedder-load").start()

    def score(self, sample: Sample) -> Signal:
        """The signal for one sample, computed (blocking) in the calling thread."""
        try:
            return self._score(sample)
        except EmbedderError as e:
            return Signal.failed(self.name, str(e), version=self.version)

    def _score(self, sample: Sample) -> Signal:
        began = time.perf_counter()
        cfg = self.config
        if not sample.has_context:
            return self._failed(
                "no context: embedding grounding compares the response with the retrieved passages; "
                "pass context=[...]",
                began,
            )
        if (screened := screened_out(self.name, self.version, sample, began)) is not None:
            return screened
        reply = polar_reply(sample.question, sample.response)
        response = sample.response
        if reply is not None:
            sample = reply.sample(sample)
        sentences = [
            part for s in split_sentences(sample.response) for part in split_long(s, cfg.max_words_per_chunk)
        ]
        if not sentences:
            return self._failed("the response has no sentence with a word or number in it", began)
        chunks = self._chunks(sample.context)
        if not chunks.texts:
            return self._failed("the context has no sentence with a word or number in it", began)
        question = sample.question.strip()
        short_answer = bool(question) and len(sample.response.split()) < cfg.claim_words
        claims = [f"{question} {s.text}" if short_answer else s.text for s in sentences]
        short = [i for i, s in enumerate(sentences) if claims[i] != s.text]
        extra = [claims[i] for i in short]
        try:
            embedder = self.embedder()
        except EmbedderError as e:
            raise EmbedderError(f"embedding model unavailable: {e}") from e
        texts = [s.text for s in sentences] + extra + chunks.texts
        vectors = embedder.encode(texts, cfg.batch_size, store=self._store)

        n = len(sentences)
        plain, ctx = vectors[:n], vectors[n + len(short) :]
        claim_vectors = plain.copy()
        if short:
            claim_vectors[short] = vectors[n : n + len(short)]
        plain_best = (plain @ ctx.T).max(axis=1)
        sims = claim_vectors @ ctx.T
        best = sims.max(axis=1)
        match = sims.argmax(axis=1)
        parts = aggregate_similarities(best, cfg.low_similarity)
        mismatch = [
            has_negation(sentences[i].text) != has_negation(chunks.texts[int(match[i])]) for i in range(n)
        ]
        raw: dict[str, JsonValue] = {
            **{k: round(v, 6) for k, v in parts.items()},
            **{
                f"plain_{k}": round(v, 6)
                for k, v in aggregate_similarities(plain_best, cfg.low_similarity).items()
            },
            "negation_mismatch": round(float(np.mean(mismatch)), 6),
            "sentence_similarity": [round(float(b), 4) for b in best],
            "sentences": n,
            "claims_with_question": len(short),
            "chunks": len(chunks.texts),
        }
        weakest = self._weakest_spans(sentences, best)
        if reply is not None:
            weakest = [_placed(s, reply.in_response(s.start, s.end), response) for s in weakest]
        value = min(1.0, max(0.0, parts[cfg.aggregate]))
        low = int(np.sum(best < cfg.low_similarity))
        return Signal(
            name=self.name,
            value=value,
            raw=raw,
            explanation=f"{low} of {len(sentences)} sentences have no context match above "
            f"{cfg.low_similarity:g} (weakest {parts['min']:.2f})",
            warnings=[f"context cut to its first {cfg.max_context_chunks} chunks"] if chunks.trimmed else [],
            spans=weakest,
            usage=Usage(seconds=time.perf_counter() - began),
            version=self.version,
        )

    def _chunks(self, passages: list[str]) -> _Chunks:
        cfg = self.config
        texts: list[str] = []
        for passage in passages:
            checkpoint()  # the score budget can stop a huge context here
            units = [
                part.text
                for u in context_units(passage)
                for part in split_long(Piece(0, len(u), u), cfg.max_words_per_chunk)
            ]
            lengths = [len(u.split()) for u in units]
            for size in cfg.windows:
                for i in range(len(units) - size + 1):
                    # A window longer than the model reads would be truncated: its parts stand alone.
                    if size == 1 or sum(lengths[i : i + size]) <= cfg.max_words_per_chunk:
                        texts.append(" ".join(units[i : i + size]))
        trimmed = len(texts) > cfg.max_context_chunks
        return _Chunks(texts[: cfg.max_context_chunks], trimmed)

    def _weakest_spans(self, sentences: list[Piece], best: np.ndarray) -> list[Span]:
        cfg = self.config
        order = [int(i) for i in np.argsort(best, kind="stable") if best[i] < cfg.low_similarity]
        return [
            Span(
                start=sentences[i].start,
                end=sentences[i].end,
                text=sentences[i].text,
                score=min(1.0, max(0.0, 1.0 - float(best[i]))),
                label="weak-context-match",
            )
            for i in order[: cfg.max_spans]
        ]

    def _failed(self, reason: str, began: float) -> Signal:
        return Signal.failed(
            self.name, reason, usage=Usage(seconds=time.perf_counter() - began), version=self.version
        )


def _placed(span: Span, at: tuple[int, int], response: str) -> Span:
    """``span`` placed at ``at`` in the response."""
    return span.model_copy(update={"start": at[0], "end": at[1], "text": response[at[0] : at[1]]})
