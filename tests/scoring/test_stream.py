"""Scorer.stream: results as they finish with their index, inputs pulled lazily, clean cancellation."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping

import anyio
import pytest
from anyio.lowlevel import checkpoint

from trustscore import Config, InputError, Sample, Scorer, Signal, TrustScore
from trustscore.fusion._fuser import FusedScore

pytestmark = pytest.mark.anyio

R = "Frank Herbert wrote Dune."


class Timed:
    """A local signal that sleeps as long as the sample's question says (in ms) and records how many
    samples are running, started, and ended by cancellation."""

    name = "timed"
    version = "timed@1"

    def __init__(self) -> None:
        self.running = 0
        self.most_running = 0
        self.started = 0
        self.cancelled = 0

    async def run(self, sample: Sample) -> Signal:
        self.running += 1
        self.started += 1
        self.most_running = max(self.most_running, self.running)
        try:
            await anyio.sleep(float(sample.question.split()[0]) / 1000)
        except anyio.get_cancelled_exc_class():
            self.cancelled += 1
            raise
        finally:
            self.running -= 1
        return Signal(name=self.name, value=0.0 if "bad" in sample.question else 0.5)


class PickyFuser:
    """Raises on the samples whose question holds 'bad': an unexpected bug in one sample's scoring."""

    def predict(self, signals: Mapping[str, Signal]) -> FusedScore:
        if signals["timed"].value == 0.0:
            raise ArithmeticError("fuser bug")
        return FusedScore(score=0.5, calibrated=False, used=["timed"], description="picky")


def make(signal: Timed, *, picky: bool = False) -> Scorer:
    return Scorer(Config(), judges=[], local_signals=[signal], fuser=PickyFuser() if picky else None)


def sample(ms: float, tag: str = "") -> dict[str, str]:
    return {"question": f"{ms} ms {tag}", "response": R}


class Pulled:
    """A generator of samples that counts how many have been taken from it."""

    def __init__(self, delays: list[float]) -> None:
        self.delays = delays
        self.taken = 0

    def __iter__(self) -> Iterator[dict[str, str]]:
        for i, ms in enumerate(self.delays):
            self.taken += 1
            yield sample(ms, f"#{i}")


class Turns:
    """A local signal whose samples finish in a set order: the one of turn k waits until the consumer
    has taken turn k-1's result (the consumer calls ``next``); the question says the turn."""

    name = "turns"
    version = "turns@1"

    def __init__(self, n: int) -> None:
        self.events = [anyio.Event() for _ in range(n)]
        self.events[0].set()
        self.taken = 0

    async def run(self, sample: Sample) -> Signal:
        await self.events[int(sample.question.split()[1])].wait()
        return Signal(name=self.name, value=0.5)

    def next(self) -> None:
        self.taken += 1
        if self.taken < len(self.events):
            self.events[self.taken].set()


def turn(k: int) -> dict[str, str]:
    return {"question": f"turn {k}", "response": R}


async def test_results_come_as_they_finish_with_their_input_index() -> None:
    turns = Turns(3)
    scorer = Scorer(Config(), judges=[], local_signals=[turns])
    got = []
    async with scorer.stream([turn(2), turn(0), turn(1)], concurrency=3) as results:
        async for index, result in results:
            got.append((index, result))
            turns.next()
    assert [i for i, _ in got] == [1, 2, 0]
    assert all(isinstance(r, TrustScore) and r.complete for _, r in got)
    assert [r.signals["turns"].value for _, r in got] == [0.5, 0.5, 0.5]


async def test_inputs_are_pulled_only_as_samples_may_start() -> None:
    signal = Timed()
    source = Pulled([20.0] * 50)
    received = 0
    async with make(signal).stream(iter(source), concurrency=3) as results:
        async for _, _ in results:
            received += 1
            # At most the samples in flight, the one waiting for admission and those whose results came
            # back have been taken. Counted by results received, not by input index: equal sleeps may
            # finish out of order.
            assert source.taken <= 3 + 1 + received
            assert signal.running <= 3
    assert source.taken == 50 and signal.started == 50 and signal.most_running == 3


async def test_a_slow_consumer_holds_back_admission() -> None:
    signal = Timed()
    source = Pulled([0.0] * 20)
    taken_while_consuming = []
    async with make(signal).stream(iter(source), concurrency=2) as results:
        async for _ in results:
            await anyio.sleep(0.01)
            taken_while_consuming.append(source.taken)
    # Finished samples wait for the consumer while holding their place: no run-ahead.
    assert all(taken <= i + 1 + 2 + 1 for i, taken in enumerate(taken_while_consuming))
    assert len(taken_while_consuming) == 20


async def test_async_iterables_are_read_lazily() -> None:
    taken = 0

    async def read() -> AsyncIterator[dict[str, str]]:
        nonlocal taken
        for i in range(10):
            await checkpoint()
            taken += 1
            yield sample(5, f"#{i}")

    async with make(Timed()).stream(read(), concurrency=2) as results:
        seen = sorted([index async for index, _ in results])
    assert seen == list(range(10)) and taken == 10


async def test_invalid_sample_raises_naming_its_index_after_the_ones_before_it() -> None:
    signal = Timed()
    items = [sample(0), sample(0), {"response": R}, sample(0)]
    got = []
    with pytest.raises(InputError, match=r"samples\[2\]\.question"):
        async with make(signal).stream(items, concurrency=1) as results:
            async for index, _ in results:
                got.append(index)
    assert got == [0, 1] and signal.started == 2
    with pytest.raises(InputError, match=r"samples\[1\] is a str"):
        async with make(signal).stream([sample(0), "text"]) as results:  # type: ignore[list-item]
            async for _ in results:
                pass


