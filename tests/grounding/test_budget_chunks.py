"""Every loop of the lexical signal over a text checks the budget between chunks, so a budget is cut
within one chunk of its ceiling however large the context: each match a pattern yields costs one
second on a clock the test moves (tests/deadline_clock.py), never wall time."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from deadline_clock import DeadlineClock

from trustscore import Sample
from trustscore._errors import BudgetExceeded
from trustscore.compute._deadline import Deadline, bound
from trustscore.grounding import LexicalSupport
from trustscore.grounding import _clock as grounding_clock
from trustscore.grounding import _text as grounding_text

CHUNK = 4096
"""Matches between two checks of the budget."""


class TickingPattern:
    """A compiled pattern whose every match moves the clock by one second."""

    def __init__(self, pattern: re.Pattern[str], clock: DeadlineClock) -> None:
        self._pattern = pattern
        self._clock = clock

    def finditer(self, text: str, *args: Any) -> Iterator[re.Match[str]]:
        for match in self._pattern.finditer(text, *args):
            self._clock.advance(1.0)
            yield match

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pattern, name)


@pytest.mark.parametrize(
    ("pattern", "unit"),
    [("_WORD", "word"), ("_CAMEL_WORD", "RestaurantsTakeOut"), ("_ISO_DATE", "2022-01-09"),
     ("_CLOCK_TIME", "17:30")],
)  # fmt: skip
def test_each_pass_of_support_keys_is_cut_within_a_chunk_of_the_ceiling(
    monkeypatch: pytest.MonkeyPatch, pattern: str, unit: str
) -> None:
    clock = DeadlineClock(monkeypatch)
    monkeypatch.setattr(grounding_text, pattern, TickingPattern(getattr(grounding_text, pattern), clock))
    grounding_text.support_keys.cache_clear()
    deadline = Deadline(5.0)
    with bound(deadline), pytest.raises(BudgetExceeded):
        grounding_text.support_keys(" ".join([unit] * (3 * CHUNK)))
    assert clock.monotonic() - deadline.ceiling <= CHUNK


def test_the_clock_time_pass_is_cut_within_a_chunk_of_the_ceiling(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = DeadlineClock(monkeypatch)
    monkeypatch.setattr(grounding_clock, "_ONE_TIME", TickingPattern(grounding_clock._ONE_TIME, clock))
    deadline = Deadline(5.0)
    with bound(deadline), pytest.raises(BudgetExceeded):
        grounding_clock.clock_times(" ".join(["6 pm"] * (3 * CHUNK)))
    assert clock.monotonic() - deadline.ceiling <= CHUNK


def test_the_lexical_signal_on_a_huge_context_is_cut_within_a_chunk_of_the_ceiling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = DeadlineClock(monkeypatch)
    monkeypatch.setattr(grounding_text, "_WORD", TickingPattern(grounding_text._WORD, clock))
    grounding_text.support_keys.cache_clear()
    grounding_text.pair_keys.cache_clear()
    context = " ".join(f"word{i % 97}x" for i in range(10 * CHUNK))
    sample = Sample(question="What?", context=[context], response="The answer is word3x.")
    deadline = Deadline(5.0)
    with bound(deadline), pytest.raises(BudgetExceeded):
        LexicalSupport().score(sample)
    assert clock.monotonic() - deadline.ceiling <= CHUNK
