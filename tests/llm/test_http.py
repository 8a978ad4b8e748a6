"""The request mapping, response parsing and error mapping of the HTTP backend."""

from __future__ import annotations

import email.utils
import json
from typing import Any

import anyio
import httpx
import pytest
from pydantic import JsonValue

from trustscore._errors import (
    BadResponse,
    ClientError,
    LLMTimeout,
    LLMUnreachable,
    RateLimited,
    ServerError,
    UnsupportedRequest,
)
from trustscore.llm import (
    ChatRequest,
    Constraint,
    EndpointConfig,
    HttpBackend,
    Message,
    build_request_body,
    parse_response,
)
from trustscore.llm._http import error_for_status, parse_retry_after

CHAT = [Message(role="system", content="be brief"), Message(role="user", content="Is it true?")]


def chat_request(**kw: Any) -> ChatRequest:
    return ChatRequest(messages=CHAT, **kw)


def chat_response(text: str = "PASS", **extra: Any) -> dict[str, Any]:
    return {
        "id": "c1",
        "object": "chat.completion",
        "model": "judge",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 2, "total_tokens": 13},
        **extra,
    }


# --- body mapping -------------------------------------------------------------------------------


def test_vllm_chat_body_has_explicit_sampling_and_structured_outputs() -> None:
    req = chat_request(
        n=3,
        temperature=0.7,
        top_p=0.9,
        max_tokens=5,
        seed=7,
        stop=["\n"],
        logprobs=True,
        top_logprobs=5,
        constraint=Constraint(choice=["PASS", "FAIL"]),
    )
    body = build_request_body(req, model="judge", flavour="vllm")
    assert body["model"] == "judge"
    assert body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "Is it true?"},
    ]
    assert (body["n"], body["temperature"], body["top_p"], body["max_tokens"], body["seed"]) == (
        3,
        0.7,
        0.9,
        5,
        7,
    )
    assert body["stop"] == ["\n"]
    assert body["logprobs"] is True and body["top_logprobs"] == 5
    assert body["structured_outputs"] == {"choice": ["PASS", "FAIL"]}
    assert (body["top_k"], body["min_p"], body["repetition_penalty"]) == (-1, 0.0, 1.0)
    assert not any(k.startswith("guided_") for k in body)
    assert "response_format" not in body


def test_vllm_regex_json_and_continue_final_message() -> None:
    regex = build_request_body(chat_request(constraint=Constraint(regex=r"[1-5]")), model="m", flavour="vllm")
    assert regex["structured_outputs"] == {"regex": "[1-5]"}
    schema: dict[str, JsonValue] = {"type": "object", "properties": {"score": {"type": "integer"}}}
    js = build_request_body(
        chat_request(constraint=Constraint(json_schema=schema)), model="m", flavour="vllm"
    )
    assert js["structured_outputs"] == {"json": schema}
    prefixed = ChatRequest(
        messages=[*CHAT, Message(role="assistant", content="Score: ")], continue_final_message=True
    )
    body = build_request_body(prefixed, model="m", flavour="vllm")
    assert body["continue_final_message"] is True and body["add_generation_prompt"] is False


def test_vllm_completions_body() -> None:
    req = ChatRequest(
        prompt="The capital is", logprobs=True, top_logprobs=3, prompt_logprobs=2, echo=True, seed=None
    )
    body = build_request_body(req, model="m", flavour="vllm")
    assert body["prompt"] == "The capital is" and "messages" not in body
    assert body["logprobs"] == 3 and body["prompt_logprobs"] == 2 and body["echo"] is True
    assert "seed" not in body and "stop" not in body and "top_logprobs" not in body


def test_openai_body_uses_response_format_and_drops_what_it_cannot_enforce() -> None:
    schema: dict[str, JsonValue] = {"type": "object"}
    body = build_request_body(
        chat_request(constraint=Constraint(json_schema=schema)), model="gpt", flavour="openai"
    )
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == schema
    assert "structured_outputs" not in body and "top_k" not in body
    assert body["temperature"] == 0.0 and body["top_p"] == 1.0 and body["max_tokens"] == 512
    choice = build_request_body(
        chat_request(constraint=Constraint(choice=["A", "B"])), model="gpt", flavour="openai"
    )
    assert "structured_outputs" not in choice and "response_format" not in choice
    prefixed = ChatRequest(
        messages=[*CHAT, Message(role="assistant", content="Score: ")], continue_final_message=True
    )
    body = build_request_body(prefixed, model="gpt", flavour="openai")
    assert "continue_final_message" not in body and "add_generation_prompt" not in body


def test_openai_flavour_refuses_prompt_logprobs() -> None:
    with pytest.raises(UnsupportedRequest, match="prompt_logprobs needs a vLLM endpoint"):
        build_request_body(ChatRequest(prompt="x", prompt_logprobs=1), model="gpt", flavour="openai")


