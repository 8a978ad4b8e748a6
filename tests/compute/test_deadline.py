"""Deadline.wake_on_cancel: how a blocked waiter learns of a cancellation without polling."""

from __future__ import annotations

import threading

from trustscore.compute.deadline import Deadline


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
