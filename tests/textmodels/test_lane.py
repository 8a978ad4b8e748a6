"""The encoder lane: one thread runs every forward, batches concurrent callers, and keeps each
caller's budget its own."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import numpy as np
import pytest
from deadline_clock import DeadlineClock
from lane_watch import LaneSubmissions

from trustscore._errors import BudgetExceeded
from trustscore.compute._deadline import Deadline, bound, checkpoint
from trustscore.textmodels._lane import EncoderLane


class Recorder:
    """An encode function: vector = [len(text)], records rounds and threads; can be held."""

    def __init__(self) -> None:
        self.rounds: list[list[str]] = []
        self.threads: set[int] = set()
        self.hold = threading.Event()
        self.hold.set()
        self.entered = threading.Event()

    def __call__(self, texts: list[str], batch_size: int) -> np.ndarray:
        self.entered.set()
        self.threads.add(threading.get_ident())
        self.rounds.append(list(texts))
        while not self.hold.wait(0.01):
            checkpoint()
        return np.array([[float(len(t))] for t in texts], dtype=np.float32)


def test_every_forward_runs_on_one_thread_and_each_caller_gets_its_rows() -> None:
    encode = Recorder()
    lane = EncoderLane(encode, "test-lane")
    texts = [[f"text {i}", "shared", "x" * i] for i in range(20)]
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda t: lane.run(t, 4), texts))
    for t, v in zip(texts, got, strict=True):
        assert v[:, 0].tolist() == [len(x) for x in t]
    assert len(encode.threads) == 1 and threading.get_ident() not in encode.threads


def test_callers_that_queue_during_a_forward_share_the_next_round(lane_submissions: LaneSubmissions) -> None:
    encode = Recorder()
    encode.hold.clear()
    lane = EncoderLane(encode, "test-lane")
    with ThreadPoolExecutor(4) as pool:
        first = pool.submit(lane.run, ["first"], 8)
        assert encode.entered.wait(5)
        later = [pool.submit(lane.run, [f"later {i}", "common"], 8) for i in range(3)]
        lane_submissions.wait_for(4)
        encode.hold.set()
        assert first.result(5)[0, 0] == 5.0
        assert [f.result(5)[1, 0] for f in later] == [6.0] * 3
    assert encode.rounds[0] == ["first"]
    assert sorted(encode.rounds[1]) == sorted(["later 0", "later 1", "later 2", "common"])  # one round


def test_texts_of_the_round_in_progress_are_not_encoded_again_in_the_next(
    lane_submissions: LaneSubmissions,
) -> None:
    """A caller that missed the cache while the round encoding its texts ran (another sample of the same
    context) gets them from that round: only its new texts are encoded."""
    encode = Recorder()
    encode.hold.clear()
    lane = EncoderLane(encode, "test-lane")
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(lane.run, ["context a", "context b", "answer 1"], 8)
        assert encode.entered.wait(5)
        second = pool.submit(lane.run, ["context b", "answer 22", "context a"], 8)
        lane_submissions.wait_for(2)
        encode.hold.set()
        assert first.result(5)[:, 0].tolist() == [9.0, 9.0, 8.0]
        assert second.result(5)[:, 0].tolist() == [9.0, 9.0, 9.0]
    assert encode.rounds == [["answer 1", "context a", "context b"], ["answer 22"]]
    assert lane.run(["context a"], 8)[0, 0] == 9.0  # a round of reused texts only encodes nothing
    assert len(encode.rounds) == 2


def test_a_queued_caller_waits_behind_others_uncharged_and_then_gets_its_vectors(
    lane_submissions: LaneSubmissions, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Time queued behind another caller's forward is not the caller's own work: its budget runs out
    in the queue (by the clock the deadline reads) and it is still served once the lane takes it."""
    clock = DeadlineClock(monkeypatch)
    encode = Recorder()
    encode.hold.clear()
    lane = EncoderLane(encode, "test-lane")
    deadline = Deadline(1.0)

    def budgeted() -> np.ndarray:
        with bound(deadline):
            return lane.run(["budgeted"], 8)

    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(lane.run, ["first"], 8)
        assert encode.entered.wait(5)
        queued = pool.submit(budgeted)
        lane_submissions.wait_for(2)
        clock.advance(1.5)  # past its 1 s budget, short of the 2 s ceiling
        encode.hold.set()
        assert first.result(5)[0, 0] == 5.0
        assert queued.result(5)[0, 0] == 8.0
    assert encode.rounds == [["first"], ["budgeted"]]