# --- response parsing ---------------------------------------------------------------------------


def test_parse_chat_with_logprobs_orders_choices_by_index() -> None:
    lp = {
        "content": [
            {
                "token": "PASS",
                "logprob": -0.05,
                "bytes": [80],
                "top_logprobs": [{"token": "PASS", "logprob": -0.05}, {"token": "FAIL", "logprob": -3.0}],
            }
        ]
    }
    data = chat_response()
    data["choices"] = [
        {"index": 1, "message": {"content": "FAIL"}, "finish_reason": "length"},
        {"index": 0, "message": {"content": "PASS"}, "finish_reason": "stop", "logprobs": lp},
    ]
    result = parse_response(data)
    assert [c.text for c in result.choices] == ["PASS", "FAIL"]
    assert result.text == "PASS" and result.model == "judge"
    assert (result.prompt_tokens, result.completion_tokens) == (11, 2)
    tok = result.choices[0].logprobs[0]  # type: ignore[index]
    assert (tok.token, tok.logprob) == ("PASS", -0.05)
    assert [(t.token, t.logprob) for t in tok.top_logprobs] == [("PASS", -0.05), ("FAIL", -3.0)]
    assert result.choices[1].logprobs is None and result.choices[1].finish_reason == "length"


def test_parse_completion_logprobs_and_prompt_logprobs() -> None:
    data = {
        "model": "m",
        "choices": [
            {
                "index": 0,
                "text": "The capital is Paris",
                "finish_reason": "stop",
                "logprobs": {
                    "tokens": ["The", " capital", " Paris"],
                    "token_logprobs": [None, -2.5, -0.1],
                    "top_logprobs": [None, {" capital": -2.5, " city": -1.0}, {" Paris": -0.1}],
                    "text_offset": [0, 3, 11],
                },
                "prompt_logprobs": [
                    None,
                    {
                        "512": {"logprob": -2.5, "rank": 2, "decoded_token": " capital"},
                        "77": {"logprob": -1.0, "rank": 1, "decoded_token": " city"},
                    },
                ],
            }
        ],
        "usage": {"prompt_tokens": 2, "completion_tokens": 1},
    }
    result = parse_response(data)
    lps = result.choices[0].logprobs
    assert lps is not None and [t.token for t in lps] == [
        " capital",
        " Paris",
    ]  # null first position left out
    assert lps[0].top_logprobs[1].token == " city"
    assert result.prompt_logprobs == [None, {" capital": -2.5, " city": -1.0}]
    assert result.prompt_token_strs == ["The", " capital"]  # own token first; position 0 from echo


def test_prompt_logprobs_keep_the_prompt_tokens_value_when_decodings_collide() -> None:
    data = chat_response(
        prompt_logprobs=[
            None,
            {
                "7": {"logprob": -4.0, "rank": 9, "decoded_token": "a"},
                "8": {"logprob": -0.1, "rank": 1, "decoded_token": "a"},
            },
        ]
    )
    result = parse_response(data)
    assert result.prompt_logprobs == [None, {"a": -4.0}]
    assert result.prompt_token_strs == ["", "a"]  # no echo: the first token is unknown


def test_parse_chat_level_prompt_logprobs() -> None:
    data = chat_response(prompt_logprobs=[None, {"9": {"logprob": -0.5, "rank": 1, "decoded_token": "hi"}}])
    assert parse_response(data).prompt_logprobs == [None, {"hi": -0.5}]


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"choices": []},
        {"object": "error"},
        {"choices": [{"index": 0}]},
        {"choices": [{"message": {"content": 3}}]},
        {"choices": [{"text": "x", "logprobs": {"tokens": ["a"], "token_logprobs": []}}]},
        {"choices": [{"message": {"content": "x"}, "logprobs": {"content": [{"token": "x"}]}}]},
    ],
)
def test_malformed_responses_are_bad_response(data: Any) -> None:
    with pytest.raises(BadResponse):
        parse_response(data)


# --- errors ------------------------------------------------------------------------------------


def test_retry_after_forms() -> None:
    assert parse_retry_after({"Retry-After": "2"}) == 2.0
    assert parse_retry_after({"retry-after-ms": "250", "Retry-After": "9"}) == 0.25
    date = email.utils.formatdate(1_000_030.0, usegmt=True)
    assert parse_retry_after({"Retry-After": date}, now=1_000_000.0) == pytest.approx(30.0)
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({"Retry-After": "-3"}) is None
    assert parse_retry_after({}) is None


