"""Scripted results for the judge tests, returned by the test kit's protocol-level FakeLLM (recorded
requests, no I/O)."""

from __future__ import annotations

import math
from collections.abc import Callable

from trustscore import Sample, Signal, Usage
from trustscore.llm import LLM, ChatRequest, ChatResult, Choice, TokenLogprob, TopLogprob
from trustscore.scoring._runners import JudgeSource, SourceRun, run_guarded
from trustscore.signals import Judge
from trustscore.testing import FakeLLM

__all__ = ["CALL_USAGE", "FakeLLM", "always", "choice", "metered_run", "result", "tokens"]

Responder = Callable[[ChatRequest], ChatResult | Exception]
TokenSpec = str | tuple[str, dict[str, float]]

CALL_USAGE = Usage(requests=1, prompt_tokens=100, completion_tokens=20, seconds=0.5)


async def metered_run(judge: Judge, sample: Sample, llm: LLM) -> Signal:
    """The judge's signal as the Scorer reports it: with the usage its calls' records sum to (a judge
    itself adds up nothing)."""
    return await run_guarded(JudgeSource(judge, llm, None), sample, SourceRun())


def tokens(*spec: TokenSpec) -> list[TokenLogprob]:
    """Per-token logprobs: "text" is a sure token; ("text", {alt: prob, ...}) has top alternatives.

    The generated token's own probability is the one given for it in the dict (1.0 if absent).
    """
    out = []
    for item in spec:
        if isinstance(item, str):
            out.append(
                TokenLogprob(token=item, logprob=0.0, top_logprobs=[TopLogprob(token=item, logprob=0.0)])
            )
            continue
        text, alts = item
        top = [TopLogprob(token=t, logprob=math.log(p)) for t, p in alts.items()]
        out.append(TokenLogprob(token=text, logprob=math.log(alts.get(text, 1.0)), top_logprobs=top))
    return out


def choice(text: str, logprobs: list[TokenLogprob] | None = None, finish_reason: str = "stop") -> Choice:
    if logprobs is not None:
        assert "".join(t.token for t in logprobs) == text, "token texts must spell the choice text"
    return Choice(text=text, logprobs=logprobs, finish_reason=finish_reason)


def result(*choices: Choice | str, usage: Usage = CALL_USAGE) -> ChatResult:
    built = [c if isinstance(c, Choice) else choice(c) for c in choices]
    return ChatResult(choices=built, model="fake-judge", usage=usage)


def always(out: ChatResult | Exception) -> Responder:
    return lambda _req: out
