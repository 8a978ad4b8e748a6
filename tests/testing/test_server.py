"""The fake vLLM server and the in-process router, driven through real clients on asyncio and trio."""

from __future__ import annotations

import contextlib
import errno
import json
import math
import select
import socket
import struct
import time
from collections.abc import AsyncIterator, Iterator

import anyio
import httpx
import pytest
from openai import AsyncOpenAI

from trustscore.testing import (
    FakeAnswer,
    FakeRequest,
    FakeVLLMServer,
    Fault,
    LatencyModel,
    MockRouter,
    RulePolicy,
    UnmatchedRequest,
    judge_policy,
    tokenize,
)

pytestmark = pytest.mark.anyio

LYNX_PROMPT = "Given the following QUESTION, DOCUMENT and ANSWER you must analyze the provided answer."
LYNX_TAG = {"X-Trustscore-Tag": "lynx@test"}
"""The fake answers a judge by the tag its requests carry, never by the prompt's wording."""
FALLBACK = FakeAnswer(text="Paris is the capital of France.")


def _chat(content: str, **extra: object) -> dict[str, object]:
    return {
        "model": "fake-judge",
        "messages": [{"role": "user", "content": content}],
        "temperature": 0,
        **extra,
    }


@pytest.fixture
def server() -> Iterator[FakeVLLMServer]:
    with FakeVLLMServer(judge_policy(fallback=FALLBACK)) as s:
        yield s


@pytest.fixture
async def http(server: FakeVLLMServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=5) as client:
        yield client


@pytest.fixture
async def openai_client(server: FakeVLLMServer) -> AsyncIterator[AsyncOpenAI]:
    async with httpx.AsyncClient(timeout=5) as hc:
        yield AsyncOpenAI(base_url=server.base_url, api_key="unused", http_client=hc, max_retries=0)  # type: ignore[arg-type]


# -- wire format through the real openai client -------------------------------------------------------


async def test_openai_client_parses_chat_with_logprobs(
    openai_client: AsyncOpenAI, server: FakeVLLMServer
) -> None:
    resp = await openai_client.chat.completions.create(
        model="fake-judge",
        messages=[{"role": "user", "content": LYNX_PROMPT}],
        logprobs=True,
        top_logprobs=5,
        temperature=0,
        extra_headers=LYNX_TAG,
    )
    choice = resp.choices[0]
    assert resp.object == "chat.completion" and resp.model == "fake-judge"
    assert (
        choice.message.content == '{"REASONING": [\'The answer is stated in the document.\'], "SCORE": PASS}'
    )
    assert choice.finish_reason == "stop"
    assert choice.logprobs is not None and choice.logprobs.content is not None and resp.usage is not None
    content = choice.logprobs.content
    assert "".join(t.token for t in content) == choice.message.content
    verdict = next(t for t in content if t.token.strip() == "PASS")
    assert math.exp(verdict.logprob) == pytest.approx(0.93)
    assert {t.token: round(math.exp(t.logprob), 2) for t in verdict.top_logprobs} == {
        " PASS": 0.93,
        " FAIL": 0.07,
    }
    assert verdict.bytes == list(verdict.token.encode())
    rendered = f"<|user|>\n{LYNX_PROMPT}\n"
    assert resp.usage.prompt_tokens == len(tokenize(rendered))
    assert resp.usage.completion_tokens == len(content)


async def test_openai_client_parses_completions_with_echo_and_prompt_logprobs(
    openai_client: AsyncOpenAI,
) -> None:
    resp = await openai_client.completions.create(
        model="fake-judge",
        prompt="The capital of France",
        logprobs=2,
        echo=True,
        max_tokens=3,
        extra_body={"prompt_logprobs": 1},
    )
    choice = resp.choices[0]
    assert resp.object == "text_completion"
    assert choice.text == "The capital of France" + "Paris is the"
    assert choice.finish_reason == "length"
    lp = choice.logprobs
    assert lp is not None and lp.tokens is not None and lp.token_logprobs is not None
    assert choice.model_extra is not None
    assert lp.tokens[:4] == ["The", " capital", " of", " France"] and lp.token_logprobs[0] is None
    assert lp.text_offset == [sum(len(t) for t in lp.tokens[:i]) for i in range(len(lp.tokens))]
    prompt_lp = choice.model_extra["prompt_logprobs"]  # vLLM puts it inside the choice for completions
    assert prompt_lp[0] is None and len(prompt_lp) == 4
    (entry,) = prompt_lp[1].values()
    assert entry == {"logprob": -2.0, "rank": 1, "decoded_token": " capital"}


