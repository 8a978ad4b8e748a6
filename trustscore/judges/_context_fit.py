"""Trim retrieved context so a judge prompt fits the judge model's window.

Passages are dropped from the end, and the last one kept may be cut short; the question, the answer and
the instructions are never touched. Token counts come from ``llm.count_tokens`` (a conservative estimate).
"""

from __future__ import annotations

from dataclasses import dataclass

from trustscore._errors import PromptTooLong
from trustscore.llm._protocol import LLM

__all__ = ["ContextFit", "fit_context"]

PASSAGE_SEPARATOR = "\n\n"
TEMPLATE_OVERHEAD_TOKENS = 32
"""Room for chat-template tokens (role headers, BOS) that the text itself does not show."""


@dataclass(frozen=True)
class ContextFit:
    text: str
    """The context to show the judge: the passages kept, joined with a blank line."""
    warning: str | None
    """``"context trimmed: kept ~X of ~Y tokens"`` when anything was cut, else None."""


def fit_context(passages: list[str], *, llm: LLM, fixed_text: str, max_tokens: int) -> ContextFit:
    """Keep as much of ``passages`` as fits beside ``fixed_text`` (all else sent) and ``max_tokens``."""
    kept = [p for p in passages if p.strip()]
    full = PASSAGE_SEPARATOR.join(kept)
    fixed = llm.count_tokens(fixed_text) + TEMPLATE_OVERHEAD_TOKENS
    budget = llm.context_window - max_tokens - fixed
    if budget <= 0:
        raise PromptTooLong(
            f"the question, answer and instructions take ~{fixed} tokens and the judge needs {max_tokens} "
            f"to answer, over the model's window of {llm.context_window}: serve a longer --max-model-len "
            f"or shorten the answer"
        )
    total = llm.count_tokens(full) if full else 0
    if total <= budget:
        return ContextFit(full, None)
    chosen: list[str] = []
    for passage in kept:
        candidate = PASSAGE_SEPARATOR.join([*chosen, passage])
        if llm.count_tokens(candidate) <= budget:
            chosen.append(passage)
            continue
        cut = _longest_prefix_within(passage, chosen, llm=llm, budget=budget)
        if cut:
            chosen.append(cut)
        break
    text = PASSAGE_SEPARATOR.join(chosen)
    kept_tokens = llm.count_tokens(text) if text else 0
    return ContextFit(text, f"context trimmed: kept ~{kept_tokens} of ~{total} tokens")


def _longest_prefix_within(passage: str, chosen: list[str], *, llm: LLM, budget: int) -> str:
    """The longest leading part of ``passage`` that still fits after ``chosen`` (binary search on chars)."""
    lo, hi = 0, len(passage)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if llm.count_tokens(PASSAGE_SEPARATOR.join([*chosen, passage[:mid]])) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return passage[:lo].rstrip()
