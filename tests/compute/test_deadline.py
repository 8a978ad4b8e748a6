"""Deadline: how a blocked waiter learns of a cancellation without polling, and a clock that stops
while its holder waits on others' work."""

from __future__ import annotations

import threading

import pytest
from deadline_clock import DeadlineClock

from trustscore.compute._deadline import Deadline, bound, checkpoint, clock_stopped
from trustscore.compute._torch_import import loading_models


def test_cancel_sets_every_registered_event_once_and_over_turns_true() -> None:
    deadline = Deadline(60)
    a, b = threading.Event(), threading.Event()
    deadline.wake_on_cancel(a)
    deadline.wake_on_cancel(b)
    assert not a.is_set() and not b.is_set() and not deadline.over
    deadline.cancel()
    assert a.is_set() and b.is_set() and deadline.over


def test_an_event_registered_after_the_cancel_is_set_at_once() -> None:
    deadline = Deadline(60)
    deadline.cancel()
    late = threading.Event()
    deadline.wake_on_cancel(late)
    assert late.is_set()


def test_a_deadline_that_runs_out_does_not_set_the_events() -> None:
    """Running out is a time the waiter sleeps until; only cancel() wakes it early."""
    deadline = Deadline(0)
    wake = threading.Event()
    deadline.wake_on_cancel(wake)
    assert deadline.over and not wake.is_set()


def test_a_stopped_clock_moves_the_deadline_by_the_time_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = DeadlineClock(monkeypatch)
    deadline = Deadline(10)
    clock.advance(5)
    deadline.hold()
    deadline.hold()  # holds nest: the clock runs again after the last release
    clock.advance(8)
    deadline.release()
    clock.advance(1)
    assert not deadline.over and deadline.seconds_left() == 5  # stopped: as if it restarted now
    deadline.release()
    assert deadline.seconds_left() == 5
    clock.advance(4.5)
    assert not deadline.over
    clock.advance(0.5)
    assert deadline.over


def test_a_stopped_clock_ends_at_the_ceiling_of_twice_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = DeadlineClock(monkeypatch)
    deadline = Deadline(10)
    deadline.hold()
    clock.advance(19.5)
    assert not deadline.over
    clock.advance(0.5)
    assert deadline.over and deadline.seconds_left() <= 0


def test_a_deadline_over_before_its_clock_stops_stays_over(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = DeadlineClock(monkeypatch)
    deadline = Deadline(10)
    clock.advance(11)
    deadline.hold()
    assert deadline.over
    deadline.release()
    assert deadline.over


def test_clock_stopped_stops_the_bound_deadline_only(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = DeadlineClock(monkeypatch)
    with clock_stopped():
        checkpoint()
    deadline = Deadline(1)
    with bound(deadline), clock_stopped():
        clock.advance(1.5)
        checkpoint()
    assert not deadline.over


def test_waiting_for_the_model_loading_lock_is_not_charged(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = DeadlineClock(monkeypatch)
    deadline = Deadline(1)
    with bound(deadline), loading_models():
        clock.advance(1.5)
    assert not deadline.over
