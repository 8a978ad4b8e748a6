"""Slots go to the oldest sample's requests first; new samples are admitted only when the
endpoints have room; one adaptive limit per server URL."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import pytest
from anyio.abc import TaskStatus

from trustscore.llm import AdaptiveLimiter, EndpointConfig, LimiterPool
from trustscore.llm._scheduling import PriorityGate, SampleAdmission, Ticket, request_order

pytestmark = pytest.mark.anyio


async def test_a_freed_slot_goes_to_the_lowest_order_not_the_first_in_line() -> None:
    gate = PriorityGate(1)
    await gate.acquire(0)
    served: list[int] = []

    async def wait_then_use(order: int) -> None:
        await gate.acquire(order)
        served.append(order)
        gate.release()

    async with anyio.create_task_group() as tg:
        for order in (5, 9, 1, 3):  # queued in this order
            tg.start_soon(wait_then_use, order)
            await anyio.wait_all_tasks_blocked()
        assert gate.waiting == 4 and not gate.has_room
        gate.release()
    assert served == [1, 3, 5, 9]
    assert gate.borrowed == 0 and gate.waiting == 0


async def test_an_older_samples_retry_is_served_before_a_newer_samples_first_attempts() -> None:
    limiter = AdaptiveLimiter(1, 1)
    old, new = Ticket(), Ticket()
    served: list[str] = []

    async def attempt(name: str, ticket: Ticket) -> None:
        async with limiter.slot(request_order(ticket)):  # as the client queues a sample's request
            served.append(name)

    await limiter.gate().acquire(0)  # the endpoint is busy
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            for k in range(3):
                tg.start_soon(attempt, f"new-{k}", new)
            await anyio.wait_all_tasks_blocked()
            tg.start_soon(attempt, "old-retry", old)  # comes back later (after its Retry-After)
            await anyio.wait_all_tasks_blocked()
            assert limiter.gate().waiting == 4
            limiter.gate().release()
    assert served[0] == "old-retry" and sorted(served[1:]) == ["new-0", "new-1", "new-2"]


async def test_a_cancelled_waiter_gives_up_its_place_and_leaks_no_slot() -> None:
    gate = PriorityGate(1)
    await gate.acquire(0)
    got: list[int] = []

    async def waiter(order: int, *, task_status: TaskStatus[anyio.CancelScope]) -> None:
        with anyio.CancelScope() as scope:
            task_status.started(scope)
            await gate.acquire(order)
            got.append(order)
            gate.release()

    async with anyio.create_task_group() as tg:
        first = await tg.start(waiter, 1)
        await tg.start(waiter, 2)
        await anyio.wait_all_tasks_blocked()
        first.cancel()
        await anyio.wait_all_tasks_blocked()
        assert gate.waiting == 1
        gate.release()
    assert got == [2] and gate.borrowed == 0


async def test_a_slot_handed_over_as_the_waiter_is_cancelled_passes_to_the_next() -> None:
    gate = PriorityGate(1)
    await gate.acquire(0)
    got: list[int] = []

    async def waiter(order: int, *, task_status: TaskStatus[anyio.CancelScope]) -> None:
        with anyio.CancelScope() as scope:
            task_status.started(scope)
            await gate.acquire(order)
            try:
                got.append(order)
                await anyio.lowlevel.checkpoint()
            finally:
                gate.release()

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            first = await tg.start(waiter, 1)
            await tg.start(waiter, 2)
            await anyio.wait_all_tasks_blocked()
            gate.release()  # grants order 1 ...
            first.cancel()  # ... which is cancelled before it runs again
    assert got[-1] == 2 and gate.borrowed == 0 and gate.waiting == 0


async def test_lowering_the_total_grants_nothing_until_enough_are_released() -> None:
    gate = PriorityGate(2)
    await gate.acquire(0)
    await gate.acquire(0)
    gate.set_total(1)
    gate.release()
    assert not gate.has_room
    gate.release()
    assert gate.has_room


def test_orders_follow_sample_age_and_calls_outside_samples_queue_by_arrival() -> None:
    older, younger = Ticket(), Ticket()
    assert request_order(younger) == younger.order and younger.started
    assert request_order(older) == older.order < younger.order
    first, second = request_order(), request_order()
    assert younger.order < first < second


async def test_admission_waits_for_the_last_sample_to_reach_the_endpoint_and_for_room() -> None:
    limiter = AdaptiveLimiter(2, 2)
    admission = SampleAdmission([limiter], max_active=10)
    admitted: list[Ticket] = []

    async def admit_two(*, task_status: TaskStatus[None]) -> None:
        task_status.started()
        for _ in range(2):
            admitted.append(await admission.next())

    with admission.watching():
        async with anyio.create_task_group() as tg:
            await tg.start(admit_two)
            await anyio.wait_all_tasks_blocked()
            assert len(admitted) == 1, "the first sample has not asked its endpoint for anything yet"
            await limiter.gate().acquire(0)
            await limiter.gate().acquire(0)  # the endpoint is full
            with admitted[0]:
                request_order(admitted[0])
            await anyio.wait_all_tasks_blocked()
            assert len(admitted) == 1, "no free slot: no new sample"
            limiter.gate().release()
            await anyio.wait_all_tasks_blocked()
            assert len(admitted) == 2
    limiter.gate().release()


async def test_admission_caps_running_samples_and_frees_a_place_when_one_ends() -> None:
    admission = SampleAdmission([], max_active=1)
    first = await admission.next()
    with anyio.move_on_after(0.2) as waited:
        await admission.next()
    assert waited.cancelled_caught
    with first:
        pass
    with anyio.fail_after(1):
        await admission.next()


def test_one_limiter_per_server_url() -> None:
    pool = LimiterPool()
    first = EndpointConfig(base_url="http://gpu-1:8000/v1", model="lynx", initial_concurrency=4)
    a = pool.for_endpoint(first)
    b = pool.for_endpoint(EndpointConfig(base_url="http://GPU-1:8000/v1/", model="qwen"))
    c = pool.for_endpoint(EndpointConfig(base_url="http://gpu-2:8000/v1", model="lynx"))
    assert a is b and a is not c
    assert a.limit == 4, "the first endpoint seen sets the limiter"