def test_error_for_status_maps_each_class() -> None:
    e429 = error_for_status(429, {"Retry-After": "3"}, '{"error": {"message": "slow down"}}')
    assert isinstance(e429, RateLimited) and e429.retry_after == 3.0 and "slow down" in e429.reason
    e503 = error_for_status(503, {"Retry-After": "1"}, "busy")
    assert isinstance(e503, ServerError) and e503.status == 503 and e503.retry_after == 1.0 and e503.retryable
    e500 = error_for_status(500, {}, "")
    assert isinstance(e500, ServerError) and e500.retry_after is None
    e400 = error_for_status(400, {}, json.dumps({"object": "error", "message": "x" * 1000}))
    assert isinstance(e400, ClientError) and not e400.retryable and e400.status == 400
    assert len(e400.reason) < 320 and e400.reason.endswith("...")
    assert isinstance(error_for_status(404, {}, "no such model"), ClientError)


# --- the backend over a mock transport -----------------------------------------------------------


def endpoint(**kw: Any) -> EndpointConfig:
    return EndpointConfig(base_url="http://judge.local/v1", model="judge", **kw)


@pytest.mark.anyio
async def test_backend_posts_to_chat_and_completions_with_auth(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TS_TEST_KEY", "sekrit")
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path.endswith("/chat/completions"):
            return httpx.Response(200, json=chat_response("ok"))
        return httpx.Response(200, json={"choices": [{"index": 0, "text": "done"}], "usage": {}})

    backend = HttpBackend(
        endpoint(api_key_env="TS_TEST_KEY", headers={"X-Team": "qa"}), transport=httpx.MockTransport(handler)
    )
    assert (await backend.send(chat_request())).text == "ok"
    assert (await backend.send(ChatRequest(prompt="go"))).text == "done"
    await backend.aclose()
    assert [r.url.path for r in seen] == ["/v1/chat/completions", "/v1/completions"]
    assert seen[0].headers["authorization"] == "Bearer sekrit" and seen[0].headers["x-team"] == "qa"
    assert json.loads(seen[1].content)["prompt"] == "go"


@pytest.mark.anyio
async def test_every_backend_shares_one_ca_store(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import trustscore.llm._http as http_module

    built: list[object] = []
    real = httpx.create_ssl_context

    def counting(*args: Any, **kwargs: Any) -> Any:
        built.append(None)
        return real(*args, **kwargs)

    monkeypatch.setattr(httpx, "create_ssl_context", counting)
    http_module._tls_context.cache_clear()
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=chat_response("ok")))
    try:
        for base in ("http://a.local/v1", "https://b.local/v1", "https://c.local/v1"):
            backend = HttpBackend(EndpointConfig(base_url=base, model="judge"), transport=transport)
            assert (await backend.send(chat_request())).text == "ok"
            await backend.aclose()
    finally:
        http_module._tls_context.cache_clear()
    assert len(built) == 1  # ~27 ms of CPU on the event loop each time it is built


@pytest.mark.anyio
async def test_backend_needs_the_named_key_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TS_MISSING_KEY", raising=False)
    with pytest.raises(ValueError, match="TS_MISSING_KEY"):
        HttpBackend(endpoint(api_key_env="TS_MISSING_KEY"))


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("response", "error"),
    [
        (httpx.Response(429, headers={"Retry-After": "4"}, text="busy"), RateLimited),
        (httpx.Response(503, headers={"Retry-After": "1"}), ServerError),
        (httpx.Response(500, text="boom"), ServerError),
        (httpx.Response(400, json={"error": {"message": "bad temperature"}}), ClientError),
        (httpx.Response(200, text="<html>not json</html>"), BadResponse),
        (httpx.Response(200, json={"choices": []}), BadResponse),
    ],
)
async def test_backend_maps_http_failures(response: httpx.Response, error: type[Exception]) -> None:
    backend = HttpBackend(endpoint(), transport=httpx.MockTransport(lambda _: response))
    with pytest.raises(error):
        await backend.send(chat_request())


@pytest.mark.anyio
async def test_backend_maps_transport_failures() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    def stall(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    with pytest.raises(LLMUnreachable, match="ConnectError"):
        await HttpBackend(endpoint(), transport=httpx.MockTransport(refuse)).send(chat_request())
    with pytest.raises(LLMTimeout):
        await HttpBackend(endpoint(), transport=httpx.MockTransport(stall)).send(chat_request())


def test_backend_client_is_per_event_loop() -> None:
    backend = HttpBackend(
        endpoint(), transport=httpx.MockTransport(lambda _: httpx.Response(200, json=chat_response()))
    )

    async def once() -> httpx.AsyncClient:
        await backend.send(chat_request())
        return backend._clients.get()

    clients = [anyio.run(once), anyio.run(once, backend="trio"), anyio.run(once)]
    assert clients[0] is not clients[1] and clients[0] is not clients[2] and clients[1] is not clients[2]
