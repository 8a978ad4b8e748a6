"""Warming up: the service warms its signals as it starts, /readyz says when, and no sample pays
for a model load."""

from __future__ import annotations

import anyio
import httpx
import pytest

from tests.api.conftest import GatedSignal, wait_until
from trustscore import Config, Scorer
from trustscore.api import create_app

pytestmark = pytest.mark.anyio

ROW = {"question": "Who wrote Dune?", "context": ["Dune is by Frank Herbert."], "response": "Frank Herbert."}
OFFLINE = Config.from_dict({"signals": {"embedding": {"enabled": False}}, "cache": {"mode": "off"}})


class CachedGated(GatedSignal):
    """A gated signal the Scorer may cache: its identity is worked out once, in the warm-up."""

    identities = 0

    def cache_identity(self) -> str:
        self.identities += 1
        return "cached-gated@1"


async def test_warm_up_runs_each_local_signal_once_and_works_out_its_cache_identity() -> None:
    gated = CachedGated()
    gated.gate.set()
    async with Scorer(OFFLINE, local_signals=[gated]) as scorer:
        await scorer.warm_up()
    assert gated.started == 1 and gated.identities == 1


async def test_readyz_is_503_until_the_signals_are_warm_and_samples_wait_for_it() -> None:
    gated = GatedSignal()
    async with Scorer(OFFLINE, local_signals=[gated]) as scorer:
        app = create_app(scorer, warm_up=True)
        transport = httpx.ASGITransport(app=app)
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=transport, base_url="http://api.test") as c,
            anyio.create_task_group() as tg,
        ):
            await gated.expect(1).wait()  # the warm-up's sample, before any request
            r = await c.get("/readyz")
            assert r.status_code == 503 and r.json() == {"status": "warming up"}
            assert (await c.get("/healthz")).status_code == 200, "alive while it warms"
            answers: list[int] = []

            async def score() -> None:
                answers.append((await c.post("/v1/score", json=ROW)).status_code)

            tg.start_soon(score)
            await wait_until(lambda: app.state.service.admission.reserved > 0)
            assert gated.started == 1, "the request waits for the warm-up instead of loading again"
            gated.gate.set()

            async def ready() -> bool:
                return (await c.get("/readyz")).status_code == 200

            await wait_until(ready)
        assert answers == [200] and gated.started == 2