async def test_n_choices_follow_the_scripted_votes(openai_client: AsyncOpenAI) -> None:
    resp = await openai_client.chat.completions.create(
        model="fake-judge",
        messages=[{"role": "user", "content": "VERDICT: supported or VERDICT: unsupported"}],
        n=7,
        temperature=1.0,
        extra_headers={"X-Trustscore-Tag": "chainpoll@test"},
    )
    verdicts = [(c.message.content or "").rsplit(" ", 1)[-1] for c in resp.choices]
    assert [c.index for c in resp.choices] == list(range(7))
    # chainpoll_answers() votes 4 supported + 1 unsupported, cycled over n
    assert verdicts == ["supported"] * 4 + ["unsupported"] + ["supported"] * 2


async def test_structured_choice_and_regex_are_honoured(openai_client: AsyncOpenAI) -> None:
    choice = await openai_client.chat.completions.create(
        model="fake-judge",
        messages=[{"role": "user", "content": LYNX_PROMPT}],
        logprobs=True,
        top_logprobs=2,
        extra_body={"structured_outputs": {"choice": ["FAIL", "PASS"]}},
        extra_headers=LYNX_TAG,
    )
    assert choice.choices[0].message.content == "PASS"
    regex = await openai_client.chat.completions.create(
        model="fake-judge",
        messages=[{"role": "user", "content": "anything"}],
        extra_body={"structured_outputs": {"regex": r"Score: [1-5]"}},
    )
    assert regex.choices[0].message.content == "Score: 1"
    schema: dict[str, object] = {
        "type": "object",
        "properties": {"score": {"type": "integer"}},
        "required": ["score"],
    }
    js = await openai_client.chat.completions.create(
        model="fake-judge",
        messages=[{"role": "user", "content": "anything"}],
        response_format={"type": "json_schema", "json_schema": {"name": "s", "schema": schema}},
    )
    assert json.loads(js.choices[0].message.content or "") == {"score": 0}


async def test_continue_final_message_answers_the_rest(http: httpx.AsyncClient) -> None:
    body = _chat(
        LYNX_PROMPT,
        max_tokens=1,
        logprobs=True,
        top_logprobs=2,
        continue_final_message=True,
        add_generation_prompt=False,
    )
    messages = body["messages"]
    assert isinstance(messages, list)
    messages.append({"role": "assistant", "content": '{"REASONING": [\'ok\'], "SCORE": '})
    data = (await http.post("/chat/completions", json=body, headers=LYNX_TAG)).json()
    (tok,) = data["choices"][0]["logprobs"]["content"]
    assert tok["token"] == "PASS" and math.exp(tok["logprob"]) == pytest.approx(0.93)


async def test_async_policy_and_typed_request_view(fake_vllm_factory) -> None:  # type: ignore[no-untyped-def]
    seen: list[FakeRequest] = []

    async def policy(request: FakeRequest) -> FakeAnswer:
        seen.append(request)
        await anyio.sleep(0)
        return FakeAnswer(text=f"n={request.n} judge={request.judge}")

    server = fake_vllm_factory(policy)
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        data = (
            await http.post(
                "/chat/completions",
                json=_chat("Please assign a Score using the following 5-point scale", n=2, seed=7),
                headers={"X-Trustscore-Tag": "likert@abc"},
            )
        ).json()
    assert [c["message"]["content"] for c in data["choices"]] == ["n=2 judge=likert"] * 2
    (req,) = seen
    assert req.endpoint == "chat" and req.seed == 7 and req.tag == "likert@abc" and req.temperature == 0
    assert req.last_user_message.endswith("5-point scale")


# -- endpoints and errors ------------------------------------------------------------------------------


