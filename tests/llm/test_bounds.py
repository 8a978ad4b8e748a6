"""Hostile answers: too large (a gzip bomb included), too many choices, impossible token counts, a
redirect. Each is a server fault with its reason; memory stays bounded by the request's limit."""

from __future__ import annotations

import json
import tracemalloc
import zlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import httpx
import pytest

from trustscore._errors import BadResponse, ClientError, ServerError
from trustscore.llm import (
    CacheConfig,
    ChatRequest,
    EndpointConfig,
    HttpBackend,
    LLMClient,
    Message,
    ResponseCache,
    RetryPolicy,
)
from trustscore.llm._bounds import ResponseBounds

ENDPOINT = EndpointConfig(base_url="http://hostile.local/v1", model="m", max_retries=0)
REQUEST = ChatRequest(messages=[Message(role="user", content="Is it true?")], max_tokens=8)
MB = 1024 * 1024


def answer(text: str = "PASS", *, choices: int = 1, **usage: Any) -> dict[str, Any]:
    return {
        "model": "m",
        "choices": [
            {"index": i, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            for i in range(choices)
        ],
        "usage": {"prompt_tokens": 12, "completion_tokens": 2, **usage},
    }


class Streamed:
    """A body sent in chunks; counts how many the client pulled."""

    def __init__(self, chunks: Callable[[], Any]) -> None:
        self.chunks = chunks
        self.pulled = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks():
            self.pulled += 1
            yield chunk


def send(handler: Callable[[httpx.Request], httpx.Response], request: ChatRequest = REQUEST) -> Any:
    backend = HttpBackend(ENDPOINT, transport=httpx.MockTransport(handler))

    async def go() -> Any:
        try:
            return await backend.send(request)
        finally:
            await backend.aclose()

    return anyio.run(go)


def test_the_size_limit_follows_the_request() -> None:
    body = {"messages": [{"role": "user", "content": "x" * 100}]}
    small = ResponseBounds.of(REQUEST, body, context_window=4096)
    many = ResponseBounds.of(
        REQUEST.model_copy(update={"n": 4, "temperature": 1.0, "logprobs": True, "top_logprobs": 5}),
        body,
        context_window=4096,
    )
    assert small.max_bytes < MB and many.max_bytes > 3 * small.max_bytes
    assert (small.max_choices, many.max_choices) == (1, 4)
    assert small.max_completion_tokens == 8 and many.max_completion_tokens == 32
    assert small.max_prompt_tokens >= 100


def test_an_answer_over_the_limit_is_refused_without_reading_the_rest() -> None:
    body = Streamed(lambda: (b"{" if i == 0 else b" " * MB for i in range(1024)))  # 1 GiB
    with pytest.raises(BadResponse, match=r"over .* bytes"):
        send(lambda r: httpx.Response(200, content=body))
    assert body.pulled < 5


def chunked(data: bytes, size: int = 65536) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def test_a_gzip_bomb_is_refused_with_memory_bounded_by_the_limit() -> None:
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    zeros = b" " * MB
    bomb = b"".join(packer.compress(zeros) for _ in range(256)) + packer.flush()  # 256 MiB inflated
    assert len(bomb) < MB
    tracemalloc.start()
    try:
        with pytest.raises(BadResponse, match=r"over .* bytes"):
            send(
                lambda r: httpx.Response(
                    200,
                    headers={"content-encoding": "gzip"},
                    content=Streamed(lambda: [bomb[i : i + 65536] for i in range(0, len(bomb), 65536)]),
                )
            )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * MB, peak


def test_a_compressed_honest_answer_is_read() -> None:
    packed = zlib.compress(json.dumps(answer("PASS")).encode())
    result = send(
        lambda r: httpx.Response(
            200, headers={"content-encoding": "deflate"}, content=Streamed(lambda: [packed])
        )
    )
    assert result.text == "PASS"


def test_an_encoding_that_was_not_asked_for_is_refused() -> None:
    seen: list[str] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["accept-encoding"])
        return httpx.Response(200, headers={"content-encoding": "br"}, content=Streamed(lambda: [b"xx"]))

    with pytest.raises(BadResponse, match="content-encoding 'br'"):
        send(handle)
    assert seen == ["gzip, deflate"]


def test_more_choices_than_asked_for_are_a_server_fault() -> None:
    with pytest.raises(BadResponse, match="5 choices for a request of n=1"):
        send(lambda r: httpx.Response(200, json=answer(choices=5)))


@pytest.mark.parametrize(
    ("usage", "reason"),
    [
        ({"prompt_tokens": -5}, "not a token count"),
        ({"completion_tokens": 1e20}, "not a token count"),
        ({"completion_tokens": "7"}, "not a token count"),
        ({"completion_tokens": 9}, "more than the request can cost"),
        ({"prompt_tokens": 10**9}, "more than the request can cost"),
    ],
)
def test_token_counts_no_request_can_cost_are_a_server_fault(usage: dict[str, Any], reason: str) -> None:
    with pytest.raises(BadResponse, match=reason):
        send(lambda r: httpx.Response(200, json=answer(**usage)))


def test_counts_within_the_request_are_read() -> None:
    result = send(lambda r: httpx.Response(200, json=answer(prompt_tokens=40, completion_tokens=8)))
    assert (result.prompt_tokens, result.completion_tokens) == (40, 8)


def test_a_huge_error_body_is_read_only_for_its_message() -> None:
    body = Streamed(lambda: (b"x" * MB for _ in range(1024)))
    with pytest.raises(ServerError, match="HTTP 500"):
        send(lambda r: httpx.Response(500, content=body))
    assert body.pulled < 3


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_is_never_an_answer_nor_cached(status: int, tmp_path: Any) -> None:
    calls: list[str] = []

    def handle(request: httpx.Request) -> httpx.Response:
        calls.append(str(request.url))
        return httpx.Response(
            status, json=answer("PASS"), headers={"location": "http://u:pw@elsewhere.example/v1"}
        )

    cache = ResponseCache(CacheConfig(directory=tmp_path / "cache"))
    client = LLMClient(
        ENDPOINT, cache=cache, transport=httpx.MockTransport(handle), retry=RetryPolicy(max_retries=2)
    )

    async def go() -> None:
        try:
            for _ in range(2):
                with pytest.raises(
                    ClientError, match=rf"HTTP {status}: the server redirects to http://\*\*\*@elsewhere"
                ):
                    await client.generate(REQUEST)
        finally:
            await client.aclose()

    anyio.run(go)
    assert len(calls) == 2 and all(
        "elsewhere" not in c for c in calls
    )  # not retried, not followed, not cached
