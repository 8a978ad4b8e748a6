"""AIMD: one congestion event halves the limit once, and stale reports do not stall growth."""

from __future__ import annotations

import anyio
import pytest

from trustscore.llm.limits import AdaptiveLimiter

pytestmark = pytest.mark.anyio


async def overload(limiter: AdaptiveLimiter, retry_after: float | None) -> None:
    async with limiter.slot() as permit:
        permit.overloaded(retry_after)


async def test_overloads_inside_the_retry_after_of_the_cut_halve_only_once() -> None:
    limiter = AdaptiveLimiter(16, 16)
    await overload(limiter, retry_after=0.2)
    assert limiter.limit == 8
    await overload(limiter, retry_after=0.2)  # a new epoch, but the same overload the server announced
    assert limiter.limit == 8
    await anyio.sleep(0.25)
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