async def test_health_models_and_vllm_error_bodies(server: FakeVLLMServer, http: httpx.AsyncClient) -> None:
    health = await http.get(server.url + "/health")
    assert health.status_code == 200 and health.content == b""
    models = (await http.get("/models")).json()
    assert models["object"] == "list" and [m["id"] for m in models["data"]] == ["fake-judge"]
    assert models["data"][0]["max_model_len"] == 8192
    missing = await http.post("/chat/completions", json={**_chat("x"), "model": "nope"})
    assert missing.status_code == 404
    assert missing.json() == {
        "error": {
            "message": "The model `nope` does not exist.",
            "type": "NotFoundError",
            "param": "model",
            "code": 404,
        }
    }
    bad = await http.post("/chat/completions", content=b"{not json")
    assert bad.status_code == 400 and bad.json()["error"]["type"] == "BadRequestError"
    assert (await http.get("/nothing-here")).status_code == 404
    assert (await http.get("/chat/completions")).status_code == 405


async def test_unmatched_request_gets_a_clear_500(fake_vllm_factory) -> None:  # type: ignore[no-untyped-def]
    server = fake_vllm_factory(RulePolicy())
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        resp = await http.post("/chat/completions", json=_chat("who am I?"))
    assert resp.status_code == 500
    assert (
        "no policy answer" in resp.json()["error"]["message"]
        and "who am I?" in resp.json()["error"]["message"]
    )
    assert [r.index for r in server.unmatched] == [0]


async def test_policy_exception_is_a_500_and_recorded(fake_vllm_factory) -> None:  # type: ignore[no-untyped-def]
    def broken(request: FakeRequest) -> FakeAnswer:
        raise KeyError("boom")

    server = fake_vllm_factory(broken)
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        resp = await http.post("/chat/completions", json=_chat("x"))
    assert resp.status_code == 500 and "KeyError" in resp.json()["error"]["message"]
    assert isinstance(server.policy_errors[0], KeyError)


# -- faults -------------------------------------------------------------------------------------------


async def test_rate_limit_server_error_unavailable(server: FakeVLLMServer, http: httpx.AsyncClient) -> None:
    server.faults.add(Fault.rate_limit(retry_after=2), requests=[0])
    server.faults.add(Fault.server_error(), requests=[1])
    server.faults.add(Fault.unavailable(retry_after=0.5), requests=[2])
    r429, r500, r503, ok = [await http.post("/chat/completions", json=_chat("x")) for _ in range(4)]
    assert r429.status_code == 429 and r429.headers["retry-after"] == "2"
    assert r429.json()["error"] == {
        "message": "Too many requests",
        "type": "RateLimitError",
        "param": None,
        "code": 429,
    }
    assert r500.status_code == 500 and r500.json()["error"]["type"] == "InternalServerError"
    assert r503.status_code == 503 and r503.headers["retry-after"] == "0.5"
    assert ok.status_code == 200
    assert [r.fault for r in server.requests] == ["rate_limit", "server_error", "unavailable", None]
    assert server.stats.requests == 1  # only the answered request reached the model


async def test_delay_outlasts_a_client_deadline_and_the_server_stays_usable(
    server: FakeVLLMServer, http: httpx.AsyncClient
) -> None:
    server.faults.add(Fault.delay(60.0), first=1)
    with pytest.raises(httpx.ReadTimeout):
        await http.post("/chat/completions", json=_chat("x"), timeout=0.2)
    with anyio.fail_after(30):  # answered without waiting out the first request's delay
        ok = await http.post("/chat/completions", json=_chat("x"))
    assert ok.status_code == 200


async def test_delay_then_normal_answer(server: FakeVLLMServer, http: httpx.AsyncClient) -> None:
    server.faults.add(Fault.delay(0.2))
    start = time.monotonic()
    resp = await http.post("/chat/completions", json=_chat("x"))
    assert resp.status_code == 200 and time.monotonic() - start >= 0.2


