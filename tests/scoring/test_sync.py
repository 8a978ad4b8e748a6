"""The sync facade: anyio.run with no loop, a background portal loop inside a running one."""

from __future__ import annotations

import asyncio
import math
import threading

import pytest
import trio
from e2e_helpers import CONTEXT, QUESTION, RESPONSE, SAMPLE, ensemble_dict
from scorer_fakes import CountingTransport, FakeLocal, install_fake_grounding

import trustscore
from trustscore import Config, Sample, Scorer, TrustScore
from trustscore.scoring._sync import run_sync
from trustscore.testing import MockRouter

Q, R = "Who wrote Dune?", "Frank Herbert wrote Dune."


class ThreadRecorder(FakeLocal):
    """Records the thread each run happens on."""

    def __init__(self) -> None:
        super().__init__("x", lambda s: 0.75)
        self.threads: list[int] = []

    async def run(self, sample: Sample):  # type: ignore[no-untyped-def]
        self.threads.append(threading.get_ident())
        return await super().run(sample)


def scorer_with(signal: FakeLocal) -> Scorer:
    return Scorer(Config(), judges=[], local_signals=[signal])


def test_score_sync_without_a_loop_runs_in_this_thread() -> None:
    signal = ThreadRecorder()
    r = scorer_with(signal).score_sync(question=Q, context="Dune is by Frank Herbert.", response=R)
    assert isinstance(r, TrustScore) and r.score == 0.75
    assert signal.threads == [threading.get_ident()]


def test_score_sync_inside_a_running_asyncio_loop() -> None:
    signal = ThreadRecorder()
    scorer = scorer_with(signal)

    async def notebook_cell() -> tuple[TrustScore, TrustScore]:
        first = scorer.score_sync(question=Q, response=R)
        second = scorer.score_sync(question=Q, response=R)
        return first, second

    first, second = asyncio.run(notebook_cell())
    assert first.score == second.score == 0.75
    assert threading.get_ident() not in signal.threads
    assert signal.threads[0] == signal.threads[1], "one long-lived background loop serves every call"


def test_score_sync_inside_a_running_trio_loop() -> None:
    signal = ThreadRecorder()

    async def main() -> TrustScore:
        return scorer_with(signal).score_sync(question=Q, response=R)

    assert trio.run(main).score == 0.75
    assert threading.get_ident() not in signal.threads


def test_errors_cross_the_portal_unchanged() -> None:
    async def cell() -> None:
        scorer_with(ThreadRecorder()).score_sync(question=Q, response="")

    with pytest.raises(ValueError, match="response is empty"):
        asyncio.run(cell())
    with pytest.raises(ValueError, match="response is empty"):
        scorer_with(ThreadRecorder()).score_sync(question=Q, response="")


def test_score_many_sync_keeps_order() -> None:
    scorer = scorer_with(FakeLocal("x", lambda s: float(s.id or 0) / 10))
    samples = [Sample(question=Q, response=R, id=str(i)) for i in range(5)]
    assert [r.score for r in scorer.score_many_sync(samples, concurrency=2)] == pytest.approx(
        [0.01, 0.1, 0.2, 0.3, 0.4]  # the first clipped into [0.01, 0.99]
    )


def test_module_level_score_sync_in_and_out_of_a_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    install_fake_grounding(monkeypatch)
    outside = trustscore.score_sync(question=Q, context=["Dune is by Frank Herbert."], response=R)

    async def cell() -> TrustScore:
        return trustscore.score_sync(question=Q, context=["Dune is by Frank Herbert."], response=R)

    inside = asyncio.run(cell())
    # Equal weights: the pooled odds are the geometric mean of the odds 7/3 and 9.
    assert outside.score == inside.score == pytest.approx(math.sqrt(21) / (1 + math.sqrt(21)))
    assert outside.used_signals == ["lexical", "embedding"]


def test_run_sync_passes_arguments() -> None:
    async def add(a: int, b: int, *, c: int) -> int:
        return a + b + c

    assert run_sync(add, 1, 2, c=3) == 6

    async def cell() -> int:
        return run_sync(add, 1, 2, c=4)

    assert asyncio.run(cell()) == 7


def test_score_sync_without_a_loop_closes_the_clients_its_loop_opened() -> None:
    """Each call without a running loop gets a loop of its own; a client left open there would keep
    its sockets (and the dead loop) alive for the life of the Scorer, one more per call."""
    router = MockRouter()
    transport = CountingTransport(router.transport)
    data = ensemble_dict(router.base_url)
    data["judges"] = {"lynx": data["judges"]["lynx"]}
    scorer = Scorer.from_config(Config.from_dict(data), transport=transport)
    for _ in range(3):
        r = scorer.score_sync(question=QUESTION, context=CONTEXT, response=RESPONSE)
        assert r.signals["lynx"].error is None
    scorer.score_many_sync([SAMPLE, SAMPLE])
    assert transport.closed == 4
    assert len(router.requests) == 5
