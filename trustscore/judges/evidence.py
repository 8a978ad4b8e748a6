"""The evidence block shared by our own judges (Likert, ChainPoll, TLM).

Every prompt built here starts with the same bytes for the same sample: a system message, then a user turn
that opens with the context, question and answer. Only the judge's instruction, appended last, differs,
so vLLM's automatic prefix cache prefills a sample's context once for all judges served by one model.
"""

from __future__ import annotations

from trustscore.judges.base import fitted_context
from trustscore.judges.context_fit import ContextFit
from trustscore.judges.templates import fill, load_template
from trustscore.llm.protocol import LLM, Message
from trustscore.types import Sample

__all__ = ["EVIDENCE_RESERVE_TOKENS", "evidence_messages", "evidence_prefix", "fitted_evidence_context"]


def evidence_prefix(*, question: str, context: str, answer: str) -> str:
    """The user turn's opening block. An empty ``context`` leaves the Context section out."""
    if context:
        return fill(load_template("evidence_user.txt"), context=context, question=question, answer=answer)
    return fill(load_template("evidence_user_no_context.txt"), question=question, answer=answer)


def evidence_messages(*, question: str, context: str, answer: str, instruction: str) -> list[Message]:
    """System message + (evidence block followed by ``instruction``) as one user turn."""
    return [
        Message(role="system", content=load_template("evidence_system.txt")),
        Message(
            role="user",
            content=evidence_prefix(question=question, context=context, answer=answer) + instruction,
        ),
    ]


EVIDENCE_RESERVE_TOKENS = 1024
"""Tokens every evidence judge keeps free for its instruction and its answer when trimming context.

All evidence judges trim with the same budget (this, or more when a judge needs more), so that their
prompts keep one identical prefix, and share the prefix cache, even when the context is cut.
"""


def fitted_evidence_context(sample: Sample, llm: LLM, *, instruction: str, max_tokens: int) -> ContextFit:
    """The sample's context trimmed for an evidence prompt ending in ``instruction`` + ``max_tokens``."""
    fixed = load_template("evidence_system.txt") + evidence_prefix(
        question=sample.question, context="", answer=sample.response
    )
    need = max(llm.count_tokens(instruction) + max_tokens, EVIDENCE_RESERVE_TOKENS)
    return fitted_context(sample, llm, fixed_text=fixed, max_tokens=need)
