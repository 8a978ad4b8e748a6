"""The LLM judges: Likert, Prometheus 2, Lynx, ChainPoll and TLM-style, built by name from their config.

Each judge has ``name``, ``version`` (hash of its prompt files, parser rules and prompt-shaping settings)
and ``async run(sample, llm) -> Signal``; prompt building and parsing are pure functions in its module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
from trustscore.sources import Judge

__all__ = [
    "JUDGE_NAMES",
    "ChainPollJudge",
    "LikertJudge",
    "LynxJudge",
    "PrometheusJudge",
    "TLMJudge",
    "build_judge",
]

_BUILDERS: dict[str, tuple[type[JudgeConfig], Callable[..., Judge]]] = {
    "likert": (LikertConfig, LikertJudge),
    "prometheus": (PrometheusConfig, PrometheusJudge),
    "lynx": (LynxConfig, LynxJudge),
    "chainpoll": (ChainPollConfig, ChainPollJudge),
    "tlm": (TLMConfig, TLMJudge),
}
JUDGE_NAMES: tuple[str, ...] = tuple(_BUILDERS)


def build_judge(
    name: str, config: JudgeConfig | dict[str, Any], *, similarity: Similarity | None = None
) -> Judge:
    """The judge called ``name`` with its config section (a plain JudgeConfig or dict is upgraded).

    ``similarity`` is for the TLM judge's embedding-based consistency; other judges refuse it.
    """
    if name not in _BUILDERS:
        raise ValueError(f"unknown judge {name!r}: known judges are {', '.join(JUDGE_NAMES)}")
    config_type, judge_type = _BUILDERS[name]
    if not isinstance(config, config_type):
        data = config if isinstance(config, dict) else config.model_dump(exclude_unset=True)
        config = config_type.model_validate(data)
    if name == "tlm":
        return TLMJudge(config, similarity=similarity)  # type: ignore[arg-type]
    if similarity is not None:
        raise ValueError(f"similarity is a TLM setting; the {name} judge does not take it")
    return judge_type(config)
