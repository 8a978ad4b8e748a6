"""Per-judge configuration. A judge runs when its section is present in the config."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, model_validator

from trustscore.core.hashing import canonical_json
from trustscore.llm.protocol import MAX_TEMPERATURE

__all__ = [
    "ChainPollConfig",
    "JudgeConfig",
    "JudgesConfig",
    "LikertConfig",
    "LynxConfig",
    "PrometheusConfig",
    "TLMConfig",
]


_TEMP = "[0, 2], the range vLLM and the OpenAI API accept"


class JudgeConfig(BaseModel):
    """Settings every judge shares."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    endpoint: str = Field(description="name of an entry under [endpoints]")
    enabled: bool = True
    timeout_s: float | None = Field(default=None, gt=0, description="deadline for this judge's calls")

    def value_settings(self) -> str:
        """The settings that can change the judge's values, as canonical JSON.

        Part of the judge's version, so a calibrator fitted with one setting (e.g. 5 polls, or
        logprob-weighted scores) is refused for another. Where the judge is served and how long it
        may take do not change its values and are left out.
        """
        return canonical_json(self.model_dump(mode="json", exclude={"endpoint", "enabled", "timeout_s"}))


class LikertConfig(JudgeConfig):
    max_tokens: int = Field(default=512, ge=8, description="room for the explanation and the 'Score:' line")
    temperature: float = Field(
        default=0.0, ge=0.0, le=MAX_TEMPERATURE, allow_inf_nan=False, description=_TEMP
    )
    top_logprobs: int = Field(default=5, ge=0, le=20, description="0 = score from the text only")
    prefill_score: bool = Field(
        default=False,
        description="vLLM only: skip the explanation, prefill the assistant turn with 'Score:' and constrain "
        "the next token to a digit 1-5 (one-token answer, most graded expected score)",
    )
    verdict_only: bool = Field(
        default=False,
        description="ask for the rating alone, no explanation (for endpoints billed per token): the "
        "prefilled one-token answer on a vLLM server, elsewhere a 'Score: <rating>' line in at most 8 tokens",
    )

    def value_settings(self) -> str:
        # Off by default and left out then, so the explained judge keeps its version (and calibrators).
        settings = self.model_dump(mode="json", exclude={"endpoint", "enabled", "timeout_s"})
        if not self.verdict_only:
            del settings["verdict_only"]
        return canonical_json(settings)


class PrometheusConfig(JudgeConfig):
    system_prompt: Literal["fold", "system", "omit"] = Field(
        default="fold",
        description="fold: prepend the system prompt to the user turn (Mistral chat templates refuse a "
        "system role); system: send it as a system message; omit: leave it out",
    )
    rubric: str | None = Field(
        default=None,
        description="a rubric in Prometheus format ('[criteria]' then 'Score 1: ...' .. 'Score 5: ...'); "
        "default: a faithfulness-to-the-passage rubric",
    )
    polls: int = Field(default=1, ge=1, le=16, description="gradings drawn in one request (n) and averaged")
    temperature: float = Field(
        default=0.0, ge=0.0, le=MAX_TEMPERATURE, allow_inf_nan=False, description=_TEMP
    )
    top_p: float = Field(default=1.0, gt=0.0, le=1.0, allow_inf_nan=False)
    max_tokens: int = Field(default=1024, ge=16)
    top_logprobs: int = Field(default=5, ge=0, le=20, description="0 = score from the text only")

    @model_validator(mode="after")
    def _polls_need_sampling(self) -> PrometheusConfig:
        if self.polls > 1 and self.temperature == 0.0:
            raise ValueError(
                "prometheus.polls > 1 draws identical gradings at temperature 0: set temperature > 0"
            )
        if self.rubric is not None and "Score 5:" not in self.rubric:
            raise ValueError(
                "prometheus.rubric must list the levels as 'Score 1: ...' through 'Score 5: ...'"
            )
        return self


