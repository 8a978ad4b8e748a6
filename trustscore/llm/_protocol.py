"""The one request and result type every judge speaks, and the errors the LLM layer raises.

Judges build a :class:`ChatRequest` and read a :class:`ChatResult`; they never see HTTP, retries,
caching or rate limits. A backend maps the request to a server's dialect (vLLM or OpenAI).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, Protocol, runtime_checkable

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, JsonValue, PrivateAttr, model_validator

from trustscore._errors import LLMError
from trustscore._types import Usage
from trustscore.llm._scheduling import Capacity

if TYPE_CHECKING:
    from trustscore.llm._call import CallContext

__all__ = [
    "LLM",
    "LOGPROB_TOLERANCE",
    "Backend",
    "ChatRequest",
    "ChatResult",
    "Choice",
    "Constraint",
    "GatedLLM",
    "HealthCheckedBackend",
    "LLMError",
    "Logprob",
    "LoopBoundBackend",
    "Message",
    "TokenLogprob",
    "TopLogprob",
    "WrappedLLM",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Message(_Frozen):
    role: Literal["system", "user", "assistant"]
    content: str


class Constraint(_Frozen):
    """A structured-output constraint: exactly one of choice, regex or json_schema."""

    choice: list[str] | None = None
    regex: str | None = None
    json_schema: dict[str, JsonValue] | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Constraint:
        given = [k for k in ("choice", "regex", "json_schema") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"a constraint takes exactly one of choice, regex, json_schema (got {given})")
        return self


MAX_TEMPERATURE = 2.0
"""vLLM rejects temperatures outside [0, 2] (SamplingParams._verify_args: "temperature must be in
[0, 2]"), as does the OpenAI API; top_p must be in (0, 1], and greedy sampling (temperature 0)
allows only n = 1."""


class ChatRequest(_Frozen):
    """One call to a model. Chat when ``messages`` is set, raw completion when ``prompt`` is set.

    Every sampling parameter is explicit: servers otherwise inherit the model's generation_config.
    """

    messages: list[Message] | None = None
    prompt: str | None = None
    n: int = Field(default=1, ge=1, le=128)
    temperature: float = Field(default=0.0, ge=0.0, le=MAX_TEMPERATURE, allow_inf_nan=False)
    top_p: float = Field(default=1.0, gt=0.0, le=1.0, allow_inf_nan=False)
    max_tokens: int = Field(default=512, ge=1)
    logprobs: bool = False
    top_logprobs: int = Field(default=0, ge=0, le=20)
    prompt_logprobs: int | None = Field(default=None, ge=0, le=20)
    """Completions only: logprobs of the prompt tokens (vLLM extension; used for teacher forcing)."""
    echo: bool = False
    constraint: Constraint | None = None
    seed: int | None = 0
    stop: list[str] = Field(default_factory=list)
    continue_final_message: bool = False
    """Chat only: the last message is an assistant prefix the model continues (vLLM extension)."""
    tag: str = ""
    """Who asks and with what prompt version, e.g. "lynx@3f2a1c". Part of the cache key."""
    _context: CallContext | None = PrivateAttr(default=None)

    @property
    def context(self) -> CallContext | None:
        """What the call runs under (:class:`~trustscore.llm._call.CallContext`), as the caller handed it
        down with :meth:`within`: not part of the request's content or its cache key."""
        return self._context

    def within(self, context: CallContext) -> ChatRequest:
        """This request, to be sent under ``context``."""
        copy = self.model_copy()
        copy._context = context
        return copy

    @model_validator(mode="after")
    def _one_input(self) -> ChatRequest:
        if (self.messages is None) == (self.prompt is None):
            raise ValueError("a ChatRequest takes either messages (chat) or prompt (completions), not both")
        if self.continue_final_message and (not self.messages or self.messages[-1].role != "assistant"):
            raise ValueError("continue_final_message needs an assistant message last")
        if self.n > 1 and self.temperature == 0.0:
            raise ValueError(
                f"n={self.n} choices at temperature 0 would all be the same (and vLLM rejects greedy "
                "sampling with n > 1): set temperature > 0 or n = 1"
            )
        return self

    @property
    def endpoint(self) -> Literal["chat", "completions"]:
        return "chat" if self.messages is not None else "completions"


LOGPROB_TOLERANCE = 1e-3
"""How far above 0 a server's log-probability may round (it is then read as 0)."""

Logprob = Annotated[
    float, Field(allow_inf_nan=False, le=LOGPROB_TOLERANCE), AfterValidator(lambda v: min(v, 0.0))
]
"""A log-probability: finite and <= 0 (a server's rounding up to :data:`LOGPROB_TOLERANCE` allowed)."""


class TopLogprob(_Frozen):
    token: str
    logprob: Logprob


class TokenLogprob(_Frozen):
    token: str
    logprob: Logprob
    top_logprobs: list[TopLogprob] = Field(default_factory=list)


class Choice(_Frozen):
    text: str
    logprobs: list[TokenLogprob] | None = None
    finish_reason: str | None = None


class ChatResult(_Frozen):
    choices: list[Choice]
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    """Prompt tokens the server read from its prefix cache, when it reports them."""
    prompt_logprobs: list[dict[str, Logprob] | None] | None = None
    """Completions with ``prompt_logprobs``: per prompt token, {token: logprob} (first is None)."""
    prompt_token_strs: list[str] | None = None
    """Completions with ``prompt_logprobs``: the prompt's own tokens, aligned with prompt_logprobs."""
    usage: Usage = Field(default_factory=Usage)
    """What this call cost, as the LLM client counted it (requests sent, cache hits, seconds)."""

    @property
    def text(self) -> str:
        return self.choices[0].text if self.choices else ""


@runtime_checkable
class Backend(Protocol):
    """One attempt at one request: no retries, no cache, no limiter. Raises LLMError subclasses.

    Optional capabilities are protocols of their own, checked with ``isinstance``: a backend that can
    ask its server whether it is up is a :class:`HealthCheckedBackend`, one whose connections belong
    to the event loop that opened them a :class:`LoopBoundBackend`.
    """

    async def send(self, request: ChatRequest) -> ChatResult: ...

    async def aclose(self) -> None: ...


@runtime_checkable
class HealthCheckedBackend(Backend, Protocol):
    """A backend that can ask its server whether it is up: a replica pool probes an ejected replica
    with it. A backend without it is let back in on the next probe, and traffic decides again."""

    async def healthy(self, timeout_s: float) -> bool:
        """True when the server answers its health check within ``timeout_s``."""
        ...


@runtime_checkable
class LoopBoundBackend(Backend, Protocol):
    """A backend whose connections belong to the event loop that opened them."""

    async def release_loop(self) -> None:
        """Close only the current event loop's connections (they reopen on next use): for a loop that
        is about to end while the backend lives on."""
        ...


@runtime_checkable
class LLM(Protocol):
    """What a judge holds: a model behind cache, adaptive limiter, retries and deadlines.

    An LLM whose requests wait for an adaptive limit says so by being a :class:`GatedLLM`.
    """

    @property
    def model(self) -> str: ...

    @property
    def flavour(self) -> Literal["vllm", "openai"]: ...

    @property
    def context_window(self) -> int:
        """Tokens the served model accepts (prompt + completion); judges trim context to fit."""
        ...

    def count_tokens(self, text: str) -> int:
        """A conservative estimate of the tokens ``text`` takes on this model."""
        ...

    async def generate(self, request: ChatRequest, *, cache: bool | None = None) -> ChatResult: ...


class WrappedLLM:
    """An LLM around another that answers for the served model as the inner one does (its name,
    flavour, context window and token count); a subclass adds what it does around ``generate``."""

    def __init__(self, llm: LLM) -> None:
        self._llm = llm

    @property
    def model(self) -> str:
        return self._llm.model

    @property
    def flavour(self) -> Literal["vllm", "openai"]:
        return self._llm.flavour

    @property
    def context_window(self) -> int:
        return self._llm.context_window

    def count_tokens(self, text: str) -> int:
        return self._llm.count_tokens(text)


@runtime_checkable
class GatedLLM(LLM, Protocol):
    """An LLM whose requests wait for slots of its endpoint's adaptive limit: ``score_many`` and
    ``stream`` start a new sample only when ``capacity`` has room (see
    :mod:`trustscore.llm._scheduling`). An LLM without it (a user's own) takes no part in admission."""

    @property
    def capacity(self) -> Capacity:
        """What sample admission watches: the one server's limiter, or a replica pool's combined gate."""
        ...
