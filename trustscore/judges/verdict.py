"""A guaranteed verdict for judges whose trained prompt lets the model reason freely first.

Lynx, Prometheus, ChainPoll and TLM's self-reflection ask for reasoning and then a verdict in a fixed
format. Their prompts stay verbatim; the model reasons within the judge's token budget as before. When
an output carries no readable verdict (the model rambled, or hit ``max_tokens``), one more request
continues *that same output* with the verdict marker appended (``continue_final_message``) and the
verdict constrained to the allowed words (``structured_outputs.choice``). The continuation re-reads the
prompt and the reasoning from vLLM's prefix cache, so it costs a few decode steps. The verdict is then
read by the judge's own parser from reasoning + marker + constrained word, logprobs included.

Each parsed output records its path: ``free`` (the model wrote the verdict itself) or ``constrained``.
OpenAI servers have no ``continue_final_message``: there an unparsable output stays unparsed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

import anyio

from trustscore.errors import JudgeFailure
from trustscore.judges.base import CallLog
from trustscore.llm.protocol import LLM, ChatRequest, Choice, Constraint, Message, TokenLogprob

__all__ = [
    "CONSTRAINED_WARNING",
    "VERDICT_MAX_TOKENS",
    "VerdictSpec",
    "Verdicted",
    "verdict_paths",
    "with_verdicts",
]

T = TypeVar("T")
Path = Literal["free", "constrained"]

VERDICT_MAX_TOKENS = 16
"""Room for the longest allowed word: real tokenizers split "unsupported" or "PASS" into pieces."""
CONSTRAINED_WARNING = "no verdict in the free output: verdict written as a constrained continuation"


@dataclass(frozen=True)
class VerdictSpec(Generic[T]):
    parse: Callable[[Choice], T]
    """The judge's parser; raises ValueError when the output has no verdict."""
    marker: str
    """Appended to the reasoning before the constrained verdict, e.g. '\\n[RESULT] '."""
    choices: list[str]
    """The verdict words the continuation may write."""
    cut: str | None = None
    """Drop the reasoning from the last occurrence of this text on (a half-written verdict)."""


@dataclass(frozen=True)
class Verdicted(Generic[T]):
    value: T | None
    path: Path | None
    error: str | None = None


def verdict_paths(items: list[Verdicted[T]]) -> dict[str, int]:
    """How many outputs took each path (for the signal's raw record)."""
    out = {"free": 0, "constrained": 0}
    for item in items:
        if item.path is not None:
            out[item.path] += 1
    return out


def _prefix(text: str, spec: VerdictSpec[T]) -> str:
    if spec.cut:
        at = text.lower().rfind(spec.cut.lower())
        if at >= 0:
            text = text[:at]
    return text.rstrip() + spec.marker


async def with_verdicts(
    choices: list[Choice], request: ChatRequest, spec: VerdictSpec[T], *, llm: LLM, calls: CallLog
) -> list[Verdicted[T]]:
    """Each choice parsed, continuing the unparsable ones with a constrained verdict (concurrently)."""
    out: list[Verdicted[T]] = [Verdicted(None, None)] * len(choices)
    pending: list[int] = []
    for i, choice in enumerate(choices):
        try:
            out[i] = Verdicted(spec.parse(choice), "free")
        except ValueError as e:
            out[i] = Verdicted(None, None, str(e))
            pending.append(i)
    if not pending or llm.flavour != "vllm" or request.messages is None:
        return out

    async def finish(i: int) -> None:
        prefix = _prefix(choices[i].text, spec)
        follow = ChatRequest(
            messages=[*request.messages, Message(role="assistant", content=prefix)],  # type: ignore[misc]
            continue_final_message=True,
            constraint=Constraint(choice=spec.choices),
            temperature=0.0,
            max_tokens=VERDICT_MAX_TOKENS,
            logprobs=request.logprobs,
            top_logprobs=request.top_logprobs,
            tag=request.tag + "/verdict",
        )
        try:
            result = await calls.generate(follow)
        except JudgeFailure as e:
            out[i] = Verdicted(None, None, f"{out[i].error}; the constrained verdict failed: {e.reason}")
            return
        if not result.choices:
            return
        tail = result.choices[0]
        joined = Choice(
            text=prefix + tail.text,
            logprobs=[TokenLogprob(token=prefix, logprob=0.0), *tail.logprobs] if tail.logprobs else None,
            finish_reason=tail.finish_reason,
        )
        try:
            out[i] = Verdicted(spec.parse(joined), "constrained")
        except ValueError as e:
            out[i] = Verdicted(None, None, f"constrained verdict unreadable: {e}")

    async with anyio.create_task_group() as tg:
        for i in pending:
            tg.start_soon(finish, i)
    return out
