"""The optional capabilities of LLMs and backends are protocols, checked with isinstance: an LLM or
backend without one is served all the same."""

from __future__ import annotations

import pytest

from trustscore.llm import (
    AdaptiveLimiter,
    ChatRequest,
    ChatResult,
    EndpointConfig,
    GatedLLM,
    HealthCheckedBackend,
    HttpBackend,
    LLMClient,
    LoopBoundBackend,
)
from trustscore.llm._pool import _healthy
from trustscore.scoring._batch import admission_capacities
from trustscore.testing import FakeLLM

pytestmark = pytest.mark.anyio

ENDPOINT = EndpointConfig(base_url="http://127.0.0.1:9/v1", model="m")


class _Bare:
    """A backend with only what every backend has."""

    async def send(self, request: ChatRequest) -> ChatResult:
        raise AssertionError("not sent")

    async def aclose(self) -> None:
        pass


class _Capable(_Bare):
    def __init__(self, up: bool) -> None:
        self.up = up
        self.checked: list[float] = []
        self.released = 0

    async def healthy(self, timeout_s: float) -> bool:
        self.checked.append(timeout_s)
        return self.up

    async def release_loop(self) -> None:
        self.released += 1


def test_the_built_ins_declare_their_capabilities_by_shape() -> None:
    http = HttpBackend(ENDPOINT)
    assert isinstance(http, HealthCheckedBackend) and isinstance(http, LoopBoundBackend)
    assert not isinstance(_Bare(), HealthCheckedBackend) and not isinstance(_Bare(), LoopBoundBackend)
    assert isinstance(LLMClient(ENDPOINT, backend=_Bare()), GatedLLM)
    assert not isinstance(FakeLLM(), GatedLLM)


async def test_a_probe_asks_a_backend_that_checks_health_and_lets_one_without_back_in() -> None:
    assert await _healthy(_Bare(), 1.0)
    down, up = _Capable(up=False), _Capable(up=True)
    assert not await _healthy(down, 1.0) and await _healthy(up, 1.5)
    assert down.checked == [1.0] and up.checked == [1.5]


async def test_releasing_a_loop_reaches_only_the_backends_bound_to_loops() -> None:
    bound = _Capable(up=True)
    await LLMClient(ENDPOINT, backend=bound).release_loop()
    await LLMClient(ENDPOINT, backend=_Bare()).release_loop()  # nothing to release: no error
    assert bound.released == 1


def test_admission_watches_only_gated_llms() -> None:
    limiter = AdaptiveLimiter(1, 4)
    gated = LLMClient(ENDPOINT, backend=_Bare(), limiter=limiter)
    assert admission_capacities([FakeLLM(), gated]) == [limiter]
