"""Timeouts are a congestion signal: a server too slow to answer gets fewer requests at once, a retry
after a timeout waits for a slot under the lowered limit, and an attempt never outlives the time
budget of the sample it works for."""

from __future__ import annotations

import json

import anyio
import httpx
import pytest
from deadline_clock import DeadlineClock

from trustscore._errors import BudgetExceeded, ServerError
from trustscore.compute._deadline import Deadline
from trustscore.llm import ChatRequest, EndpointConfig, LLMClient, Message, RetryPolicy
from trustscore.llm._call import CallContext

pytestmark = pytest.mark.anyio

RETRY = RetryPolicy(max_retries=2, base_delay_s=0.0, max_delay_s=0.0)


def answer() -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "model": "judge",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "PASS"}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 1},
        },
    )


def asking(text: str) -> ChatRequest:
    return ChatRequest(messages=[Message(role="user", content=text)], max_tokens=4)


class SlowThenFast:
    """Each distinct prompt hangs on its first attempt (never answered: the client's timeout ends it)
    and is answered on the next; records how many requests were in flight at once after the first
    timeout."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.in_flight = 0
        self.most_after_timeout = 0
        self.timed_out = False

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        text = json.loads(request.content)["messages"][0]["content"]
        self.in_flight += 1
        try:
            if self.timed_out:
                self.most_after_timeout = max(self.most_after_timeout, self.in_flight)
            if text not in self.seen:
                self.seen.add(text)
                try:
                    await anyio.Event().wait()  # hangs until the attempt's timeout cancels it
                finally:
                    self.timed_out = True
            await anyio.lowlevel.checkpoint()  # let other requests in while this one is in flight
            return answer()
        finally:
            self.in_flight -= 1


def client(server: SlowThenFast, **settings: float) -> LLMClient:
    endpoint = EndpointConfig(base_url="http://judge.local/v1", model="judge", **settings)  # type: ignore[arg-type]
    return LLMClient(endpoint, transport=httpx.MockTransport(server), retry=RETRY)


async def test_a_timeout_halves_the_limit_as_a_429_does() -> None:
    llm = client(SlowThenFast(), timeout_s=0.05, initial_concurrency=8, max_concurrency=16)
    with anyio.fail_after(30):
        result = await llm.generate(asking("one"))
    assert result.usage.requests == 2 and llm.limiter.limit == 4


async def test_retries_after_timeouts_wait_for_a_slot_under_the_lowered_limit() -> None:
    server = SlowThenFast()
    llm = client(server, timeout_s=0.05, initial_concurrency=2, max_concurrency=2)
    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            for text in ("one", "two"):
                tg.start_soon(llm.generate, asking(text))
    assert server.most_after_timeout == 1  # the retries went one at a time


async def test_an_attempt_the_budget_cancels_is_no_congestion() -> None:
    llm = client(SlowThenFast(), timeout_s=600, initial_concurrency=4, max_concurrency=4)
    with anyio.fail_after(30), anyio.move_on_after(0.05):  # as the Scorer does
        await llm.generate(asking("one").within(CallContext(deadline=Deadline(0.05))))
    assert llm.limiter.limit == 4


async def test_a_failure_after_the_budget_is_spent_is_not_retried() -> None:
    calls = 0

    async def failing(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return httpx.Response(500, json={"error": {"message": "boom"}})

    endpoint = EndpointConfig(base_url="http://judge.local/v1", model="judge")
    llm = LLMClient(endpoint, transport=httpx.MockTransport(failing), retry=RETRY)
    with anyio.fail_after(30), pytest.raises(ServerError):
        await llm.generate(asking("one").within(CallContext(deadline=Deadline(0.0))))
    assert calls == 1


async def test_one_stuck_request_while_the_server_answers_others_is_no_congestion() -> None:
    server = SlowThenFast()
    server.seen.add("fast")  # answered at once
    llm = client(server, timeout_s=0.2, initial_concurrency=8, max_concurrency=8)
    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            tg.start_soon(llm.generate, asking("stuck"))
            await anyio.wait_all_tasks_blocked()
            await llm.generate(asking("fast"))  # answered while "stuck" is in flight
    assert llm.limiter.limit == 8


async def test_an_attempt_waits_only_for_what_is_left_of_the_budget() -> None:
    # Nothing cuts from outside here (no Scorer): the attempt's own limit, min(timeout_s, budget left
    # + grace), ends it. It is the budget's end, not the server's: no congestion, no retry.
    server = SlowThenFast()
    llm = client(server, timeout_s=600, initial_concurrency=4, max_concurrency=4)
    with anyio.fail_after(30), pytest.raises(BudgetExceeded, match="time budget"):
        await llm.generate(asking("one").within(CallContext(deadline=Deadline(0.05))))
    assert server.timed_out and server.seen == {"one"}
    assert llm.limiter.limit == 4


async def test_an_attempt_whose_budget_clock_stopped_meanwhile_is_sent_again_for_what_is_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = DeadlineClock(monkeypatch)
    deadline = Deadline(0.05)
    requests = 0

    async def stalls_while_the_clock_is_stopped(request: httpx.Request) -> httpx.Response:
        nonlocal requests
        requests += 1
        if requests == 1:
            deadline.hold()  # another signal of the sample waits in a lane: the sample's clock stops
            clock.advance(0.02)  # time passes (inside the ceiling), none of it charged
            await anyio.Event().wait()  # until the attempt's limit (the budget left when it began) ends it
        deadline.release()
        return answer()

    endpoint = EndpointConfig(base_url="http://judge.local/v1", model="judge", timeout_s=600)
    transport = httpx.MockTransport(stalls_while_the_clock_is_stopped)
    llm = LLMClient(endpoint, transport=transport, retry=RetryPolicy(max_retries=0))
    with anyio.fail_after(30):
        result = await llm.generate(asking("one").within(CallContext(deadline=deadline)))
    assert result.usage.requests == 2  # sent again, though no retry is allowed: it was no failure
    assert llm.limiter.limit == llm.endpoint.initial_concurrency
