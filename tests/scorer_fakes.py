"""Fakes for the Scorer's tests: judges, local signals and an LLM, all scripted and observable."""

from __future__ import annotations

import dataclasses
import sys
import types
from collections.abc import Callable
from typing import Any, ClassVar

import anyio
import httpx
import pytest

from trustscore import Sample, Signal, Usage, testing
from trustscore.llm import ChatRequest, ChatResult, Choice
from trustscore.signals import _registry as _signal_registry
from trustscore.signals import registered_signals

_PASS = ChatResult(
    choices=[Choice(text="PASS")],
    prompt_tokens=10,
    completion_tokens=1,
    usage=Usage(requests=1, prompt_tokens=10, completion_tokens=1),
)


class FakeLLM(testing.FakeLLM):
    """The test kit's FakeLLM answering "PASS", or blocking on ``gate`` when one is given; records
    calls, cancellation and closing."""

    def __init__(self, model: str = "fake-judge", gate: anyio.Event | None = None) -> None:
        super().__init__(lambda request: _PASS, model=model)
        self.gate = gate
        self.calls = 0
        self.started = anyio.Event() if gate is not None else None
        self.cancelled = False
        self.closed = False

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    async def generate(self, request: ChatRequest, *, cache: bool | None = None) -> ChatResult:
        self.calls += 1
        if self.gate is not None:
            assert self.started is not None
            self.started.set()
            try:
                await self.gate.wait()
            except anyio.get_cancelled_exc_class():
                self.cancelled = True
                raise
        return await super().generate(request, cache=cache)

    async def aclose(self) -> None:
        self.closed = True


class FakeJudge:
    """A judge whose verdict is scripted: a value, an exception, a delay, or an LLM call."""

    version = "fake@1"
    kind = "judge"

    def __init__(
        self,
        name: str,
        value: float | None = 0.8,
        *,
        delay: float = 0.0,
        error: BaseException | None = None,
        ask_llm: bool = False,
        result: Any = None,
    ) -> None:
        self.name = name
        self.value = value
        self.delay = delay
        self.error = error
        self.ask_llm = ask_llm
        self.result = result
        self.seen: list[Sample] = []

    async def run(self, sample: Sample, llm: Any) -> Signal:
        self.seen.append(sample)
        if self.delay:
            await anyio.sleep(self.delay)
        if self.error is not None:
            raise self.error
        if self.result is not None:
            return self.result  # type: ignore[no-any-return]
        usage = Usage(requests=1, prompt_tokens=100, completion_tokens=5)
        if self.ask_llm:
            out = await llm.generate(ChatRequest(prompt="judge this"))
            return Signal(
                name=self.name, value=1.0 if out.text == "PASS" else 0.0, raw=out.text, usage=out.usage
            )
        return Signal(name=self.name, value=self.value, raw=self.value, usage=usage)


class FakeLocal:
    """A local signal: value from a function of the sample, optional delay."""

    version = "local@1"
    kind = "local"

    def __init__(self, name: str, fn: Callable[[Sample], float] | None = None, *, delay: float = 0.0) -> None:
        self.name = name
        self.fn = fn or (lambda s: 0.5 if not s.has_context else 0.6)
        self.delay = delay
        self.in_flight = 0
        self.max_in_flight = 0

    async def run(self, sample: Sample) -> Signal:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay:
                await anyio.sleep(self.delay)
            return Signal(name=self.name, value=self.fn(sample), usage=Usage(seconds=self.delay))
        finally:
            self.in_flight -= 1


class FakeLLMClient(FakeLLM):
    """Stands in for trustscore.llm._client.LLMClient: records how the Scorer built it."""

    built: ClassVar[list[FakeLLMClient]] = []

    def __init__(
        self, endpoint: Any, *, cache: Any = None, transport: Any = None, limiters: Any = None
    ) -> None:
        super().__init__(model=endpoint.model)
        self.endpoint = endpoint
        self.cache = cache
        self.transport = transport
        self.limiter = limiters.for_endpoint(endpoint) if limiters is not None else None
        FakeLLMClient.built.append(self)

    @property
    def capacity(self) -> Any:
        return self.limiter

    async def release_loop(self) -> None:
        """Like LLMClient's: the sync facade calls it before a temporary loop ends (no connections here)."""


def install_module(monkeypatch: pytest.MonkeyPatch, name: str, **attrs: Any) -> types.ModuleType:
    """Put a fake module at ``name`` in sys.modules for the duration of one test."""
    module = types.ModuleType(name)
    for key, value in attrs.items():
        setattr(module, key, value)
    monkeypatch.setitem(sys.modules, name, module)
    return module


GROUNDING_OFF = {"lexical": {"enabled": False}, "embedding": {"enabled": False}, "claims": {"enabled": False}}
"""``[signals]`` tables that turn off every on-by-default grounding signal."""


def install_fake_grounding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake lexical and embedding grounding modules, so the default config builds without torch."""

    class LexicalSupport(FakeLocal):
        def __init__(self, config: Any) -> None:
            super().__init__("lexical", lambda s: 0.7)

    class EmbeddingGrounding(FakeLocal):
        def __init__(self, config: Any, *, store: Any = None) -> None:
            super().__init__("embedding", lambda s: 0.9)

        def start_loading(self) -> None:
            """Nothing to load (the real signal loads its model in the background)."""

    install_module(monkeypatch, "trustscore.grounding._lexical", LexicalSupport=LexicalSupport)
    install_module(monkeypatch, "trustscore.grounding._embedding", EmbeddingGrounding=EmbeddingGrounding)
    # The fakes stand for the default pair; the claims check (its own tests: tests/grounding/claims)
    # is left out as if its extra were not installed and not on by default.
    claims = registered_signals()["claims"]
    off = dataclasses.replace(claims, on_by_default=False)
    monkeypatch.setitem(_signal_registry._REGISTRY, "claims", off)


class CountingTransport(httpx.AsyncBaseTransport):
    """Forwards to the in-process fake vLLM and counts the HTTP clients closed over it."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.closed = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        self.closed += 1
