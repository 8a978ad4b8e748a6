"""``[signals.familiarity]``: the Self-Familiarity signal (Luo et al., 2023), its model and settings."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from trustscore.signals import SignalConfig
from trustscore.whitebox._config import WhiteboxModel

__all__ = ["FamiliarityConfig"]


class FamiliarityConfig(SignalConfig, WhiteboxModel):
    """Self-Familiarity: how well the generator knows the question's concepts (a local model at
    ``model_path``, or the remote generator at ``endpoint``), measured before or after answering.

    The prompts are the paper's (``soap117/Self-evaluation``); the concept score is the model's
    probability of the concept given its own masked explanation, by teacher forcing.
    """

    endpoint: str | None = Field(
        default=None,
        description="entry under [endpoints] for concept extraction and, without model_path, the "
        "remote generator; default: the only endpoint when there is exactly one",
    )
    backend: Literal["auto", "local", "remote"] = Field(
        default="auto",
        description="local = model_path with transformers; remote = the generator LLM through vLLM "
        "(completions with prompt_logprobs); auto = local when model_path is set, else remote",
    )
    concepts: Literal["auto", "llm", "heuristic"] = Field(
        default="auto",
        description="concept extraction: the judge LLM, the offline heuristic, or the LLM when given",
    )
    max_concepts: int = Field(default=5, ge=1, description="rarest concepts scored per question")
    common_top_n: int = Field(
        default=10_000,
        ge=0,
        description="single words among this many most frequent English words are not concepts",
    )
    aggregation: Literal["accumulate", "min", "first"] = Field(
        default="accumulate",
        description="accumulate = mean weighted 1, decay, decay^2... rarest first; min; first = rarest only",
    )
    decay: float = Field(default=0.5, gt=0.0, le=1.0, description="weight ratio between successive concepts")
    explain_prompt: str = 'Explain the "{concept}" within one short paragraph.'
    infer_prompt: str = '"{explanation}" is related to what?'
    mask: str = Field(default="...", description="what replaces the concept in its explanation")
    explanation_max_tokens: int = Field(default=100, ge=1)
    threshold: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="familiar when the score is at or above it (fit it: fitting._familiarity_threshold)",
    )
    remote_template: str | None = Field(
        default=None,
        description="remote backend: unset, the teacher-forced concept goes through the served model's own "
        "chat template (the chat endpoint, the concept as the open assistant turn); set a turn format around "
        "{message} (e.g. 'USER: {message}\\nASSISTANT:') only for a model served without a chat template",
    )

    @field_validator("explain_prompt")
    @classmethod
    def _has_concept(cls, v: str) -> str:
        if "{concept}" not in v:
            raise ValueError("explain_prompt must contain {concept}")
        return v

    @field_validator("infer_prompt")
    @classmethod
    def _has_explanation(cls, v: str) -> str:
        if "{explanation}" not in v:
            raise ValueError("infer_prompt must contain {explanation}")
        return v

    @field_validator("remote_template")
    @classmethod
    def _has_message(cls, v: str | None) -> str | None:
        if v is not None and "{message}" not in v:
            raise ValueError("remote_template must contain {message}")
        return v
