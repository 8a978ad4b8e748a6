"""A fake LLM at the protocol level: no HTTP, no server, no client. It implements
:class:`trustscore.LLM` and answers each request either from the judges' scripted answers by its tag
(the same policies the fake vLLM server takes, :func:`~trustscore.testing.judge_policy` by default:
every registered judge's example answers) or from a function that returns the exact result.

    from trustscore.testing import FakeLLM, judge_policy, lynx_answer

    llm = FakeLLM(answers=judge_policy({"lynx": lynx_answer("FAIL", p_pass=0.2)}))
    signal = await my_judge.run(sample, llm)        # a judge, your own or a built-in
    assert llm.requests[0].tag.startswith("my_judge@")

A request no policy answers raises :class:`~trustscore._errors.LLMError` naming its tag, which the judge
reports as a missing signal with that reason; ``llm.unmatched`` lists them.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Literal

import anyio

from trustscore._errors import LLMError
from trustscore._types import Usage
from trustscore.llm._protocol import ChatRequest, ChatResult, Choice, TokenLogprob, TopLogprob
from trustscore.testing._faults import Fault
from trustscore.testing._judges import judge_of, judge_policy
from trustscore.testing._request import FakeRequest
from trustscore.testing._script import FakeAnswer, Policy, Reply
from trustscore.testing._tokens import tokenize
from trustscore.testing._wire import render_choice, render_messages

__all__ = ["FakeLLM", "Responder"]

Responder = Callable[[ChatRequest], ChatResult | Exception]
"""A function from a request to the exact result the fake returns, or the exception it raises."""


class FakeLLM:
    """The :class:`~trustscore.LLM` protocol in memory. ``respond`` (the exact result of each request)
    wins over ``answers`` (a policy of scripted answers by request, default: every registered judge's
    example answers). Records every request in :attr:`requests`."""

    def __init__(
        self,
        respond: Responder | None = None,
        *,
        answers: Policy | None = None,
        model: str = "fake-judge",
        flavour: Literal["vllm", "openai"] = "vllm",
        context_window: int = 8192,
    ) -> None:
        self.respond = respond
        self.answers: Policy = answers if answers is not None else judge_policy()
        self._model = model
        self._flavour: Literal["vllm", "openai"] = flavour
        self._context_window = context_window
        self.requests: list[ChatRequest] = []
        self.unmatched: list[ChatRequest] = []

    @property
    def model(self) -> str:
        return self._model

    @property
    def flavour(self) -> Literal["vllm", "openai"]:
        return self._flavour

    @property
    def context_window(self) -> int:
        return self._context_window

    def count_tokens(self, text: str) -> int:
        """About four characters a token, as a real tokenizer gives on English."""
        return math.ceil(len(text) / 4)

    async def generate(self, request: ChatRequest, *, cache: bool | None = None) -> ChatResult:
        self.requests.append(request)
        await anyio.lowlevel.checkpoint()
        if self.respond is not None:
            out = self.respond(request)
            if isinstance(out, Exception):
                raise out
            return out
        return await self._answer(request)

    async def aclose(self) -> None:
        """Nothing to release."""

    async def _answer(self, request: ChatRequest) -> ChatResult:
        fake = _as_fake_request(request, self._model, len(self.requests) - 1)
        asked = self.answers(fake)
        reply: Reply = await asked if inspect.isawaitable(asked) else asked
        if reply is None or isinstance(reply, Fault):
            self.unmatched.append(request)
            what = "a fault" if isinstance(reply, Fault) else "no answer"
            raise LLMError(f"FakeLLM: the script has {what} for the request tagged {request.tag!r}")
        answers = [reply] if isinstance(reply, FakeAnswer) else list(reply)
        choices = [_choice(fake, answers[i % len(answers)], request) for i in range(request.n)]
        prompt_tokens = len(fake.tokens)
        completion_tokens = sum(len(tokenize(c.text)) for c in choices)
        return ChatResult(
            choices=choices,
            model=self._model,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            usage=Usage(requests=1, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens),
        )


def _as_fake_request(request: ChatRequest, model: str, index: int) -> FakeRequest:
    text = render_messages(request.messages) if request.messages is not None else request.prompt or ""
    return FakeRequest(
        index=index,
        endpoint=request.endpoint,
        model=model,
        messages=request.messages,
        prompt=request.prompt,
        text=text,
        tokens=tokenize(text),
        n=request.n,
        temperature=request.temperature,
        top_p=request.top_p,
        max_tokens=request.max_tokens,
        logprobs=request.logprobs,
        top_logprobs=request.top_logprobs,
        prompt_logprobs=request.prompt_logprobs,
        echo=request.echo,
        stop=list(request.stop),
        seed=request.seed,
        constraint=request.constraint,
        continue_final_message=request.continue_final_message,
        judge=judge_of(request.tag),
        tag=request.tag or None,
        body={},
        headers={},
    )


def _choice(fake: FakeRequest, answer: FakeAnswer, request: ChatRequest) -> Choice:
    rendered = render_choice(fake, answer)
    logprobs = None
    if request.logprobs:
        logprobs = [
            TokenLogprob(token=tok, logprob=lp, top_logprobs=[TopLogprob(token=t, logprob=p) for t, p in top])
            for tok, lp, top in rendered.logprobs
        ]
    return Choice(text=rendered.text, logprobs=logprobs, finish_reason=rendered.finish_reason)
