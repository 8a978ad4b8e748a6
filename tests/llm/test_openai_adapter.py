"""The openai adapter: the same body through the caller's AsyncOpenAI, openai errors mapped to ours."""

from __future__ import annotations

import json
import random
from typing import Any

import httpx
import pytest

from trustscore import from_openai
from trustscore._errors import BadResponse, ClientError, LLMTimeout, LLMUnreachable, RateLimited, ServerError
from trustscore.llm import ChatRequest, Constraint, Message, RetryPolicy, build_request_body
from trustscore.llm._openai_adapter import OpenAIBackend

openai = pytest.importorskip("openai")

pytestmark = pytest.mark.anyio

REQUEST = ChatRequest(
    messages=[Message(role="user", content="Grounded?")],
    logprobs=True,
    top_logprobs=2,
    constraint=Constraint(choice=["PASS", "FAIL"]),
)
CHAT_OK = {
    "id": "c",
    "object": "chat.completion",
    "created": 1,
    "model": "judge",
    "choices": [
        {
            "index": 0,
            "finish_reason": "stop",
            "message": {"role": "assistant", "content": "PASS"},
            "logprobs": {
                "content": [
                    {
                        "token": "PASS",
                        "logprob": -0.2,
                        "bytes": None,
                        "top_logprobs": [
                            {"token": "PASS", "logprob": -0.2, "bytes": None},
                            {"token": "FAIL", "logprob": -1.7, "bytes": None},
                        ],
                    }
                ]
            },
        }
    ],
    "usage": {"prompt_tokens": 9, "completion_tokens": 1, "total_tokens": 10},
}


def openai_client(handler: Any) -> Any:
    return openai.AsyncOpenAI(
        base_url="http://judge.local/v1",
        api_key="k",
        max_retries=5,
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)),
    )


async def test_same_body_as_http_backend_and_parsed_result() -> None:
    bodies: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        assert request.url.path == "/v1/chat/completions"
        return httpx.Response(200, json=CHAT_OK)

    result = await OpenAIBackend(openai_client(handler), "vllm", "judge").send(REQUEST)
    assert bodies == [build_request_body(REQUEST, model="judge", flavour="vllm")]
    assert bodies[0]["structured_outputs"] == {"choice": ["PASS", "FAIL"]}
    assert result.text == "PASS" and result.prompt_tokens == 9
    assert [t.token for t in result.choices[0].logprobs[0].top_logprobs] == ["PASS", "FAIL"]  # type: ignore[index]


async def test_completions_with_prompt_logprobs() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/completions"
        assert json.loads(request.content)["prompt_logprobs"] == 1
        return httpx.Response(
            200,
            json={
                "id": "x",
                "object": "text_completion",
                "created": 1,
                "model": "judge",
                "choices": [
                    {
                        "index": 0,
                        "text": "!",
                        "finish_reason": "length",
                        "logprobs": None,
                        "prompt_logprobs": [None, {"5": {"logprob": -0.3, "rank": 1, "decoded_token": "hi"}}],
                    }
                ],
                "usage": {"prompt_tokens": 2, "completion_tokens": 1, "total_tokens": 3},
            },
        )

    result = await OpenAIBackend(openai_client(handler), "vllm", "judge").send(
        ChatRequest(prompt="<s>hi", prompt_logprobs=1, max_tokens=1)
    )
    assert result.prompt_logprobs == [None, {"hi": -0.3}] and result.text == "!"


@pytest.mark.parametrize(
    ("response", "error"),
    [
        (httpx.Response(429, headers={"retry-after": "2"}, json={"error": {"message": "slow"}}), RateLimited),
        (httpx.Response(500, json={"error": {"message": "boom"}}), ServerError),
        (httpx.Response(404, json={"error": {"message": "model not found"}}), ClientError),
        (
            httpx.Response(
                200, json={"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": []}
            ),
            BadResponse,
        ),
    ],
)
async def test_status_errors_map_without_openai_retrying(
    response: httpx.Response, error: type[Exception]
) -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return response

    with pytest.raises(error) as info:
        await OpenAIBackend(openai_client(handler), "vllm", "judge").send(REQUEST)
    assert calls == 1  # the caller's max_retries=5 is overridden: retries are ours
    if isinstance(info.value, RateLimited):
        assert info.value.retry_after == 2.0 and "slow" in info.value.reason
    if isinstance(info.value, ClientError):
        assert info.value.status == 404 and "model not found" in info.value.reason


async def test_transport_errors_map() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    def stall(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    with pytest.raises(LLMUnreachable):
        await OpenAIBackend(openai_client(refuse), "vllm", "judge").send(REQUEST)
    with pytest.raises(LLMTimeout):
        await OpenAIBackend(openai_client(stall), "vllm", "judge").send(REQUEST)


async def test_llm_client_from_openai_retries_itself() -> None:
    answers = [httpx.Response(503, json={"error": {"message": "busy"}}), httpx.Response(200, json=CHAT_OK)]

    def handler(request: httpx.Request) -> httpx.Response:
        return answers.pop(0)

    llm = from_openai(
        openai_client(handler),
        "judge",
        retry=RetryPolicy(max_retries=2, base_delay_s=0.001, rng=random.Random(0)),
    )
    result = await llm.generate(REQUEST)
    assert result.text == "PASS" and result.usage.requests == 2 and answers == []
    await llm.aclose()