async def test_a_hung_server_holds_every_request_until_it_resumes(
    server: FakeVLLMServer, http: httpx.AsyncClient
) -> None:
    server.hang()
    for path, body in (("/chat/completions", _chat("x")), (f"{server.url}/health", None)):
        with pytest.raises(httpx.ReadTimeout):
            if body is None:
                await http.get(path, timeout=0.2)
            else:
                await http.post(path, json=body, timeout=0.2)
    assert [r.path for r in server.requests] == ["/v1/chat/completions", "/health"]  # received, held
    assert server.stats.requests == 0
    async with anyio.create_task_group() as tg:
        late: list[int] = []

        async def held() -> None:
            late.append((await http.post("/chat/completions", json=_chat("y"))).status_code)

        tg.start_soon(held)
        with anyio.fail_after(10):
            while len(server.requests) < 3:  # the server has received the third request and holds it
                await anyio.sleep(0.01)
        assert late == []
        server.resume()
    assert late == [200]  # the held request is answered once the server resumes
    assert (await http.get(f"{server.url}/health")).status_code == 200


async def test_stopping_closes_every_connection_like_a_killed_server(
    server: FakeVLLMServer, http: httpx.AsyncClient
) -> None:
    """A client waiting on a stopped server gets an error at once, never silence: a request held in
    service, a connection with half a request sent, and one that sent nothing yet."""
    server.hang()
    idle, half = (socket.create_connection(("127.0.0.1", server.port)) for _ in range(2))
    half.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n")
    outcome: list[BaseException] = []

    async def held() -> None:
        try:
            await http.post("/chat/completions", json=_chat("x"), timeout=600)
        except httpx.TransportError as e:
            outcome.append(e)

    with anyio.fail_after(30):  # a guard, not a bound: each step returns at once on a sound server
        async with anyio.create_task_group() as tg:
            tg.start_soon(held)
            while not server.requests:  # the server has received the request and holds it
                await anyio.sleep(0.01)
            server.stop()
        for client in (idle, half):
            with client:
                client.setblocking(False)
                await anyio.wait_readable(client)
                with contextlib.suppress(ConnectionResetError):  # closed with unread bytes: a reset
                    assert client.recv(1024) == b""  # closed: the end of the stream
    assert len(outcome) == 1 and isinstance(outcome[0], httpx.RemoteProtocolError | httpx.ReadError)


def test_a_server_stopped_as_clients_connect_leaves_none_of_them_waiting() -> None:
    """Connections the kernel has queued, or that the server is taking, when it stops: each gets its
    end of stream or a reset, never silence (asyncio's own accept could drop one unclosed)."""
    for _ in range(300):
        server = FakeVLLMServer().start()
        clients = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(4)]
        server.stop()
        for client in clients:
            with client:
                readable, _, _ = select.select([client], [], [], 30)  # a guard: answered at once
                assert readable
                with contextlib.suppress(ConnectionResetError):
                    assert client.recv(1024) == b""


async def test_a_client_that_resets_its_connection_does_not_stop_the_server(server: FakeVLLMServer) -> None:
    for _ in range(3):
        client = socket.create_connection(("127.0.0.1", server.port))
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()  # a reset, maybe before the server has taken the connection
    async with httpx.AsyncClient(timeout=30) as http:
        assert (await http.get(f"{server.url}/health")).status_code == 200


