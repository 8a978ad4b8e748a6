"""The LLM judges: Likert, Prometheus 2, Lynx, ChainPoll and TLM-style, registered by name.

Each judge has ``name``, ``version`` (hash of its prompt files, parser rules and prompt-shaping settings)
and ``async run(sample, llm) -> Signal``; prompt building and parsing are pure functions in its module.
The five register here through :func:`trustscore.register_signal`, exactly as a user's judge would.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from trustscore.errors import ConfigError
from trustscore.judges.chainpoll import ChainPollJudge
from trustscore.judges.config import (
    ChainPollConfig,
    JudgeConfig,
    LikertConfig,
    LynxConfig,
    PrometheusConfig,
    TLMConfig,
)
from trustscore.judges.likert import LikertJudge
from trustscore.judges.lynx import LynxJudge
from trustscore.judges.prometheus import PrometheusJudge
from trustscore.judges.tlm import Similarity, TLMJudge
from trustscore.signals._context import SignalContext
from trustscore.signals._protocols import Judge
from trustscore.signals._registry import get_signal, register_signal

__all__ = [
    "JUDGE_NAMES",
    "ChainPollJudge",
    "JudgeConfig",
    "LikertJudge",
    "LynxJudge",
    "PrometheusJudge",
    "TLMJudge",
    "build_judge",
]

JUDGE_NAMES: tuple[str, ...] = ("likert", "prometheus", "lynx", "chainpoll", "tlm")
"""The built-in judges, in the order results list them."""


@register_signal("likert", config=LikertConfig, kind="judge")
def build_likert(config: LikertConfig, ctx: SignalContext) -> Judge:
    return LikertJudge(config)


@register_signal("prometheus", config=PrometheusConfig, kind="judge")
def build_prometheus(config: PrometheusConfig, ctx: SignalContext) -> Judge:
    return PrometheusJudge(config)


@register_signal("lynx", config=LynxConfig, kind="judge")
def build_lynx(config: LynxConfig, ctx: SignalContext) -> Judge:
    return LynxJudge(config)


@register_signal("chainpoll", config=ChainPollConfig, kind="judge")
def build_chainpoll(config: ChainPollConfig, ctx: SignalContext) -> Judge:
    return ChainPollJudge(config)


@register_signal("tlm", config=TLMConfig, kind="judge")
def build_tlm(config: TLMConfig, ctx: SignalContext) -> Judge:
    return TLMJudge(config)


def build_judge(
    name: str, config: BaseModel | dict[str, Any], *, similarity: Similarity | None = None
) -> Judge:
    """The registered judge called ``name`` with its config section (a plain JudgeConfig or dict is
    upgraded to the judge's own model), built outside a Scorer.

    ``similarity`` is for the TLM judge's embedding-based consistency; other judges refuse it.
    """
    spec = get_signal(name, kind="judge")
    if not isinstance(config, spec.config):
        data = config if isinstance(config, dict) else config.model_dump(exclude_unset=True)
        config = spec.config.model_validate(data)
    if similarity is not None:
        if name != "tlm":
            raise ConfigError(f"similarity is a TLM setting; the {name} judge does not take it")
        return TLMJudge(config, similarity=similarity)  # type: ignore[arg-type]
    judge = spec.build(config, SignalContext())
    if judge is None:
        raise ConfigError(f"the factory of judge {name!r} ({spec.origin}) returned None")
    return judge  # type: ignore[return-value]