async def test_an_input_iterator_that_fails_ends_the_stream_with_its_error() -> None:
    def broken() -> Iterator[dict[str, str]]:
        yield sample(0)
        raise OSError("disk read failed")

    got = []
    with pytest.raises(OSError, match="disk read failed"):
        async with make(Timed()).stream(broken()) as results:
            async for index, _ in results:
                got.append(index)
    assert got == [0]


@pytest.mark.parametrize("how", ["break", "aclose", "outer cancel", "consumer error"])
async def test_leaving_early_cancels_the_work_in_flight(how: str, anyio_backend: str) -> None:
    signal = Timed()
    source = Pulled([1.0] + [10_000.0] * 1000)
    tasks_before = _task_count(anyio_backend)
    stream = make(signal).stream(iter(source), concurrency=4)
    with anyio.move_on_after(5) as guard, anyio.CancelScope() as outer:
        try:
            async with stream as results:
                async for index, _ in results:
                    assert index == 0
                    if how == "break":
                        break
                    if how == "aclose":
                        await results.aclose()
                        assert [x async for x in results] == []  # a closed stream is over
                        assert signal.running == 0
                    if how == "consumer error":
                        raise KeyError("consumer")
                    if how == "outer cancel":
                        outer.cancel()
                        await anyio.sleep_forever()
        except KeyError:
            assert how == "consumer error"
    assert outer.cancelled_caught == (how == "outer cancel")
    assert not guard.cancelled_caught, "leaving the stream hung"
    assert signal.running == 0 and signal.cancelled == 4
    assert source.taken <= 6
    assert _task_count(anyio_backend) == tasks_before


@pytest.mark.parametrize("finished_first", [0, 2])
async def test_cancelled_from_outside_while_waiting_for_a_result(finished_first: int) -> None:
    signal = Timed()
    items = [sample(0)] * finished_first + [sample(10_000)] * 3
    got = 0
    with anyio.move_on_after(0.3) as scope:
        async with make(signal).stream(items, concurrency=5) as results:
            async for _ in results:
                got += 1
    assert scope.cancelled_caught and got == finished_first
    assert signal.running == 0 and signal.cancelled == 3


async def test_unexpected_errors_end_the_stream_or_come_back_in_place() -> None:
    signal = Timed()
    scorer = make(signal, picky=True)
    items = [sample(0), sample(5, "bad"), sample(10_000), sample(10_000)]
    with pytest.raises(ArithmeticError, match="fuser bug"):  # the error itself, not a group
        async with scorer.stream(items, concurrency=4) as results:
            async for _ in results:
                pass
    assert signal.running == 0 and signal.cancelled == 2
    items = [sample(0), sample(5, "bad"), sample(10)]
    async with scorer.stream(items, return_exceptions=True) as results:
        got = {index: result async for index, result in results}
    assert isinstance(got[1], ArithmeticError)
    assert isinstance(got[0], TrustScore) and isinstance(got[2], TrustScore)


async def test_the_stream_must_be_entered_and_runs_once() -> None:
    stream = make(Timed()).stream([sample(0)])
    with pytest.raises(RuntimeError, match=r"async with scorer\.stream"):
        async for _ in stream:
            pass
    async with stream as results:
        assert [i async for i, _ in results] == [0]
    with pytest.raises(RuntimeError, match="runs once"):
        async with stream:
            pass


async def test_bad_arguments_are_refused_before_anything_runs() -> None:
    scorer = make(Timed())
    for bad in ("text", {"question": "q", "response": R}, Sample(question="q", response=R), 3):
        with pytest.raises(InputError, match="samples must be an iterable or async iterable"):
            scorer.stream(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="concurrency must be at least 1"):
        scorer.stream([sample(0)], concurrency=0)
    with pytest.raises(ValueError, match="budget"):
        scorer.stream([sample(0)], budget_s=-1)


async def test_empty_input() -> None:
    async with make(Timed()).stream(iter(())) as results:
        assert [x async for x in results] == []


async def test_score_many_keeps_input_order_on_top_of_the_stream() -> None:
    turns = Turns(3)
    order: list[int] = []

    def on_result(index: int, result: TrustScore) -> None:
        order.append(index)
        turns.next()

    scorer = Scorer(Config(), judges=[], local_signals=[turns])
    results = await scorer.score_many([turn(2), turn(0), turn(1)], concurrency=3, on_result=on_result)
    assert order == [1, 2, 0]
    assert [r.sample_id for r in results] == [None] * 3
    assert [r.signals["turns"].value for r in results] == [0.5] * 3
    scorer = Scorer(Config(), judges=[], local_signals=[Timed()])
    results = await scorer.score_many([{**sample(30), "id": "a"}, {**sample(0), "id": "b"}])
    ids = [r.sample_id for r in results]
    assert ids == ["a", "b"]


def _task_count(backend: str) -> int:
    """Tasks alive in this event loop (trio: the children of the root and test's nurseries)."""
    if backend == "asyncio":
        import asyncio

        return len(asyncio.all_tasks())
    import trio

    def count(task: trio.lowlevel.Task) -> int:
        return 1 + sum(count(t) for n in task.child_nurseries for t in n.child_tasks)

    return count(trio.lowlevel.current_root_task())
