"""The LLM judges: Likert, Prometheus 2, Lynx, ChainPoll and TLM-style, registered by name.

Each judge module holds the judge, its config section model, its prompt building and parsing (pure
functions) and its registration (:func:`trustscore.signals.register_judge`, exactly as a user's
judge would register, with the answers the test kit replays for it). Each judge has ``name``,
``version`` (hash of its prompt files, parser rules and prompt-shaping settings) and
``async run(sample, llm) -> Signal``. The imports below register them, in the order results list them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from trustscore._errors import ConfigError
from trustscore.signals import Judge, JudgeConfig, SignalContext, get_signal

# registration order = the order results list the judges
# isort: off
from trustscore.judges._likert import LikertConfig, LikertJudge
from trustscore.judges._prometheus import PrometheusConfig, PrometheusJudge
from trustscore.judges._lynx import LynxConfig, LynxJudge
from trustscore.judges._chainpoll import ChainPollConfig, ChainPollJudge
from trustscore.judges._tlm import TLMConfig, TLMJudge
# isort: on

__all__ = [
    "ChainPollConfig",
    "ChainPollJudge",
    "JudgeConfig",
    "LikertConfig",
    "LikertJudge",
    "LynxConfig",
    "LynxJudge",
    "PrometheusConfig",
    "PrometheusJudge",
    "TLMConfig",
    "TLMJudge",
    "build_judge",
]


def build_judge(name: str, config: BaseModel | dict[str, Any]) -> Judge:
    """The registered judge called ``name`` with its config section (a plain JudgeConfig or dict is
    upgraded to the judge's own model), built outside a Scorer. (A judge that takes more than its
    section, e.g. ``TLMJudge(config, similarity=fn)``, is constructed directly.)"""
    spec = get_signal(name, kind="judge")
    if not isinstance(config, spec.config):
        data = config if isinstance(config, dict) else config.model_dump(exclude_unset=True)
        config = spec.config.model_validate(data)
    judge = spec.build(config, SignalContext())
    if judge is None:
        raise ConfigError(f"the factory of judge {name!r} ({spec.origin}) returned None")
    return judge  # type: ignore[return-value]
