"""What a client can hold of the service, and for how long: room in the queue, memory for bodies,
scoring it no longer waits for, and the drain. Driven through the ASGI interface with scripted
clients (tests.api.conftest.Wire) and gated signals, never by sleeping."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import anyio
import httpx
import pytest

from tests.api.conftest import HANG_GUARD_S, GatedSignal, Wire, wait_until
from trustscore import Config, Scorer
from trustscore.api import ApiSettings, create_app
from trustscore.api._bodies import UNCOUNTED_BYTES

pytestmark = pytest.mark.anyio

ROW = {"question": "Who wrote Dune?", "context": ["Dune is by Frank Herbert."], "response": "Frank Herbert."}
OFFLINE = Config.from_dict({"signals": {"embedding": {"enabled": False}}, "cache": {"mode": "off"}})


def client(app: object) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://api.test")  # type: ignore[arg-type]


def batch(n: int) -> bytes:
    return "\n".join(json.dumps({**ROW, "id": f"r{i}"}) for i in range(n)).encode()


async def test_a_full_queue_is_429_before_the_body_is_read() -> None:
    gated = GatedSignal()
    async with Scorer(OFFLINE, local_signals=[gated]) as scorer:
        app = create_app(scorer, ApiSettings(max_in_flight=1, max_queued=0))
        read: list[bytes] = []

        async def body() -> AsyncIterator[bytes]:
            read.append(b"x")
            yield json.dumps(ROW).encode()

        async with client(app) as c, anyio.create_task_group() as tg:
            tg.start_soon(lambda: c.post("/v1/score", json=ROW))
            await gated.expect(1).wait()
            for path in ("/v1/score", "/v1/score/batch"):
                refused = await c.post(path, content=body())
                assert refused.status_code == 429 and refused.headers["Retry-After"] == "1"
                assert refused.headers["Connection"] == "close"
            assert read == [], "no byte of a refused body is read"
            gated.gate.set()


async def test_bodies_beyond_the_budget_get_429_and_small_ones_still_pass() -> None:
    async with Scorer(OFFLINE) as scorer:
        app = create_app(scorer, ApiSettings(max_body_buffer_bytes=1000))
        service = app.state.service
        more = anyio.Event()

        async def held_body() -> AsyncIterator[bytes]:  # no declared length: counted as it arrives
            yield b" " * (UNCOUNTED_BYTES + 900)
            await more.wait()
            yield json.dumps(ROW).encode()

        async with client(app) as c, anyio.create_task_group() as tg:
            tg.start_soon(lambda: c.post("/v1/score", content=held_body()))
            await wait_until(lambda: service.bodies.held == 900)
            big = b" " * (UNCOUNTED_BYTES + 200)  # declares its length: refused before it is read
            refused = await c.post("/v1/score", content=big)
            assert refused.status_code == 429 and "bodies" in refused.json()["error"]
            assert (await c.post("/v1/score", json=ROW)).status_code == 200, "a small body needs no budget"
            more.set()
        assert service.bodies.held == 0, "every body gives its room back"


async def test_a_body_that_does_not_arrive_in_time_is_408() -> None:
    async with Scorer(OFFLINE) as scorer:
        app = create_app(scorer, ApiSettings(body_timeout_s=0.01))
        never = anyio.Event()

        async def stuck() -> AsyncIterator[bytes]:
            yield b'{"question": '
            await never.wait()
            yield b"}"

        async with client(app) as c:
            r = await c.post("/v1/score", content=stuck())
        assert r.status_code == 408 and "body_timeout_s" in r.json()["error"]
        assert r.headers["Connection"] == "close"
        assert app.state.service.bodies.held == 0


async def test_a_batch_client_that_stops_reading_holds_no_room_and_is_cut_off() -> None:
    async with Scorer(OFFLINE) as scorer:
        app = create_app(scorer, ApiSettings(max_in_flight=1, max_queued=0, send_timeout_s=3600))
        admission = app.state.service.admission
        wire = Wire(batch(3), reads=False)
        async with anyio.create_task_group() as tg:
            tg.start_soon(wire.call, app, "/v1/score/batch")
            await wire.stalled.wait()
            await wait_until(lambda: admission.reserved == 0)  # scored: the room is back
            async with client(app) as c:
                assert (await c.post("/v1/score", json=ROW)).status_code == 200
            with anyio.fail_after(HANG_GUARD_S):
                assert await admission.drain(0) is True, "the drain cuts an answer nobody reads"
        assert not wire.finished

        cut = create_app(scorer, ApiSettings(send_timeout_s=0.01))
        wire = Wire(batch(3), reads=False)
        with anyio.fail_after(HANG_GUARD_S):
            await wire.call(cut, "/v1/score/batch")  # returns: the client is cut off
        assert not wire.finished


async def test_an_abandoned_batch_stops_scoring_at_once() -> None:
    gated = GatedSignal()
    async with Scorer(OFFLINE, local_signals=[gated]) as scorer:
        app = create_app(scorer, ApiSettings(batch_concurrency=2))
        admission = app.state.service.admission
        wire = Wire(batch(50))
        with anyio.fail_after(HANG_GUARD_S):
            async with anyio.create_task_group() as tg:
                tg.start_soon(wire.call, app, "/v1/score/batch")
                await gated.expect(2).wait()
                wire.hang_up.set()
        assert gated.started == 2, "no row is scored after the client hung up"
        assert admission.reserved == 0


async def test_an_abandoned_single_request_stops_scoring() -> None:
    gated = GatedSignal()
    async with Scorer(OFFLINE, local_signals=[gated]) as scorer:
        app = create_app(scorer)
        wire = Wire(json.dumps(ROW).encode())
        with anyio.fail_after(HANG_GUARD_S):
            async with anyio.create_task_group() as tg:
                tg.start_soon(wire.call, app, "/v1/score")
                await gated.expect(1).wait()
                wire.hang_up.set()
        assert gated.waiting == 0 and app.state.service.admission.reserved == 0


async def test_the_drain_stops_reading_bodies_at_once() -> None:
    async with Scorer(OFFLINE) as scorer:
        app = create_app(scorer, ApiSettings(body_timeout_s=3600))
        started, never = anyio.Event(), anyio.Event()

        async def trickle() -> AsyncIterator[bytes]:
            yield b'{"question": '
            started.set()
            await never.wait()
            yield b"}"

        got: list[httpx.Response] = []
        async with client(app) as c, anyio.create_task_group() as tg:
            tg.start_soon(lambda: _append(got, c.post("/v1/score", content=trickle())))
            await started.wait()
            with anyio.fail_after(HANG_GUARD_S):
                assert await app.state.service.admission.drain(3600) is False
        assert got[0].status_code == 503 and got[0].headers["Connection"] == "close"


async def _append(into: list[httpx.Response], answer: object) -> None:
    into.append(await answer)  # type: ignore[misc]
