"""Sharded connection pools: a new httpx client only when every open one is full, never more than
the endpoint's concurrency needs, and the least busy shard first."""

from __future__ import annotations

import httpx

from trustscore.llm._connections import SHARD_WIDTH, ShardedClients


def shards(max_connections: int) -> tuple[ShardedClients, list[int]]:
    widths: list[int] = []

    def make(width: int) -> httpx.AsyncClient:
        widths.append(width)
        return httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(200)))

    return ShardedClients(make, max_connections), widths


def test_a_shard_opens_only_when_every_open_one_is_full() -> None:
    pool, widths = shards(64)
    held = [pool.acquire() for _ in range(SHARD_WIDTH)]
    assert set(held) == {0} and len(pool.clients) == 1
    assert pool.acquire() == 1 and widths == [SHARD_WIDTH, SHARD_WIDTH]
    for _ in range(SHARD_WIDTH):
        pool.release(0)
    assert pool.acquire() == 0  # the least busy shard: none in flight there, one on shard 1
    assert pool.acquire() == 0 and pool.acquire() == 1  # then ties go to the first
    assert len(pool.clients) == 2


def test_shards_stop_at_the_endpoints_concurrency() -> None:
    pool, _ = shards(max_connections=SHARD_WIDTH + 1)
    for _ in range(5 * SHARD_WIDTH):
        pool.acquire()
    assert len(pool.clients) == 2  # ceil(9 / 8): beyond it requests queue inside the shards' pools