def test_a_caller_queued_to_its_ceiling_stops_waiting_and_the_others_still_get_their_vectors() -> None:
    encode = Recorder()
    encode.hold.clear()
    lane = EncoderLane(encode, "test-lane")

    def budgeted() -> np.ndarray:
        with bound(Deadline(0.2)):
            return lane.run(["budgeted"], 8)

    with ThreadPoolExecutor(4) as pool:
        patient = pool.submit(lane.run, ["patient"], 8)
        assert encode.entered.wait(5)
        short = pool.submit(budgeted)
        with pytest.raises(BudgetExceeded):
            short.result(5)
        encode.hold.set()
        assert patient.result(5)[0, 0] == 7.0


def test_the_forward_is_cut_only_when_every_caller_it_serves_is_out_of_budget() -> None:
    encode = Recorder()
    encode.hold.clear()
    lane = EncoderLane(encode, "test-lane")

    def budgeted(text: str) -> np.ndarray:
        with bound(Deadline(0.2)):
            return lane.run([text], 8)

    with ThreadPoolExecutor(4) as pool:
        a, b = pool.submit(budgeted, "a"), pool.submit(budgeted, "b")
        for f in (a, b):
            with pytest.raises(BudgetExceeded):
                f.result(5)
        # The held forward saw its deadline over (both callers gone) and stopped: the lane is free.
        encode.hold.set()
        assert pool.submit(lane.run, ["after"], 8).result(5)[0, 0] == 5.0


def test_an_encoder_error_reaches_every_caller_of_the_round_and_the_lane_keeps_serving() -> None:
    calls = []

    def encode(texts: list[str], batch_size: int) -> np.ndarray:
        calls.append(texts)
        if "bad" in texts:
            raise RuntimeError("tokenizer exploded")
        return np.ones((len(texts), 2), dtype=np.float32)

    lane = EncoderLane(encode, "test-lane")
    with pytest.raises(RuntimeError, match="tokenizer exploded"):
        lane.run(["bad"], 8)
    assert lane.run(["good"], 8).shape == (1, 2)


def test_a_waiting_caller_sleeps_until_its_result_instead_of_polling(monkeypatch: pytest.MonkeyPatch) -> None:
    import trustscore.textmodels._lane as lane_module

    looks: list[int] = []
    monkeypatch.setattr(lane_module, "checkpoint", lambda: looks.append(1) or checkpoint())
    waits: list[float | None] = []
    waiting_started = threading.Event()

    class WatchedEvent(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            waits.append(timeout)
            waiting_started.set()
            return super().wait(timeout)

    monkeypatch.setattr(lane_module, "threading", SimpleNamespace(Event=WatchedEvent))
    encode = Recorder()
    encode.hold.clear()
    lane = EncoderLane(encode, "test-lane")

    def budgeted() -> np.ndarray:
        with bound(Deadline(60)):
            return lane.run(["waits"], 8)

    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(budgeted)
        assert encode.entered.wait(5) and waiting_started.wait(5)
        encode.hold.set()
        assert waiting.result(5)[0, 0] == 5.0
    # One wait for the whole budget, woken by the result; a poller would wait a few ms at a time.
    assert waits and all(w is not None and w > 30 for w in waits), waits
    assert looks == []


def test_a_cancelled_caller_stops_waiting_at_once_and_the_lane_drops_its_work() -> None:
    encode = Recorder()
    encode.hold.clear()
    lane = EncoderLane(encode, "test-lane")
    deadline = Deadline(60)

    def budgeted() -> np.ndarray:
        with bound(deadline):
            return lane.run(["cancelled"], 8)

    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(budgeted)
        assert encode.entered.wait(5)
        deadline.cancel()
        # Answered while the forward is still held: the caller stopped waiting without it (its budget,
        # 60 s, would have kept a poller waiting far longer than this).
        with pytest.raises(BudgetExceeded):
            waiting.result(5)
        # The held forward served only the cancelled caller: it stops at its next checkpoint.
        encode.hold.set()
        assert pool.submit(lane.run, ["after"], 8).result(5)[0, 0] == 5.0
