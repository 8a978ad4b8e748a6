"""A clock time is one value however it is written, on both sides of lexical support."""

from __future__ import annotations

import pytest

from trustscore import Sample
from trustscore.grounding._clock import clock_times, clock_within
from trustscore.grounding._lexical import LexicalSupport
from trustscore.grounding._text import is_supported, pair_keys, support_keys, words


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("It closes at 7 pm.", [("7 pm", [19.0])]),
        ("from 9 a.m. to 5 p.m. daily", [("9 a.m.", [9.0]), ("5 p.m.", [17.0])]),
        ("at 5.30pm", [("5.30pm", [17.5])]),
        ("noon to midnight", [("noon", [12.0]), ("midnight", [0.0])]),
        ('"Monday": "11:0-21:0"', [("11:0", [11.0]), ("21:0", [21.0])]),  # a record's: 24-hour
        ("the 9:30 train", [("9:30", [9.5, 21.5])]),
        ("13 am, 9:75, 2:30:15 and 9 amazing days", []),
        ("until 20:00 PM", [("20:00 PM", [20.0])]),  # a 24-hour time with its half said again
    ],
)
def test_clock_times_are_read_with_every_hour_they_may_be(
    text: str, read: list[tuple[str, list[float]]]
) -> None:
    assert [(text[t.start : t.end], sorted(t.hours)) for t in clock_times(text)] == read


@pytest.mark.parametrize(
    ("context", "answer", "supported"),
    [
        ("open from 9 am to 6 pm", "It opens at 9:00 and closes at 18:00.", True),
        ("open from 9:00 to 18:00", "It opens at 9 am and closes at 6 pm.", True),
        ('{"hours": {"Monday": "11:0-21:0"}}', "It opens at 11 am and closes at 9 pm.", True),
        ("the cafe closes at 17:30", "The cafe closes at 5:30 pm.", True),
        ('{"hours": {"Monday": "11:0-21:0"}}', "It opens at 11 pm.", False),
        ("open from 9 am to 6 pm", "It closes at 7 pm.", False),
        ("open from 9 am to 6 pm", "It opens at 9 pm.", False),
        ("the 7 rooms close at 8 pm", "It closes at 7 pm.", False),
    ],
)
def test_a_time_is_supported_only_by_the_same_time(context: str, answer: str, supported: bool) -> None:
    keys = support_keys(context)
    times = [w for w in words(answer) if w.key.startswith("clock")]
    assert times and all(is_supported(w, keys) for w in times) == supported


def test_a_context_time_pairs_with_its_neighbours_in_every_spelling() -> None:
    assert ("open", "clock 6:00?") in pair_keys("It is open 18:00 to 22:00.")
    assert ("open", "clock 18:00") in pair_keys("It is open 6 pm to 10 pm.")


def test_lexical_support_reads_a_rewritten_time_as_supported() -> None:
    context = "The library is open from 9 am to 6 pm on weekdays."
    signal = LexicalSupport().score(
        Sample(question="", context=[context], response="On weekdays it is open from 9:00 to 18:00.")
    )
    assert signal.value == 1.0, signal.explanation


@pytest.mark.parametrize(
    ("stated", "said", "within"),
    [
        ("from 9 am to 6 pm", "7 pm", False),  # 7 lies between 6 and 9, not between 9:00 and 18:00
        ("from 9 am to 6 pm", "10:30 am", True),
        ("from 5 pm to 2 am", "1 am", True),  # past midnight
        ("from 5 pm to 2 am", "3 am", False),
        ("from 9:00 to 6:00", "10:00", True),  # bare times: either half of the day
        ("from 9:00 to 6:00", "7:00", False),
        ("from 1 to 2 hours", "90 minutes", None),  # no clock times: read as numbers
        ("at 6 pm", "6 pm", None),  # one time is no range
    ],
)
def test_a_time_within_a_range_of_clock_times_is_read_on_the_clock(
    stated: str, said: str, within: bool | None
) -> None:
    assert clock_within(stated, said) is within
