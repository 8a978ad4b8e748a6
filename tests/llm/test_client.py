"""LLMClient and scheduling: a retry waits out its Retry-After without holding a slot, and every
request a call sends is in the current usage meter even when the call is cancelled."""

from __future__ import annotations

import anyio
import httpx
import pytest

from trustscore.llm.accounting import UsageMeter
from trustscore.llm.client import LLMClient
from trustscore.llm.config import EndpointConfig
from trustscore.llm.protocol import ChatRequest, Message

pytestmark = pytest.mark.anyio

ENDPOINT = EndpointConfig(
    base_url="http://judge.local/v1", model="judge", initial_concurrency=1, max_concurrency=1
)


def ok() -> httpx.Response:
    message = {"role": "assistant", "content": "PASS"}
    return httpx.Response(200, json={"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})


def request(text: str) -> ChatRequest:
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

    llm = LLMClient(ENDPOINT, transport=httpx.MockTransport(handle))  # one slot in all

    async def call(text: str) -> None:
        await llm.generate(request(text))
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

    llm = LLMClient(ENDPOINT, transport=httpx.MockTransport(hang))
    with UsageMeter() as meter, anyio.move_on_after(0.2):
        await llm.generate(request("q"))
    assert meter.usage().requests == 1 and meter.saw_calls
