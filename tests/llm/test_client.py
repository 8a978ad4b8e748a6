"""LLMClient: retries, cache, limiter, timeouts, deadlines, cancellation and usage; a retry waits out
its Retry-After without holding a slot, and every request a call sends is in the current usage meter
even when the call is cancelled."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from trustscore import Usage
from trustscore._errors import (
    BadResponse,
    ClientError,
    LLMTimeout,
    LLMUnreachable,
    ServerError,
    UnsupportedRequest,
)
from trustscore.llm import (
    LLM,
    CacheConfig,
    ChatRequest,
    EndpointConfig,
    LLMClient,
    Message,
    ResponseCache,
    RetryPolicy,
)
from trustscore.llm._call import CallContext, CallUsage

pytestmark = pytest.mark.anyio

Step = httpx.Response | Callable[[httpx.Request], Awaitable[httpx.Response]]


def ok(text: str = "PASS", prompt_tokens: int = 10, completion_tokens: int = 2) -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "model": "judge",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
        },
    )


class Server:
    """A scripted OpenAI-compatible endpoint: answers with the next step, then repeats the last."""

    def __init__(self, *steps: Step) -> None:
        self.steps = list(steps)
        self.requests: list[dict[str, Any]] = []

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        step = self.steps.pop(0) if len(self.steps) > 1 else self.steps[0]
        return await step(request) if callable(step) else step

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)


def endpoint(**kw: Any) -> EndpointConfig:
    return EndpointConfig(base_url="http://judge.local/v1", model="judge", **kw)


FAST_RETRY = RetryPolicy(max_retries=3, base_delay_s=0.001, max_delay_s=0.002, rng=random.Random(0))
REQUEST = ChatRequest(messages=[Message(role="user", content="Is this grounded?")], tag="t@1")


def client(server: Server, cache: ResponseCache | None = None, **kw: Any) -> LLMClient:
    return LLMClient(endpoint(**kw), cache=cache, transport=server.transport, retry=FAST_RETRY)


async def test_implements_the_llm_protocol_and_fills_usage() -> None:
    server = Server(ok(prompt_tokens=12, completion_tokens=3))
    llm = client(server, context_window=4096)
    assert isinstance(llm, LLM)
    assert (llm.model, llm.flavour, llm.context_window) == ("judge", "vllm", 4096)
    result = await llm.generate(REQUEST)
    assert result.text == "PASS"
    assert (result.usage.requests, result.usage.prompt_tokens, result.usage.completion_tokens) == (1, 12, 3)
    assert result.usage.cache_hits == 0 and result.usage.seconds > 0
    await llm.aclose()


def test_count_tokens_is_a_conservative_byte_estimate() -> None:
    llm = LLMClient(endpoint())
    assert llm.count_tokens("") == 0
    assert llm.count_tokens("abcd") == 2
    english = "The quick brown fox jumps over the lazy dog. " * 20
    assert llm.count_tokens(english) >= len(english.split()) * 1.3  # above a typical BPE count
    assert llm.count_tokens("日本語") == 3


async def test_retries_retryable_errors_then_succeeds_counting_every_request() -> None:
    server = Server(httpx.Response(500, text="boom"), httpx.Response(503), ok())
    result = await client(server).generate(REQUEST)
    assert result.text == "PASS" and result.usage.requests == 3 and len(server.requests) == 3


async def test_retries_are_bounded_and_the_error_carries_usage() -> None:
    server = Server(httpx.Response(502, text="bad gateway"))
    with pytest.raises(ServerError) as info:
        await client(server).generate(REQUEST)
    assert len(server.requests) == 4  # 1 + max_retries
    assert info.value.usage.requests == 4 and info.value.status == 502


async def test_no_retry_on_client_errors() -> None:
    server = Server(httpx.Response(400, json={"error": {"message": "bad request"}}))
    with pytest.raises(ClientError):
        await client(server).generate(REQUEST)
    assert len(server.requests) == 1


def logprob_answer(value: Any) -> httpx.Response:
    entry = {"token": "PASS", "logprob": value, "top_logprobs": [{"token": "PASS", "logprob": value}]}
    body = {
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "PASS"},
                     "logprobs": {"content": [entry]}, "finish_reason": "stop"}],
    }  # fmt: skip
    text = json.dumps(body).replace('"NAN"', "NaN").replace('"-INF"', "-Infinity")
    return httpx.Response(200, content=text.encode(), headers={"content-type": "application/json"})


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(200, json={"choices": []}),
        httpx.Response(200, json={"object": "list"}),
        httpx.Response(200, content=b"<html>502 Bad Gateway</html>"),
        logprob_answer("NAN"),
        logprob_answer("-INF"),
        logprob_answer(50.0),
    ],
    ids=["no-choices", "no-choices-key", "not-json", "nan-logprob", "-inf-logprob", "+50-logprob"],
)
async def test_a_200_that_is_not_a_valid_answer_is_a_server_fault_retried_then_raised_never_cached(
    response: httpx.Response, tmp_path: Path
) -> None:
    server = Server(response)
    cache = ResponseCache(CacheConfig(directory=tmp_path / "c"))
    with pytest.raises(BadResponse) as info:
        await client(server, cache).generate(REQUEST)
    assert len(server.requests) == 4  # 1 + max_retries
    assert info.value.retryable and cache.stores == 0
    server = Server(response, ok())
    assert (await client(server).generate(REQUEST)).text == "PASS"
    cache.close()


async def test_a_logprob_that_rounds_just_above_zero_reads_as_zero() -> None:
    result = await client(Server(logprob_answer(1e-6))).generate(REQUEST)
    assert result.choices[0].logprobs is not None and result.choices[0].logprobs[0].logprob == 0.0


async def test_a_lone_surrogate_in_server_text_becomes_a_replacement_character_and_is_cached(
    tmp_path: Path,
) -> None:
    body = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": "PASS \ud800"}}]})
    assert "\\ud800" in body  # json.dumps writes the lone surrogate as its JSON escape
    server = Server(httpx.Response(200, content=body.encode(), headers={"content-type": "application/json"}))
    cache = ResponseCache(CacheConfig(directory=tmp_path / "c"))
    result = await client(server, cache).generate(REQUEST)
    assert result.text == "PASS \ufffd" and cache.stores == 1 and cache.write_errors == 0
    assert (await client(server, cache).generate(REQUEST)).text == "PASS \ufffd"
    cache.close()


async def test_retry_after_is_honoured() -> None:
    server = Server(httpx.Response(429, headers={"Retry-After": "0.2"}), ok())
    llm = client(server)
    start = anyio.current_time()
    result = await llm.generate(REQUEST)
    assert anyio.current_time() - start >= 0.2
    assert result.usage.requests == 2


async def test_429_halves_the_limit_and_successes_grow_it() -> None:
    server = Server(httpx.Response(429, headers={"retry-after-ms": "1"}), ok())
    llm = client(server, initial_concurrency=8, max_concurrency=16)
    await llm.generate(REQUEST)
    assert llm.limiter.limit == 4
    for _ in range(4):
        await llm.generate(REQUEST.model_copy(update={"seed": _ + 1}))
    assert llm.limiter.limit == 5


async def test_per_attempt_timeout_then_retry() -> None:
    calls = 0

    async def slow_then_fast(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        if calls == 1:
            await anyio.sleep(10)
        return ok()

    server = Server(slow_then_fast)
    llm = LLMClient(endpoint(timeout_s=0.1), transport=server.transport, retry=FAST_RETRY)
    with anyio.fail_after(5):
        result = await llm.generate(REQUEST)
    assert result.usage.requests == 2


async def test_timeouts_exhaust_into_llm_timeout() -> None:
    async def hang(request: httpx.Request) -> httpx.Response:
        await anyio.sleep(10)
        return ok()

    llm = LLMClient(
        endpoint(timeout_s=0.05, max_retries=1),
        transport=Server(hang).transport,
        retry=RetryPolicy(max_retries=1, base_delay_s=0.001),
    )
    with anyio.fail_after(5), pytest.raises(LLMTimeout, match=r"timeout_s=0\.05") as info:
        await llm.generate(REQUEST)
    assert info.value.usage.requests == 2


async def test_overall_deadline_stops_retrying() -> None:
    server = Server(httpx.Response(503, headers={"Retry-After": "5"}))
    llm = client(server)
    with anyio.fail_after(5), pytest.raises(LLMTimeout, match=r"deadline of 0\.2s") as info:
        await llm.generate(REQUEST, deadline_s=0.2)
    assert info.value.usage.requests == 1 and info.value.usage.seconds < 2


async def test_unreachable_is_retried_then_raised() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    llm = LLMClient(endpoint(), transport=httpx.MockTransport(refuse), retry=FAST_RETRY)
    with pytest.raises(LLMUnreachable) as info:
        await llm.generate(REQUEST)
    assert info.value.usage.requests == 4


async def test_cancellation_cancels_the_in_flight_request() -> None:
    started = anyio.Event()
    cancelled = anyio.Event()

    async def hang(request: httpx.Request) -> httpx.Response:
        started.set()
        try:
            await anyio.sleep(30)
        except anyio.get_cancelled_exc_class():
            cancelled.set()
            raise
        return ok()

    llm = LLMClient(endpoint(), transport=Server(hang).transport, retry=FAST_RETRY)
    outcome: list[str] = []

    async def call() -> None:
        try:
            await llm.generate(REQUEST)
        except anyio.get_cancelled_exc_class():
            outcome.append("cancelled")
            raise

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(call)
            await started.wait()
            tg.cancel_scope.cancel()
    assert cancelled.is_set() and outcome == ["cancelled"]
    assert llm.limiter.in_flight == 0  # the slot was given back


async def test_second_identical_call_is_served_from_cache(tmp_path: Path) -> None:
    server = Server(ok("FAIL", 7, 1))
    cache = ResponseCache(CacheConfig(directory=tmp_path / "c"))
    llm = client(server, cache=cache)
    first = await llm.generate(REQUEST)
    second = await llm.generate(REQUEST)
    assert len(server.requests) == 1
    assert second.text == first.text == "FAIL"
    assert (second.usage.requests, second.usage.cache_hits, second.usage.prompt_tokens) == (0, 1, 0)
    assert first.usage.cache_hits == 0 and cache.hits == 1
    # another server with the same served name does not replay it (it may hold other weights) ...
    other = Server(ok("PASS", 7, 1))
    elsewhere = LLMClient(
        EndpointConfig(base_url="http://other:1/v1", model="judge"),
        cache=cache,
        transport=other.transport,
        retry=FAST_RETRY,
    )
    assert (await elsewhere.generate(REQUEST)).text == "PASS" and len(other.requests) == 1
    # ... but replicas that declare the same model_identity share entries
    same = {"model": "judge", "model_identity": "org/judge@v1"}
    first_replica = LLMClient(
        EndpointConfig(base_url="http://r1:1/v1", **same),
        cache=cache,
        transport=Server(ok("FAIL", 7, 1)).transport,
    )
    await first_replica.generate(REQUEST)
    replica = LLMClient(
        EndpointConfig(base_url="http://r2:1/v1", **same),
        cache=cache,
        transport=Server(httpx.Response(500)).transport,
    )
    assert (await replica.generate(REQUEST)).text == "FAIL"
    # a different sampling parameter is a different entry
    await llm.generate(REQUEST.model_copy(update={"temperature": 0.5}))
    assert len(server.requests) == 2
    cache.close()


async def test_errors_are_not_cached(tmp_path: Path) -> None:
    server = Server(httpx.Response(400, text="nope"), ok())
    cache = ResponseCache(CacheConfig(directory=tmp_path / "c"))
    llm = client(server, cache=cache)
    with pytest.raises(ClientError):
        await llm.generate(REQUEST)
    assert (await llm.generate(REQUEST)).text == "PASS"
    assert len(server.requests) == 2 and cache.stores == 1
    cache.close()


async def test_cache_false_bypasses_and_cache_true_needs_a_cache(tmp_path: Path) -> None:
    server = Server(ok())
    cache = ResponseCache(CacheConfig(directory=tmp_path / "c"))
    llm = client(server, cache=cache)
    await llm.generate(REQUEST, cache=False)
    await llm.generate(REQUEST, cache=False)
    assert len(server.requests) == 2 and cache.stores == 0
    await llm.generate(REQUEST, cache=True)
    await llm.generate(REQUEST, cache=True)
    assert len(server.requests) == 3
    with pytest.raises(ValueError, match="no response cache"):
        await client(server).generate(REQUEST, cache=True)
    cache.close()


async def test_fan_out_respects_the_concurrency_limit() -> None:
    in_flight = 0
    peak = 0

    async def count(request: httpx.Request) -> httpx.Response:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await anyio.sleep(0.01)
        in_flight -= 1
        return ok()

    llm = client(Server(count), initial_concurrency=3, max_concurrency=3)
    async with anyio.create_task_group() as tg:
        for i in range(12):
            tg.start_soon(llm.generate, REQUEST.model_copy(update={"seed": i}))
    assert peak == 3


def test_transport_and_backend_are_exclusive() -> None:
    from trustscore.llm import HttpBackend

    with pytest.raises(ValueError, match="either backend or transport"):
        LLMClient(endpoint(), backend=HttpBackend(endpoint()), transport=httpx.MockTransport(lambda r: ok()))


async def test_usage_adds_up_across_calls() -> None:
    llm = client(Server(ok(prompt_tokens=4, completion_tokens=1)))
    results = [await llm.generate(REQUEST.model_copy(update={"seed": i})) for i in range(3)]
    total = Usage.total([r.usage for r in results])
    assert (total.requests, total.prompt_tokens, total.completion_tokens) == (3, 12, 3)
    assert math.isfinite(total.seconds)


async def test_unsupported_request_fails_before_sending() -> None:
    server = Server(ok())
    llm = LLMClient(endpoint(flavour="openai"), transport=server.transport, retry=FAST_RETRY)
    with pytest.raises(UnsupportedRequest, match="prompt_logprobs needs a vLLM endpoint") as info:
        await llm.generate(ChatRequest(prompt="a b c", prompt_logprobs=1))
    assert server.requests == [] and info.value.usage.requests == 0


def test_one_client_serves_successive_event_loops() -> None:
    """The sync facade runs each call in a fresh loop: nothing loop-bound may leak between them."""
    server = Server(ok())
    llm = client(server)

    async def once() -> str:
        return (await llm.generate(REQUEST)).text

    assert [anyio.run(once), anyio.run(once, backend="trio"), anyio.run(once)] == ["PASS"] * 3
    assert len(server.requests) == 3


def one_slot_client(handle: Callable[[httpx.Request], Awaitable[httpx.Response]]) -> LLMClient:
    return LLMClient(
        endpoint(initial_concurrency=1, max_concurrency=1), transport=httpx.MockTransport(handle)
    )


def asking(text: str) -> ChatRequest:
    return ChatRequest(messages=[Message(role="user", content=text)])


async def test_a_retry_waiting_for_retry_after_leaves_its_slot_to_others() -> None:
    finished: list[str] = []
    limited_once = False

    async def handle(req: httpx.Request) -> httpx.Response:
        nonlocal limited_once
        if b"first" in req.content and not limited_once:
            limited_once = True
            return httpx.Response(429, headers={"Retry-After": "0.5"})
        return ok()

    llm = one_slot_client(handle)  # one slot in all

    async def call(text: str) -> None:
        await llm.generate(asking(text))
        finished.append(text)

    async with anyio.create_task_group() as tg:
        tg.start_soon(call, "first")
        await anyio.wait_all_tasks_blocked()
        with anyio.fail_after(0.4):  # well inside the first call's Retry-After
            await call("second")
    assert finished == ["second", "first"]


async def test_a_cancelled_call_still_reports_the_requests_it_sent() -> None:
    async def hang(req: httpx.Request) -> httpx.Response:
        await anyio.sleep(10)
        return ok()

    llm = one_slot_client(hang)
    record = CallUsage()
    with anyio.move_on_after(0.2):
        await llm.generate(asking("q").within(CallContext(record=record)))
    assert record.usage().requests == 1
