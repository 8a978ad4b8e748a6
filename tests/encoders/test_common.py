"""The encoder lane of run_in_worker: one thread per model, the caller's budget and cancellation reach it;
concurrent callers share forward passes, and the merged forward stops only when every caller
it serves has given up."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from lane_watch import LaneSubmissions

from trustscore import Config, Sample, Scorer, Signal
from trustscore._errors import BudgetExceeded
from trustscore.compute._deadline import Deadline, bound
from trustscore.encoders._common import CheckCancelled, run_in_worker

pytestmark = pytest.mark.anyio

SAMPLE = Sample(question="q", context=["c"], response="r")
Score = Callable[[Sequence[Sample], CheckCancelled], list[Signal]]


def spin(samples: Sequence[Sample], check: CheckCancelled) -> list[Signal]:
    """A forward that never ends unless stopped between windows."""
    while True:
        check()
        threading.Event().wait(0.01)  # a window of work


async def test_every_job_of_a_model_runs_on_one_thread() -> None:
    threads: list[int] = []
    served: list[int] = []

    def score(samples: Sequence[Sample], check: CheckCancelled) -> list[Signal]:
        threads.append(threading.get_ident())
        served.append(len(samples))
        return [Signal(name="enc", value=0.5) for _ in samples]

    async with anyio.create_task_group() as tg:
        for _ in range(6):
            tg.start_soon(run_in_worker, "enc", "v", "model-a", [SAMPLE], score)
    assert sum(served) == 6 and len(set(threads)) == 1 and threading.get_ident() not in threads


async def test_the_callers_budget_stops_the_job_on_the_lane() -> None:
    with anyio.fail_after(30), bound(Deadline(0.2)), pytest.raises(BudgetExceeded):  # spin never ends
        await run_in_worker("enc", "v", "model-b", [SAMPLE], spin)


async def test_a_cancelled_caller_frees_the_lane_for_the_next_job() -> None:
    with anyio.move_on_after(0.2):
        await run_in_worker("enc", "v", "model-c", [SAMPLE], spin)
    with anyio.fail_after(5):
        [signal] = await run_in_worker(
            "enc", "v", "model-c", [SAMPLE], lambda s, c: [Signal(name="enc", value=1.0)]
        )
    assert signal.value == 1.0


async def test_a_failing_model_makes_every_signal_missing_with_the_reason() -> None:
    def broken(samples: Sequence[Sample], check: CheckCancelled) -> list[Signal]:
        raise ValueError("weights missing")

    signals = await run_in_worker("enc", "v", "model-d", [SAMPLE, SAMPLE], broken)
    assert [s.value for s in signals] == [None, None]
    assert all("weights missing" in (s.error or "") for s in signals)


def _sample(tag: int) -> Sample:
    return Sample(question="q", context=["c"], response=str(tag))


def _tagged(samples: Sequence[Sample]) -> list[Signal]:
    """A signal per sample whose value names the sample, so each caller can see it got its own slice."""
    return [Signal(name="enc", value=float(s.response) / 100) for s in samples]


class Lapse(Deadline):
    """A caller's budget that runs out when the test says so (over, not cancelled)."""

    def __init__(self) -> None:
        super().__init__(3600)
        self.lapsed = threading.Event()

    @property
    def over(self) -> bool:
        return self.lapsed.is_set() or super().over


@asynccontextmanager
async def _lane_busy(key: str, submissions: LaneSubmissions, callers: int) -> AsyncIterator[None]:
    """Hold the lane with another job so that the ``callers`` started inside queue up for one round."""
    started, release = threading.Event(), threading.Event()

    def hold(samples: Sequence[Sample], check: CheckCancelled) -> list[Signal]:
        started.set()
        release.wait(10)
        return _tagged(samples)

    async with anyio.create_task_group() as tg:
        tg.start_soon(run_in_worker, "enc", "v", key, [_sample(0)], hold)
        assert await anyio.to_thread.run_sync(started.wait, 10)
        try:
            yield
            await submissions.reach(1 + callers)  # the holder's request and the callers'
        finally:
            release.set()


@pytest.mark.parametrize("how", ["budget", "cancelled"])
async def test_one_caller_giving_up_does_not_cut_the_forward_another_waits_for(
    how: str, lane_submissions: LaneSubmissions
) -> None:
    key = f"model-quit-{how}"
    calls: list[int] = []
    entered, quit_done, checked_after_quit, release = (threading.Event() for _ in range(4))
    got: dict[str, list[Signal]] = {}
    budget, scope = Lapse(), anyio.CancelScope()

    def gated(samples: Sequence[Sample], check: CheckCancelled) -> list[Signal]:
        calls.append(len(samples))
        entered.set()
        while not release.wait(0.01):
            done = quit_done.is_set()
            check()  # raises if the merged budget were over
            if done:
                checked_after_quit.set()
        return _tagged(samples)

    async def quitter() -> None:
        if how == "budget":
            with bound(budget), pytest.raises(BudgetExceeded):
                await run_in_worker("enc", "v", key, [_sample(1)], gated)
        else:
            with scope:
                await run_in_worker("enc", "v", key, [_sample(1)], gated)
            assert scope.cancelled_caught
        quit_done.set()  # it stopped waiting while the forward it was part of still runs
        assert await anyio.to_thread.run_sync(checked_after_quit.wait, 10)  # and the forward went on
        release.set()

    async def waiter() -> None:
        got["waiter"] = await run_in_worker("enc", "v", key, [_sample(2), _sample(3)], gated)

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            async with _lane_busy(key, lane_submissions, callers=2):
                tg.start_soon(quitter)
                tg.start_soon(waiter)
            assert await anyio.to_thread.run_sync(entered.wait, 10)
            if how == "budget":
                budget.lapsed.set()
            else:
                scope.cancel()
    assert calls == [3]  # both callers were served by one forward
    assert [s.value for s in got["waiter"]] == [0.02, 0.03]


