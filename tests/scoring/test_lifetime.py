"""Scorer.aclose() closes every HTTP client the Scorer's LLM clients opened, on every event loop:
the caller's, the sync facade's background loop, and another thread's live loop."""

from __future__ import annotations

import asyncio
import threading

import anyio
from e2e_helpers import CONTEXT, QUESTION, RESPONSE, ensemble_dict
from scorer_fakes import CountingTransport

from trustscore import Config, Scorer
from trustscore.testing import MockRouter


def lynx_scorer() -> tuple[Scorer, CountingTransport]:
    router = MockRouter()
    transport = CountingTransport(router.transport)
    data = ensemble_dict(router.base_url)
    data["judges"] = {"lynx": data["judges"]["lynx"]}
    return Scorer.from_config(Config.from_dict(data), transport=transport), transport


async def score(scorer: Scorer) -> None:
    result = await scorer.score(question=QUESTION, context=CONTEXT, response=RESPONSE)
    assert result.signals["lynx"].error is None


def test_aclose_closes_the_clients_of_the_sync_facades_background_loop() -> None:
    scorer, transport = lynx_scorer()

    async def notebook_cell() -> None:
        # inside a running loop, score_sync runs on the background portal loop
        result = scorer.score_sync(question=QUESTION, context=CONTEXT, response=RESPONSE)
        assert result.signals["lynx"].error is None
        await score(scorer)  # and this loop opens a client of its own
        assert transport.closed == 0
        await scorer.aclose()

    asyncio.run(notebook_cell())
    assert transport.closed == 2


def test_aclose_closes_the_client_of_another_threads_live_trio_loop() -> None:
    scorer, transport = lynx_scorer()
    used = threading.Event()
    finish = threading.Event()

    async def worker() -> None:
        await score(scorer)
        used.set()
        await anyio.to_thread.run_sync(finish.wait)  # the loop stays alive, serving calls

    thread = threading.Thread(target=anyio.run, args=(worker,), kwargs={"backend": "trio"})
    thread.start()
    try:
        assert used.wait(10)

        async def main() -> None:
            await score(scorer)
            await scorer.aclose()

        anyio.run(main)
        assert transport.closed == 2
    finally:
        finish.set()
        thread.join(10)
