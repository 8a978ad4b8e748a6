"""AIMD concurrency and the retry policy; one congestion event halves the limit once, and stale
reports do not stall growth."""

from __future__ import annotations

import random

import anyio
import pytest
from fake_clock import Clock

import trustscore.llm._limits
from trustscore._errors import BadResponse, ClientError, LLMTimeout, RateLimited, ServerError
from trustscore.llm import AdaptiveLimiter, RetryPolicy
from trustscore.llm._limits import is_overload

pytestmark = pytest.mark.anyio


async def succeed(limiter: AdaptiveLimiter, times: int) -> None:
    for _ in range(times):
        async with limiter.slot() as permit:
            permit.success()


async def test_additive_increase_one_per_window_capped_at_maximum() -> None:
    limiter = AdaptiveLimiter(2, 4)
    await succeed(limiter, 1)
    assert limiter.limit == 2
    await succeed(limiter, 1)
    assert limiter.limit == 3  # a window is `limit` successes
    await succeed(limiter, 3)
    assert limiter.limit == 4
    await succeed(limiter, 50)
    assert limiter.limit == 4


async def test_overload_halves_once_per_wave_with_floor_one() -> None:
    limiter = AdaptiveLimiter(16, 64)
    permits = []
    async with limiter.slot() as a, limiter.slot() as b:
        permits = [a, b]
        a.overloaded()
        b.overloaded()  # same wave (taken before the cut): ignored
    assert limiter.limit == 8
    assert permits[0].epoch == permits[1].epoch
    for expected in (4, 2, 1, 1):
        async with limiter.slot() as permit:
            permit.overloaded()
        assert limiter.limit == expected


async def test_slots_never_exceed_the_limit() -> None:
    limiter = AdaptiveLimiter(4, 8)
    peak = 0
    release = anyio.Event()

    async def hold() -> None:
        nonlocal peak
        async with limiter.slot():
            peak = max(peak, limiter.in_flight)
            await release.wait()

    async with anyio.create_task_group() as tg:
        for _ in range(6):
            tg.start_soon(hold)
        await anyio.wait_all_tasks_blocked()
        assert limiter.in_flight == 4  # two wait
        release.set()
    assert peak == 4 and limiter.in_flight == 0


async def test_lowering_below_borrowed_blocks_new_slots_until_released() -> None:
    limiter = AdaptiveLimiter(3, 8)
    held = anyio.Event()
    done = anyio.Event()
    order: list[str] = []

    async def hold_three() -> None:
        async with limiter.slot(), limiter.slot(), limiter.slot() as permit:
            permit.overloaded()  # 3 -> 1 while 3 are held
            held.set()
            await done.wait()
            order.append("released")

    async def late() -> None:
        await held.wait()
        async with limiter.slot():
            order.append("late got a slot")

    async with anyio.create_task_group() as tg:
        tg.start_soon(hold_three)
        tg.start_soon(late)
        await held.wait()
        await anyio.wait_all_tasks_blocked()
        assert limiter.limit == 1 and order == []
        done.set()
    assert order == ["released", "late got a slot"]


async def test_raised_limit_wakes_waiters() -> None:
    limiter = AdaptiveLimiter(1, 4)
    got: list[int] = []

    async def wait_for_slot(i: int) -> None:
        async with limiter.slot():
            got.append(i)

    async with anyio.create_task_group() as tg, limiter.slot() as permit:
        tg.start_soon(wait_for_slot, 1)
        await anyio.wait_all_tasks_blocked()
        assert got == []
        permit.success()  # window of 1 success: limit 1 -> 2, the waiter may enter
        await anyio.wait_all_tasks_blocked()
        assert got == [1]


def test_limiter_rejects_bad_bounds() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        AdaptiveLimiter(0, 4)
    with pytest.raises(ValueError, match="below the initial"):
        AdaptiveLimiter(8, 4)


def test_is_overload() -> None:
    assert is_overload(RateLimited("x"))
    assert is_overload(ServerError("x", status=503))
    assert not is_overload(ServerError("x", status=500))
    assert is_overload(LLMTimeout("x"))


def test_retry_policy_bounds_and_retryable_only() -> None:
    policy = RetryPolicy(max_retries=2)
    assert policy.should_retry(ServerError("x", status=500), 0)
    assert policy.should_retry(LLMTimeout("x"), 1)
    assert not policy.should_retry(LLMTimeout("x"), 2)
    assert not policy.should_retry(ClientError("bad", status=400), 0)
    assert policy.should_retry(BadResponse("junk"), 0)  # a 200 that is no answer: a server fault
    with pytest.raises(ValueError):
        RetryPolicy(max_retries=-1)


def test_full_jitter_backoff_grows_and_is_capped() -> None:
    policy = RetryPolicy(base_delay_s=0.5, max_delay_s=4.0, rng=random.Random(1))
    err = ServerError("x", status=500)
    for retries, ceiling in [(0, 0.5), (1, 1.0), (2, 2.0), (3, 4.0), (8, 4.0)]:
        delays = [policy.delay(err, retries) for _ in range(200)]
        assert all(0.0 <= d <= ceiling for d in delays)
        assert max(delays) > ceiling * 0.8  # full jitter spans the whole range


def test_retry_after_is_honoured_and_capped() -> None:
    policy = RetryPolicy(base_delay_s=0.1, max_retry_after_s=10.0, rng=random.Random(2))
    delay = policy.delay(RateLimited("x", retry_after=3.0), 0)
    assert 3.0 <= delay <= 3.1
    assert policy.delay(RateLimited("x", retry_after=3600.0), 0) == 10.0
    assert 1.0 <= policy.delay(ServerError("x", status=503, retry_after=1.0), 5) <= 1.1

@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The limiter's clock, moved by the test instead of waited out."""
    return Clock().install(trustscore.llm._limits, monkeypatch)


async def overload(limiter: AdaptiveLimiter, retry_after: float | None) -> None:
    async with limiter.slot() as permit:
        permit.overloaded(retry_after)


async def test_overloads_inside_the_retry_after_of_the_cut_halve_only_once(clock: Clock) -> None:
    limiter = AdaptiveLimiter(16, 16)
    await overload(limiter, retry_after=0.2)
    assert limiter.limit == 8
    await overload(limiter, retry_after=0.2)  # a new epoch, but the same overload the server announced
    assert limiter.limit == 8
    clock.advance(0.25)
    await overload(limiter, retry_after=None)
    assert limiter.limit == 4, "after the window an overload cuts again"
    await overload(limiter, retry_after=None)
    assert limiter.limit == 2, "without Retry-After every new epoch's overload cuts (as before)"


async def test_a_stale_overload_does_not_reset_additive_growth() -> None:
    limiter = AdaptiveLimiter(4, 8)
    async with limiter.slot() as stale:
        await overload(limiter, retry_after=None)  # cuts to 2; `stale` now belongs to the old epoch
        assert limiter.limit == 2
        async with limiter.slot() as permit:
            permit.success()
        stale.overloaded()  # ignored: it neither halves nor forgets the success above
    async with limiter.slot() as permit:
        permit.success()
    assert limiter.limit == 3