async def test_when_every_caller_gives_up_the_forward_stops_at_its_next_window(
    lane_submissions: LaneSubmissions,
) -> None:
    key = "model-all-quit"
    calls: list[int] = []
    entered, stopped = threading.Event(), threading.Event()
    budget, scope = Lapse(), anyio.CancelScope()

    def spin(samples: Sequence[Sample], check: CheckCancelled) -> list[Signal]:
        calls.append(len(samples))
        entered.set()
        try:
            while True:
                check()
                stopped.wait(0.01)
        finally:
            stopped.set()

    async def out_of_budget() -> None:
        with bound(budget), pytest.raises(BudgetExceeded):
            await run_in_worker("enc", "v", key, [_sample(1)], spin)

    async def cancelled() -> None:
        with scope:
            await run_in_worker("enc", "v", key, [_sample(2)], spin)

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            async with _lane_busy(key, lane_submissions, callers=2):
                tg.start_soon(out_of_budget)
                tg.start_soon(cancelled)
            assert await anyio.to_thread.run_sync(entered.wait, 10)
            budget.lapsed.set()
            scope.cancel()
        assert await anyio.to_thread.run_sync(stopped.wait, 10)
    assert calls == [2]
    with anyio.fail_after(10):  # the lane is free again
        [signal] = await run_in_worker("enc", "v", key, [_sample(7)], lambda s, c: _tagged(s))
    assert signal.value == 0.07


async def test_callers_with_different_score_functions_are_not_merged(
    lane_submissions: LaneSubmissions,
) -> None:
    seen: list[tuple[str, int]] = []

    def scorer(tag: str) -> Score:
        def score(samples: Sequence[Sample], check: CheckCancelled) -> list[Signal]:
            seen.append((tag, len(samples)))
            return _tagged(samples)

        return score

    a, b = scorer("a"), scorer("b")
    got: dict[str, list[Signal]] = {}

    async def call(name: str, fn: Score, samples: list[Sample]) -> None:
        got[name] = await run_in_worker("enc", "v", "model-two-fns", samples, fn)

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg, _lane_busy("model-two-fns", lane_submissions, callers=3):
            tg.start_soon(call, "a1", a, [_sample(1)])
            tg.start_soon(call, "b", b, [_sample(2)])
            tg.start_soon(call, "a2", a, [_sample(3), _sample(4)])
    assert sorted(seen) == [("a", 3), ("b", 1)]
    assert [s.value for s in got["a2"]] == [0.03, 0.04] and [s.value for s in got["b"]] == [0.02]


async def test_a_failure_of_a_merged_forward_is_missing_for_every_caller(
    lane_submissions: LaneSubmissions,
) -> None:
    def broken(samples: Sequence[Sample], check: CheckCancelled) -> list[Signal]:
        raise ValueError("weights missing")

    got: list[list[Signal]] = []

    async def call(samples: list[Sample]) -> None:
        got.append(await run_in_worker("enc", "v", "model-broken", samples, broken))

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg, _lane_busy("model-broken", lane_submissions, callers=2):
            tg.start_soon(call, [_sample(1)])
            tg.start_soon(call, [_sample(2), _sample(3)])
    assert sorted(len(g) for g in got) == [1, 2]
    assert all(s.value is None and "weights missing" in (s.error or "") for g in got for s in g)


async def test_scorer_score_many_batches_lettucedetect_across_samples(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("transformers")
    from trustscore.encoders import LettuceDetectConfig, LettuceDetectSignal
    from trustscore.testing._tiny_encoders import save_tiny_lettucedetect

    checkpoint = save_tiny_lettucedetect(tmp_path / "ld", seed=5)
    signal = LettuceDetectSignal(LettuceDetectConfig(model=str(checkpoint), local_files_only=True))
    samples = [
        Sample(
            question=f"Where is landmark {i}?",
            context=[f"Landmark {i} is in city {i}.", "Water boils at 100 degrees." * (i + 1)],
            response=f"Landmark {i} is in city {i + (i % 2)}.",
        )
        for i in range(8)
    ]
    alone = [signal.score_batch([s])[0].value for s in samples]  # also loads the model once

    original = LettuceDetectSignal.score_batch
    batch_sizes: list[int] = []

    def counting(self: LettuceDetectSignal, batch: Sequence[Sample], check: CheckCancelled) -> list[Signal]:
        batch_sizes.append(len(batch))
        return original(self, batch, check)

    monkeypatch.setattr(LettuceDetectSignal, "score_batch", counting)
    async with Scorer(Config(), judges=[], local_signals=[signal]) as scorer:
        results = await scorer.score_many(samples)
    assert sum(batch_sizes) == len(samples) and len(batch_sizes) < len(samples)
    together = [r.signals["lettucedetect"].value for r in results]
    assert all(v is not None for v in together)
    assert together == pytest.approx(alone, abs=1e-6)
