"""Replica pools against several fake vLLM servers: sample affinity, least-outstanding fallback,
ejection of a dying or hung replica with nothing lost, re-admission after /health, replica-free cache
keys."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import anyio
import pytest
from fake_clock import Clock
from pydantic import ValidationError

import trustscore.llm._pool
from trustscore._errors import LLMTimeout, LLMUnreachable
from trustscore.llm import ChatRequest, EndpointConfig, LimiterPool, LLMClient, Message, cache_key
from trustscore.llm._call import CallContext
from trustscore.llm._scheduling import Ticket
from trustscore.testing import FakeAnswer, FakeRequest, FakeVLLMServer, Fault, LatencyModel

pytestmark = pytest.mark.anyio

Factory = Callable[..., FakeVLLMServer]


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The pool's clock (ejection probes), moved by the test instead of waited out."""
    return Clock().install(trustscore.llm._pool, monkeypatch)


def echo(request: FakeRequest) -> FakeAnswer:
    return FakeAnswer(text="ok")


def ask(text: str) -> ChatRequest:
    return ChatRequest(messages=[Message(role="user", content=text)], max_tokens=4)


def served(server: FakeVLLMServer) -> int:
    return len(server.engine.completion_requests())


def pool_endpoint(servers: list[FakeVLLMServer], **kwargs: object) -> EndpointConfig:
    return EndpointConfig(
        base_urls=tuple(s.base_url for s in servers),
        model="fake-judge",
        **kwargs,  # type: ignore[arg-type]
    )


# -- configuration ------------------------------------------------------------------------------


def test_replicas_count_ports_up_from_base_url() -> None:
    endpoint = EndpointConfig(base_url="http://gpu1:8000/v1", model="m", replicas=3)
    assert endpoint.replica_urls() == ("http://gpu1:8000/v1", "http://gpu1:8001/v1", "http://gpu1:8002/v1")