async def test_a_server_out_of_file_handles_serves_again_once_one_is_free(
    server: FakeVLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    accept = socket.socket.accept
    refused = 0

    def out_of_handles(sock: socket.socket) -> tuple[socket.socket, object]:
        nonlocal refused
        if refused < 2:
            refused += 1
            raise OSError(errno.EMFILE, "Too many open files")
        return accept(sock)

    monkeypatch.setattr(socket.socket, "accept", out_of_handles)
    async with httpx.AsyncClient(timeout=30) as http:
        assert (await http.get(f"{server.url}/health")).status_code == 200
    assert refused == 2


async def test_malformed_truncated_empty_and_disconnect(
    server: FakeVLLMServer, http: httpx.AsyncClient
) -> None:
    server.faults.add(Fault.malformed_json(), requests=[0])
    server.faults.add(Fault.truncated(), requests=[1])
    server.faults.add(Fault.empty_choices(), requests=[2])
    server.faults.add(Fault.disconnect(), requests=[3])
    malformed = await http.post("/chat/completions", json=_chat("x"))
    assert malformed.status_code == 200
    with pytest.raises(ValueError):
        json.loads(malformed.content)
    truncated = (await http.post("/chat/completions", json=_chat(LYNX_PROMPT))).json()
    choice = truncated["choices"][0]
    assert choice["finish_reason"] == "length" and "SCORE" not in choice["message"]["content"]
    empty = (await http.post("/chat/completions", json=_chat("x"))).json()
    assert empty["choices"] == [] and empty["object"] == "chat.completion"
    with pytest.raises(httpx.RemoteProtocolError):
        await http.post("/chat/completions", json=_chat("x"))
    assert (await http.post("/chat/completions", json=_chat("x"))).status_code == 200


async def test_policy_may_return_a_fault_per_request(fake_vllm_factory) -> None:  # type: ignore[no-untyped-def]
    policy = RulePolicy(fallback=FALLBACK).on("flaky", Fault.server_error("flaky judge"))
    server = fake_vllm_factory(policy)
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        flaky = await http.post("/chat/completions", json=_chat("a flaky one"))
        fine = await http.post("/chat/completions", json=_chat("a fine one"))
    assert flaky.status_code == 500 and flaky.json()["error"]["message"] == "flaky judge"
    assert fine.status_code == 200


async def test_request_log(server: FakeVLLMServer, http: httpx.AsyncClient) -> None:
    before = time.time()
    await http.post("/chat/completions", json=_chat("logged", n=2), headers={"X-Custom": "yes"})
    (rec,) = server.requests
    assert rec.method == "POST" and rec.path == "/v1/chat/completions" and rec.status == 200
    assert rec.body["n"] == 2 and rec.body["messages"][0]["content"] == "logged"
    assert rec.headers["x-custom"] == "yes" and before <= rec.time <= time.time()


# -- latency model and counters ------------------------------------------------------------------------


async def test_prefix_cache_saves_prefill_on_a_repeated_prefix(fake_vllm_factory) -> None:  # type: ignore[no-untyped-def]
    server = fake_vllm_factory(judge_policy(fallback=FALLBACK), latency=LatencyModel(block_size=4))
    shared = " ".join(f"word{i}" for i in range(40))
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        await http.post("/completions", json={"model": "fake-judge", "prompt": shared + " first question"})
        after_first = server.stats
        await http.post("/completions", json={"model": "fake-judge", "prompt": shared + " second question"})
    stats = server.stats
    assert after_first.prefilled_tokens == after_first.prompt_tokens == 42
    second_prefill = stats.prefilled_tokens - after_first.prefilled_tokens
    assert second_prefill <= 4 + 2  # only the partial last block of the shared part and the new suffix
    assert stats.cached_tokens == 40


async def test_n_samples_prefill_once_and_prompt_logprobs_skip_the_cache(fake_vllm_factory) -> None:  # type: ignore[no-untyped-def]
    server = fake_vllm_factory(judge_policy(fallback=FALLBACK), latency=LatencyModel(block_size=4))
    prompt = " ".join(f"w{i}" for i in range(32))
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        await http.post("/completions", json={"model": "fake-judge", "prompt": prompt, "n": 5})
        s = server.stats
        assert (s.requests, s.prefilled_tokens, s.completion_tokens) == (
            1,
            32,
            5 * len(tokenize(FALLBACK.text)),
        )
        await http.post("/completions", json={"model": "fake-judge", "prompt": prompt, "prompt_logprobs": 0})
    assert server.stats.prefilled_tokens == 64  # teacher forcing needs logits for every prompt token


async def test_capacity_queues_requests_and_counts_busy_time(fake_vllm_factory) -> None:  # type: ignore[no-untyped-def]
    latency = LatencyModel(overhead_s=0.1, capacity=2)
    server = fake_vllm_factory(judge_policy(fallback=FALLBACK), latency=latency)
    start = time.monotonic()
    async with httpx.AsyncClient(base_url=server.base_url) as http:

        async def one() -> None:
            assert (await http.post("/chat/completions", json=_chat("x"))).status_code == 200

        async with anyio.create_task_group() as tg:
            for _ in range(6):
                tg.start_soon(one)
    wall = time.monotonic() - start
    stats = server.stats
    assert stats.max_concurrency == 2 and stats.max_queued >= 3
    assert wall >= 0.3 - 0.02  # 6 requests, 2 at a time, 0.1 s each
    assert stats.busy_s == pytest.approx(0.6)
    # Utilisation is busy time over slot time; the wall clock of a busy machine only bounds it above.
    assert stats.utilisation(0.6, 2) == pytest.approx(0.5)
    assert 0.0 < stats.utilisation(wall, 2) <= 1.0


async def test_decode_and_prefill_costs_are_modelled(fake_vllm_factory) -> None:  # type: ignore[no-untyped-def]
    latency = LatencyModel(prefill_s_per_token=0.001, decode_s_per_token=0.01, prefix_cache=False)
    server = fake_vllm_factory(RulePolicy(fallback=FakeAnswer(text="a b c d e f g h i j")), latency=latency)
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        await http.post("/completions", json={"model": "fake-judge", "prompt": " ".join(["p"] * 50), "n": 3})
    assert server.stats.busy_s == pytest.approx(50 * 0.001 + 10 * 0.01)  # n choices decode side by side


# -- the in-process router ----------------------------------------------------------------------------


async def test_router_gives_the_server_s_bodies(server: FakeVLLMServer, http: httpx.AsyncClient) -> None:
    router = MockRouter(judge_policy(fallback=FALLBACK))
    requests = [
        ("/chat/completions", _chat(LYNX_PROMPT, logprobs=True, top_logprobs=3, n=2)),
        (
            "/completions",
            {"model": "fake-judge", "prompt": "abc def", "logprobs": 1, "echo": True, "prompt_logprobs": 1},
        ),
        ("/chat/completions", {**_chat("x"), "model": "nope"}),
    ]
    async with router.client() as local:
        for path, body in requests:
            remote = await http.post(path, json=body)
            inproc = await local.post(path, json=body)
            assert inproc.status_code == remote.status_code
            a, b = remote.json(), inproc.json()
            a.pop("created", None)
            b.pop("created", None)
            assert a == b


async def test_router_raises_on_unmatched_and_disconnect() -> None:
    router = MockRouter(RulePolicy().on("known", FALLBACK))
    router.faults.add(Fault.disconnect(), when=lambda r: "drop" in r.text)
    async with router.client() as client:
        assert (await client.post("/chat/completions", json=_chat("known"))).status_code == 200
        with pytest.raises(UnmatchedRequest, match="no policy answer"):
            await client.post("/chat/completions", json=_chat("other"))
        with pytest.raises(httpx.RemoteProtocolError):
            await client.post("/chat/completions", json=_chat("known drop"))
    assert [r.index for r in router.unmatched] == [1]


async def test_router_plugs_into_the_trustscore_http_backend() -> None:
    from trustscore._errors import RateLimited
    from trustscore.llm import ChatRequest, Constraint, EndpointConfig, HttpBackend, Message

    router = MockRouter(judge_policy(), models="lynx-8b")
    backend = HttpBackend(
        EndpointConfig(base_url=router.base_url, model="lynx-8b"), transport=router.transport
    )
    try:
        result = await backend.send(
            ChatRequest(
                messages=[Message(role="user", content=LYNX_PROMPT)],
                logprobs=True,
                top_logprobs=2,
                tag="lynx@t",
            )
        )
        assert result.text.endswith('"SCORE": PASS}') and result.choices[0].finish_reason == "stop"
        verdict = next(t for t in result.choices[0].logprobs or [] if t.token.strip() == "PASS")
        assert math.exp(verdict.logprob) == pytest.approx(0.93)
        constrained = await backend.send(
            ChatRequest(
                messages=[Message(role="user", content=LYNX_PROMPT)],
                constraint=Constraint(choice=["PASS", "FAIL"]),
                tag="lynx@t",
            )
        )
        assert constrained.text == "PASS"
        router.faults.add(Fault.rate_limit(retry_after=3), first=3)
        with pytest.raises(RateLimited) as info:
            await backend.send(ChatRequest(messages=[Message(role="user", content="x")]))
        assert info.value.retry_after == 3
    finally:
        await backend.aclose()