class LynxConfig(JudgeConfig):
    max_tokens: int = Field(default=600, ge=16)
    temperature: float = Field(
        default=0.0, ge=0.0, le=MAX_TEMPERATURE, allow_inf_nan=False, description=_TEMP
    )
    top_logprobs: int = Field(default=10, ge=0, le=20, description="0 = verdict from the text only (1 or 0)")


class ChainPollConfig(JudgeConfig):
    polls: int = Field(
        default=5, ge=1, le=32, description="chain-of-thought verdicts drawn in one request (n)"
    )
    min_votes: int | None = Field(
        default=None, ge=1, description="fewest parsed votes for a value; default ceil(polls / 2)"
    )
    temperature: float = Field(
        default=0.7,
        gt=0.0,
        le=MAX_TEMPERATURE,
        allow_inf_nan=False,
        description="(0, 2]: > 0, or every poll is the same",
    )
    max_tokens: int = Field(default=512, ge=16)

    @model_validator(mode="after")
    def _votes_fit(self) -> ChainPollConfig:
        if self.min_votes is not None and self.min_votes > self.polls:
            raise ValueError(f"chainpoll.min_votes ({self.min_votes}) is above polls ({self.polls})")
        return self

    @property
    def required_votes(self) -> int:
        return self.min_votes if self.min_votes is not None else math.ceil(self.polls / 2)


class TLMConfig(JudgeConfig):
    samples: int = Field(
        default=5, ge=0, le=20, description="answers drawn for consistency (0 = reflection only)"
    )
    sample_temperature: float = Field(
        default=1.0, gt=0.0, le=MAX_TEMPERATURE, allow_inf_nan=False, description="(0, 2], as vLLM accepts"
    )
    beta: float = Field(
        default=0.7, ge=0.0, le=1.0, description="weight of observed consistency (BSDetector)"
    )
    alpha: float = Field(
        default=0.8, ge=0.0, le=1.0, description="per sample: weight of agreement vs exact match (BSDetector)"
    )
    consistency: Literal["llm", "similarity"] = Field(
        default="llm",
        description="llm: the judge says whether each sampled answer agrees with the response; similarity: "
        "a similarity callable given to the judge's constructor (e.g. embeddings)",
    )
    require_context: bool = Field(
        default=False,
        description="True: missing signal without context; False: judge on the model's knowledge",
    )
    answer_max_tokens: int = Field(default=384, ge=8)
    reflection_max_tokens: int = Field(default=384, ge=8)
    top_logprobs: int = Field(default=5, ge=0, le=20)


class JudgesConfig(BaseModel):
    """Which judges run, and how: one ``[judges.<name>]`` table per judge, validated by the model
    its registration names (:mod:`trustscore.signals._registry`). Absent table = judge off.

    Read a judge's section as ``config.judges.get("lynx")`` (or ``config.judges.lynx`` when present).
    """

    model_config = ConfigDict(frozen=True, extra="allow")
    __pydantic_extra__: dict[str, SerializeAsAny[JudgeConfig]] = Field(init=False)

    @model_validator(mode="before")
    @classmethod
    def _resolve(cls, data: Any) -> Any:
        if isinstance(data, JudgesConfig):
            return data
        if not isinstance(data, Mapping):
            raise ValueError("[judges] must be a table of [judges.<name>] sections")
        from trustscore.signals._registry import resolve_section

        return {name: resolve_section("judge", str(name), raw) for name, raw in data.items()}

    def get(self, name: str) -> JudgeConfig | None:
        """The section of judge ``name``; None when it is not configured."""
        return (self.__pydantic_extra__ or {}).get(name)

    def enabled(self) -> dict[str, JudgeConfig]:
        """The configured judges that are not ``enabled = false``, by name."""
        return {name: cfg for name, cfg in (self.__pydantic_extra__ or {}).items() if cfg.enabled}