def test_base_urls_make_base_url_the_first_and_round_trip() -> None:
    endpoint = EndpointConfig(base_urls=("http://a:1/v1", "http://b:1/v1"), model="m")
    assert endpoint.base_url == "http://a:1/v1"
    assert EndpointConfig.model_validate(endpoint.model_dump()) == endpoint


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"base_url": "http://gpu1/v1", "replicas": 2}, "explicit port"),
        ({"base_urls": ("http://a:1/v1",), "replicas": 2}, "not both"),
        ({"base_url": "http://c:1/v1", "base_urls": ("http://a:1/v1",)}, "not both"),
        ({"base_urls": ("http://a:1/v1", "http://A:1/v1/")}, "twice"),
        ({"base_urls": ("http://a:1/v1", "a:2/v1")}, "must start with http"),
        ({"base_url": "http://a:65535/v1", "replicas": 2}, "65535"),
    ],
)
def test_bad_pools_are_refused_with_the_field_named(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        EndpointConfig(model="m", **fields)  # type: ignore[arg-type]


def test_the_cache_key_does_not_name_the_replica() -> None:
    pool = EndpointConfig(base_urls=("http://b:1/v1", "http://c:1/v1"), model="m")
    same_pool = EndpointConfig(base_urls=("http://c:1/v1", "http://b:1/v1"), model="m")
    assert cache_key(pool, ask("q")) == cache_key(same_pool, ask("q"))
    # Other servers that only share the served name never share answers; the same weights do.
    one = EndpointConfig(base_url="http://a:1/v1", model="m")
    assert cache_key(one, ask("q")) != cache_key(pool, ask("q"))
    identity = {"model": "m", "model_identity": "org/weights"}
    assert cache_key(EndpointConfig(base_url="http://a:1/v1", **identity), ask("q")) == cache_key(
        EndpointConfig(base_urls=("http://b:1/v1", "http://c:1/v1"), **identity), ask("q")
    )


def test_a_pool_takes_no_single_server_limiter() -> None:
    endpoint = EndpointConfig(base_url="http://a:1/v1", model="m", replicas=2)
    with pytest.raises(ValueError, match="limiters="):
        LLMClient(endpoint, limiter=LimiterPool().for_endpoint(endpoint))


def test_replicas_share_limiters_by_url_across_clients() -> None:
    endpoint = EndpointConfig(base_url="http://a:1/v1", model="m", replicas=2)
    limiters = LimiterPool()
    first, second = LLMClient(endpoint, limiters=limiters), LLMClient(endpoint, limiters=limiters)
    assert [r.limiter for r in first.pool.replicas] == [r.limiter for r in second.pool.replicas]
    assert first.pool.replicas[0].limiter is not first.pool.replicas[1].limiter


# -- routing ------------------------------------------------------------------------------------


async def test_a_samples_calls_stay_on_one_replica_and_samples_spread(fake_vllm_factory: Factory) -> None:
    servers = [fake_vllm_factory(echo) for _ in range(3)]
    llm = LLMClient(pool_endpoint(servers))
    for i in range(30):
        with Ticket() as ticket:
            for judge in range(5):
                await llm.generate(ask(f"sample {i} judge {judge}").within(CallContext(ticket=ticket)))
    by_server = [
        Counter(r.body["messages"][0]["content"].split(" judge")[0] for r in s.engine.completion_requests())
        for s in servers
    ]
    for i in range(30):
        holders = [k for k, counts in enumerate(by_server) if counts[f"sample {i}"]]
        assert len(holders) == 1, f"sample {i} was split over replicas {holders}"
    assert all(served(s) >= 5 for s in servers), [served(s) for s in servers]
    await llm.aclose()


async def test_a_new_sample_avoids_a_saturated_replica(fake_vllm_factory: Factory) -> None:
    slow = LatencyModel(overhead_s=0.3)
    servers = [fake_vllm_factory(echo, latency=slow) for _ in range(2)]
    llm = LLMClient(pool_endpoint(servers, initial_concurrency=1, max_concurrency=1))

    async def sample(text: str) -> None:
        with Ticket() as ticket:
            await llm.generate(ask(text).within(CallContext(ticket=ticket)))

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(sample, "a")
            await anyio.wait_all_tasks_blocked()
            tg.start_soon(sample, "b")  # whichever replica it hashes to, the free one serves it
    assert [served(s) for s in servers] == [1, 1]
    await llm.aclose()


async def test_a_replica_killed_mid_run_loses_nothing_and_its_work_moves(fake_vllm_factory: Factory) -> None:
    servers = [
        fake_vllm_factory(echo, latency=LatencyModel(overhead_s=0.01, capacity=capacity))
        for capacity in (2, 4, 8)
    ]
    # No health probe during the run: the victim's freed port may be taken by another process's server.
    endpoint = pool_endpoint(
        servers, initial_concurrency=4, max_concurrency=8, max_retries=0, health_interval_s=300
    )
    llm = LLMClient(endpoint)
    victim = servers[2]
    answered = 0

    async def sample(i: int) -> None:
        nonlocal answered
        with Ticket() as ticket:
            for judge in range(3):
                await llm.generate(ask(f"sample {i} judge {judge}").within(CallContext(ticket=ticket)))
                answered += 1
                if answered == 60:
                    victim.stop()

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            for i in range(80):
                tg.start_soon(sample, i)
    assert answered == 240  # max_retries=0: only fail-over to another replica saved the calls
    dead = llm.pool.replicas[2]
    assert dead.ejected
    survivors = [r.served for r in llm.pool.replicas[:2]]
    assert sum(survivors) + dead.served == 240 and dead.served < 240 and min(survivors) > 0
    await llm.aclose()


async def test_server_errors_fail_over_without_using_a_retry(
    fake_vllm_factory: Factory, clock: Clock
) -> None:
    bad, good = fake_vllm_factory(echo), fake_vllm_factory(echo)
    bad.faults.add(Fault.server_error())
    # No health probe within the test, however slow a loaded machine makes these calls: a probe
    # (due health_interval_s after the ejection) would let the bad replica back for one more request.
    endpoint = pool_endpoint([bad, good], max_retries=0, eject_after_failures=2, health_interval_s=86_400)
    llm = LLMClient(endpoint)

    async def call(text: str) -> None:
        with Ticket() as ticket:
            await llm.generate(ask(text).within(CallContext(ticket=ticket)))

    # Which samples hash to `bad` first depends on the servers' ports: call until two have.
    calls = 0
    while len(bad.requests) < 2:
        assert calls < 200, "no sample was ever routed to the first replica"
        await call(f"q{calls}")
        calls += 1
    assert llm.pool.replicas[0].ejected
    clock.advance(60.0)  # a loaded machine: a minute between two calls
    for i in range(10):
        await call(f"after {i}")
    assert served(good) == calls + 10  # every failed call was answered by the other replica
    assert len(bad.requests) == 2  # ejected after two failures in a row: no traffic since
    await llm.aclose()


async def test_an_ejected_replica_returns_after_a_healthy_probe(
    fake_vllm_factory: Factory, clock: Clock
) -> None:
    first, second = fake_vllm_factory(echo), fake_vllm_factory(echo)
    port = first.port
    first.stop()
    llm = LLMClient(
        EndpointConfig(
            base_urls=(f"http://127.0.0.1:{port}/v1", second.base_url),
            model="fake-judge",
            eject_after_failures=1,
            health_interval_s=0.05,
        )
    )
    for i in range(30):  # some of these samples hash to the dead replica first
        with Ticket() as ticket:
            await llm.generate(ask(f"q{i}").within(CallContext(ticket=ticket)))
    replica = llm.pool.replicas[0]
    assert replica.ejected and served(second) == 30
    revived = fake_vllm_factory(echo, port=port)
    clock.advance(1.0)  # past health_interval_s: the next call probes the ejected replica
    for i in range(40):
        with Ticket() as ticket:
            await llm.generate(ask(f"r{i}").within(CallContext(ticket=ticket)))
    assert not replica.ejected
    assert served(revived) > 0
    await llm.aclose()


async def test_a_replica_that_hangs_mid_run_is_ejected_its_work_moves_and_it_returns(
    fake_vllm_factory: Factory, clock: Clock
) -> None:
    servers = [fake_vllm_factory(echo, latency=LatencyModel(overhead_s=0.01, capacity=4)) for _ in range(3)]
    endpoint = pool_endpoint(
        servers,
        initial_concurrency=4,
        max_concurrency=4,
        max_retries=0,  # only moving a timed-out call to another replica can save it
        timeout_s=2.5,  # far above a call's time on a box at load 20, so only the hung replica times out
        eject_after_failures=2,
        health_interval_s=0.05,
    )
    llm = LLMClient(endpoint)
    victim, hung = servers[2], llm.pool.replicas[2]
    answered = 0

    async def sample(tag: str, i: int, hang_at: int | None = None) -> None:
        nonlocal answered
        with Ticket() as ticket:
            for judge in range(3):
                await llm.generate(ask(f"{tag} {i} judge {judge}").within(CallContext(ticket=ticket)))
                answered += 1
                if answered == hang_at:
                    victim.hang()

    with anyio.fail_after(120):
        async with anyio.create_task_group() as tg:
            for i in range(60):
                tg.start_soon(sample, "a", i, 60)
    assert answered == 180  # nothing lost
    assert victim.engine.hung and hung.ejected
    received = victim.engine.completion_requests()
    held = [r for r in received if r.status is None]
    assert held, "the victim never got a call after it hung"
    assert hung.served == len(received) - len(held) < 180  # the held calls were answered elsewhere
    probes = [r for r in victim.requests if r.path == "/health"]
    assert probes and all(r.status is None for r in probes)  # probed, no answer in time: kept out

    with anyio.fail_after(120):  # still hung: every sample is served by the other two
        async with anyio.create_task_group() as tg:
            for i in range(20):
                tg.start_soon(sample, "b", i)
    assert answered == 240 and hung.ejected

    victim.resume()
    clock.advance(1.0)  # past health_interval_s: the next call probes the victim again
    before = hung.served
    with anyio.fail_after(120):
        async with anyio.create_task_group() as tg:
            for i in range(40):
                tg.start_soon(sample, "c", i)
    assert answered == 360
    assert not hung.ejected and hung.served > before  # re-admitted once /health answered in time
    await llm.aclose()


async def test_the_callers_deadline_running_out_is_no_replica_failure(fake_vllm_factory: Factory) -> None:
    servers = [fake_vllm_factory(echo) for _ in range(2)]
    for server in servers:
        server.faults.add(Fault.delay(2.0))
    llm = LLMClient(pool_endpoint(servers, timeout_s=5, eject_after_failures=1))
    for i in range(4):
        with Ticket() as ticket, pytest.raises(LLMTimeout, match="deadline"):
            await llm.generate(ask(f"q{i}").within(CallContext(ticket=ticket)), deadline_s=0.1)
    assert [(r.failures, r.ejected) for r in llm.pool.replicas] == [(0, False), (0, False)]
    await llm.aclose()


async def test_a_slow_replica_that_still_answers_some_calls_in_time_stays_in(
    fake_vllm_factory: Factory,
) -> None:
    slow, fast = fake_vllm_factory(echo), fake_vllm_factory(echo)
    slow.faults.add(Fault.delay(3.0), every=2)  # every second call it gets is late
    llm = LLMClient(pool_endpoint([slow, fast], timeout_s=0.6, max_retries=0, eject_after_failures=2))
    for i in range(16):
        with Ticket() as ticket:
            await llm.generate(ask(f"q{i}").within(CallContext(ticket=ticket)))
    replica = llm.pool.replicas[0]
    late = [r for r in slow.engine.completion_requests() if r.fault == "delay"]
    assert late and replica.served > 0  # it timed out, and answered in between
    assert not replica.ejected  # no two timeouts in a row: a slow replica is not a dead one
    assert served(fast) == 16 - replica.served  # each late call moved to the other replica at once
    await llm.aclose()


async def test_every_replica_down_ends_in_the_connection_error(fake_vllm_factory: Factory) -> None:
    servers = [fake_vllm_factory(echo) for _ in range(2)]
    endpoint = pool_endpoint(servers, max_retries=1)
    for s in servers:
        s.stop()
    llm = LLMClient(endpoint)
    with pytest.raises(LLMUnreachable) as caught:
        await llm.generate(ask("q"))
    # 2 replicas x (1 + 1 retry) attempts, none of which reached a server
    usage = caught.value.usage
    assert usage is not None and usage.unsent == 4 and usage.requests == 0
    await llm.aclose()


async def test_the_scorer_spreads_samples_over_a_pool_and_keeps_each_on_one_replica(
    fake_vllm_factory: Factory,
) -> None:
    from trustscore import Config, Sample, Scorer
    from trustscore.testing import judge_policy

    servers = [fake_vllm_factory(judge_policy()) for _ in range(2)]
    config = Config.from_dict(
        {
            "endpoints": {"judge": {"base_urls": [s.base_url for s in servers], "model": "fake-judge"}},
            "judges": {"likert": {"endpoint": "judge"}, "lynx": {"endpoint": "judge"}},
            "signals": {"lexical": {"enabled": False}, "embedding": {"enabled": False}},
            "cache": {"mode": "off"},
        }
    )
    # 32 samples: each lands on a replica by a hash of the sample and the server's address, so with 12
    # all could land on one of two replicas about once in 2,000 runs; with 32, once in 2 billion.
    samples = [
        Sample(id=f"s{i}", question="Where?", context=[f"Marker{i} lives in Paris."], response="Paris.")
        for i in range(32)
    ]
    async with Scorer(config) as scorer:
        results = await scorer.score_many(samples)
    assert all(not r.missing for r in results)
    texts = [[str(r.body) for r in s.engine.completion_requests()] for s in servers]
    for i in range(len(samples)):
        marker = f"Marker{i} "
        holders = [k for k, bodies in enumerate(texts) if any(marker in b for b in bodies)]
        assert len(holders) == 1, f"sample {i} on replicas {holders}"
    assert all(texts), "a replica got no sample"


async def test_admission_sees_room_only_on_replicas_in_service() -> None:
    endpoint = EndpointConfig(
        base_url="http://a:1/v1", model="m", replicas=2, initial_concurrency=1, max_concurrency=1
    )
    llm = LLMClient(endpoint)
    first, second = llm.pool.replicas
    gate = llm.capacity.gate()
    assert gate.has_room
    async with first.limiter.slot(0):
        assert gate.has_room  # the second replica is free
        second.ejected = True
        assert not gate.has_room  # the only free one is out of service
        second.ejected = False
        async with second.limiter.slot(0):
            assert not gate.has_room


async def test_a_sample_keeps_its_home_and_new_samples_shed_to_the_lighter_replica() -> None:
    endpoint = EndpointConfig(
        base_url="http://a:1/v1", model="m", replicas=2, initial_concurrency=4, max_concurrency=4
    )
    pool = LLMClient(endpoint).pool
    home = await pool.pick(7)
    other = next(r for r in pool.replicas if r is not home)
    home.outstanding, other.outstanding = 9, 0
    assert await pool.pick(7) is home  # the sample's later calls follow its evidence
    keys = [k for k in range(100, 200) if max(pool.replicas, key=lambda r: r.weight(k)) is home]
    home.outstanding, other.outstanding = 4, 1  # full, but less than a window busier
    assert await pool.pick(keys[0]) is home
    home.outstanding, other.outstanding = 5, 1  # a whole window busier: new samples go elsewhere
    assert await pool.pick(keys[1]) is other
    assert await pool.pick(7, exclude=[home]) is other  # a call that failed at home moves
    assert await pool.pick(7) is other  # and the sample's home moved with it
