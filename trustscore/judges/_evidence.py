"""The evidence block shared by our own judges (Likert, ChainPoll, TLM).

Every prompt built here starts with the same bytes for the same sample: a system message, then a user turn
that opens with the context, question and answer. Only the judge's instruction, appended last, differs,
so vLLM's automatic prefix cache prefills a sample's context once for all judges served by one model.
The order (context, question, answer) puts the longest shared part first: prompts that must not show the
answer (TLM's answer sampling) are built by ``question_messages`` and still share every byte up to and
including the question.
"""

from __future__ import annotations

from trustscore._types import Sample
from trustscore.judges._base import fitted_context
from trustscore.judges._context_fit import ContextFit
from trustscore.judges._templates import fill, load_template
from trustscore.llm._protocol import LLM, Message

__all__ = [
    "EVIDENCE_RESERVE_TOKENS",
    "evidence_messages",
    "evidence_prefix",
    "fitted_evidence_context",
    "question_messages",
    "question_prefix",
]


_QUESTION_END = "</question>"


def _split_template(context: str) -> tuple[str, str]:
    """The evidence template cut after the question section (``{question}`` and its closing
    ``</question>`` delimiter) and the blank lines that follow it: (head, tail)."""
    template = load_template("evidence_user.txt" if context else "evidence_user_no_context.txt")
    cut = template.index("{question}") + len("{question}")
    close = template.find(_QUESTION_END, cut)
    if close != -1 and not template[cut:close].strip():
        cut = close + len(_QUESTION_END)
    cut += len(template[cut:]) - len(template[cut:].lstrip())
    return template[:cut], template[cut:]


def question_prefix(*, question: str, context: str) -> str:
    """The evidence block up to and including the question (and its separator): no answer in it."""
    head, _ = _split_template(context)
    return fill(head, context=context, question=question)


def evidence_prefix(*, question: str, context: str, answer: str) -> str:
    """The user turn's opening block. An empty ``context`` leaves the Context section out.

    Built as ``question_prefix`` + the answer section, so it starts with exactly those bytes."""
    _, tail = _split_template(context)
    return question_prefix(question=question, context=context) + fill(tail, answer=answer)


def evidence_messages(*, question: str, context: str, answer: str, instruction: str) -> list[Message]:
    """System message + (evidence block followed by ``instruction``) as one user turn."""
    return [
        Message(role="system", content=load_template("evidence_system.txt")),
        Message(
            role="user",
            content=evidence_prefix(question=question, context=context, answer=answer) + instruction,
        ),
    ]


def question_messages(*, question: str, context: str, instruction: str) -> list[Message]:
    """System message + (evidence block up to the question, then ``instruction``): the answer is not shown.

    Byte for byte the same start as ``evidence_messages`` for the same sample, so the engine reuses the
    prefilled context for prompts that must not see the answer."""
    return [
        Message(role="system", content=load_template("evidence_system.txt")),
        Message(role="user", content=question_prefix(question=question, context=context) + instruction),
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
