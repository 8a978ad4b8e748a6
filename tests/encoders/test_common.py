"""The encoder lane of run_in_worker: one thread per model, the caller's budget and cancellation reach it."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import anyio
import pytest

from trustscore.deadline import BudgetExceeded, Deadline, bound
from trustscore.encoders.common import CheckCancelled, run_in_worker
from trustscore.types import Sample, Signal

pytestmark = pytest.mark.anyio

SAMPLE = Sample(question="q", context=["c"], response="r")


def spin(samples: Sequence[Sample], check: CheckCancelled) -> list[Signal]:
    """A forward that never ends unless stopped between windows."""
    while True:
        check()
        time.sleep(0.01)


async def test_every_job_of_a_model_runs_on_one_thread() -> None:
    threads: list[int] = []

    def score(samples: Sequence[Sample], check: CheckCancelled) -> list[Signal]:
        threads.append(threading.get_ident())
        return [Signal(name="enc", value=0.5) for _ in samples]

    async with anyio.create_task_group() as tg:
        for _ in range(6):
            tg.start_soon(run_in_worker, "enc", "v", "model-a", [SAMPLE], score)
    assert len(threads) == 6 and len(set(threads)) == 1 and threading.get_ident() not in threads


async def test_the_callers_budget_stops_the_job_on_the_lane() -> None:
    began = time.monotonic()
    with bound(Deadline(0.2)), pytest.raises(BudgetExceeded):
        await run_in_worker("enc", "v", "model-b", [SAMPLE], spin)
    assert time.monotonic() - began < 5


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
