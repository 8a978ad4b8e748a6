"""MicroBatcher: calls that wait for the model together run as one batch; errors, budgets and cancellation."""

from __future__ import annotations

import threading

import anyio
import pytest

from trustscore._errors import BudgetExceeded
from trustscore.compute._deadline import Deadline, bound, checkpoint
from trustscore.whitebox._batching import MicroBatcher

pytestmark = pytest.mark.anyio


class Model:
    """run_batch doubles each item; the first batch holds the model until ``release`` is set."""

    def __init__(self, fail: bool = False) -> None:
        self.batches: list[list[int]] = []
        self.entered = threading.Event()
        self.release = threading.Event()
        self.fail = fail

    def run(self, items: list[int]) -> list[int | Exception]:
        self.batches.append(items)
        if len(self.batches) == 1:
            self.entered.set()
            self.release.wait(timeout=60)
        checkpoint()  # the budget check a model's every layer makes
        if self.fail and len(self.batches) > 1:
            raise RuntimeError("model broke")
        return [ValueError(f"{i} is negative") if i < 0 else 2 * i for i in items]


def batcher(model: Model, max_batch: int = 8) -> MicroBatcher[int, int]:
    limiter = anyio.CapacityLimiter(1)
    return MicroBatcher(model.run, lambda: limiter, max_batch)


async def wait_thread(event: threading.Event) -> None:
    await anyio.to_thread.run_sync(event.wait, 60)


async def test_calls_waiting_together_run_as_one_batch() -> None:
    model = Model()
    b = batcher(model, max_batch=3)
    got: dict[int, int] = {}

    async def call(i: int) -> None:
        got[i] = await b.submit(i)

    async with anyio.create_task_group() as tg:
        tg.start_soon(call, 0)
        await wait_thread(model.entered)
        for i in range(1, 6):
            tg.start_soon(call, i)
        await anyio.wait_all_tasks_blocked()
        model.release.set()
    assert got == {i: 2 * i for i in range(6)}
    # trio starts tasks in any order: which waiting calls share a batch may vary, not the sizes
    assert [len(batch) for batch in model.batches] == [1, 3, 2], "waiting calls batched, max_batch at once"
    assert sorted(i for batch in model.batches for i in batch) == list(range(6))


async def test_a_failing_batch_fails_each_of_its_calls() -> None:
    model = Model(fail=True)
    b = batcher(model)
    errors: list[str] = []

    async def call(i: int) -> None:
        try:
            await b.submit(i)
        except RuntimeError as e:
            errors.append(str(e))

    async with anyio.create_task_group() as tg:
        tg.start_soon(call, 0)
        await wait_thread(model.entered)
        tg.start_soon(call, 1)
        tg.start_soon(call, 2)
        await anyio.wait_all_tasks_blocked()
        model.release.set()
    assert errors == ["model broke", "model broke"] and sorted(model.batches[1]) == [1, 2]


async def test_a_cancelled_caller_does_not_fail_its_batch() -> None:
    model = Model()
    b = batcher(model)
    got: dict[int, int] = {}

    async def call(i: int) -> None:
        got[i] = await b.submit(i)

    async with anyio.create_task_group() as tg:
        with anyio.CancelScope() as leader_scope:
            async with anyio.create_task_group() as inner:
                inner.start_soon(call, 0)  # leads the first batch
                await wait_thread(model.entered)
                tg.start_soon(call, 1)
                await anyio.wait_all_tasks_blocked()
                leader_scope.cancel()  # the leader is cut off mid-batch
                model.release.set()
    assert got[1] == 2, "the call batched after the cancelled leader is answered"


async def test_a_call_cancelled_while_waiting_is_not_run() -> None:
    model = Model()
    b = batcher(model)

    async with anyio.create_task_group() as tg:
        tg.start_soon(b.submit, 0)
        await wait_thread(model.entered)
        with anyio.CancelScope() as waiting:
            waiting.cancel()
            await b.submit(1)
        model.release.set()
    assert model.batches == [[0]]


def cut_off() -> Deadline:
    deadline = Deadline(60)
    deadline.cancel()
    return deadline


async def test_one_callers_budget_never_stops_the_batch_of_the_others() -> None:
    """The budget checks inside the batch see every caller's budget, not the leader's alone (on
    asyncio the cut-off caller leads the second batch)."""
    model = Model()
    b = batcher(model)
    got: dict[int, int] = {}

    async def call(i: int, deadline: Deadline | None = None) -> None:
        if deadline is None:
            got[i] = await b.submit(i)
        else:
            with bound(deadline):
                got[i] = await b.submit(i)

    async with anyio.create_task_group() as tg:
        tg.start_soon(call, 0)
        await wait_thread(model.entered)
        tg.start_soon(call, 1, cut_off())
        tg.start_soon(call, 2)
        await anyio.wait_all_tasks_blocked()
        model.release.set()
    assert sorted(model.batches[1]) == [1, 2] and got[2] == 4


async def test_a_batch_stops_once_every_caller_in_it_gave_up() -> None:
    model = Model()
    b = batcher(model)
    errors: list[BaseException] = []

    async def call(i: int, deadline: Deadline) -> None:
        with bound(deadline):
            try:
                await b.submit(i)
            except BudgetExceeded as e:
                errors.append(e)

    async with anyio.create_task_group() as tg:
        tg.start_soon(b.submit, 0)
        await wait_thread(model.entered)
        tg.start_soon(call, 1, cut_off())
        tg.start_soon(call, 2, cut_off())
        await anyio.wait_all_tasks_blocked()
        model.release.set()
    assert len(errors) == 2 and sorted(model.batches[1]) == [1, 2]


async def test_an_item_answered_with_an_error_fails_alone() -> None:
    model = Model()
    b = batcher(model)
    got: dict[int, int | str] = {}

    async def call(i: int) -> None:
        try:
            got[i] = await b.submit(i)
        except ValueError as e:
            got[i] = str(e)

    async with anyio.create_task_group() as tg:
        tg.start_soon(call, 0)
        await wait_thread(model.entered)
        for i in (1, -2, 3):
            tg.start_soon(call, i)
        await anyio.wait_all_tasks_blocked()
        model.release.set()
    assert got == {0: 0, 1: 2, -2: "-2 is negative", 3: 6} and sorted(model.batches[1]) == [-2, 1, 3]
