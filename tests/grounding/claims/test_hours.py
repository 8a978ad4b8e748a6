"""Opening hours are read day by day: a range said of named days is compared with those days' hours."""

from __future__ import annotations

import json

import pytest

from trustscore import Sample, Signal
from trustscore.grounding.claims._signal import ClaimsCheck

RECORD = json.dumps(
    {
        "name": "Holdren's Grill",
        "hours": {
            "Monday": "16:0-22:0",
            "Tuesday": "16:0-22:0",
            "Wednesday": "16:0-22:0",
            "Thursday": "16:0-22:0",
            "Friday": "16:0-23:0",
            "Saturday": "11:0-23:0",
            "Sunday": "0:0-0:0",
        },
    }
)


def hours(check: ClaimsCheck, answer: str, record: str = RECORD) -> tuple[list[str], list[str]]:
    """The contradictions and the supported spans of kind "hours"."""
    signal: Signal = check.score(Sample(question="", context=[record], response=answer))
    raw = signal.raw if isinstance(signal.raw, dict) else {}
    said = [str(s.label) for s in signal.spans]
    return list(raw.get("contradictions", [])), said  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "answer",
    [
        "Holdren's Grill is open Monday to Thursday from 4 pm to 10 pm.",
        "It opens from 4 pm to 10 pm Monday through Thursday and from 11 am to 11 pm on Saturday.",
        "On weekdays it opens at 4:00 pm.",
        "Mon-Thu: 16:00-22:00; Sat 11:00-23:00 are its hours.",
        "On Fridays it is open from 4 p.m. until 11 p.m.",
        "It is open from 4 pm to 10 pm.",  # no day named: some day opens and closes at these times
        "It closes at midnight on Sundays.",  # a day open around the clock (or unknown) is not compared
        # a narrower statement takes its days out of a wider one
        "It is open from 4 pm to 10 pm Monday to Friday, with extended hours until 11 pm on Fridays.",
        "It operates from 4 pm to 10 pm on weekdays, while on Fridays it is open until 11 pm.",
        # each time with the day it follows, pronouns and all
        "On Fridays, they open from 4 pm to 11 pm, and on Saturdays, they open from 11 am to 11 pm.",
    ],
)
def test_hours_said_of_the_days_the_record_gives_them_for_are_supported(
    claims_check: ClaimsCheck, answer: str
) -> None:
    wrong, _ = hours(claims_check, answer)
    assert wrong == [], answer


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (
            "It is open Monday to Friday from 4 pm to 10 pm.",
            "Monday to Friday from 4 pm to 10 pm: the context says the hours are Monday 16:00-22:00, "
            "Tuesday 16:00-22:00, Wednesday 16:00-22:00, Thursday 16:00-22:00, Friday 16:00-23:00",
        ),
        (
            "It operates from 4 pm to 10 pm on weekdays and from 11 am to 10 pm on Saturdays.",
            "4 pm to 10 pm on weekdays: the context says the hours are Monday 16:00-22:00, "
            "Tuesday 16:00-22:00, Wednesday 16:00-22:00, Thursday 16:00-22:00, Friday 16:00-23:00",
        ),
        (
            "On Saturday it opens at noon.",
            "Saturday it opens at noon: the context says the hours are Saturday 11:00-23:00",
        ),
        ("It is closed on Mondays.", "Mondays: the context says the hours are Monday 16:00-22:00"),
    ],
)
def test_hours_that_one_named_day_does_not_keep_are_contradicted(
    claims_check: ClaimsCheck, answer: str, said: str
) -> None:
    wrong, _ = hours(claims_check, answer)
    assert wrong == [said]


def test_a_day_the_record_gives_no_hours_for_is_not_an_open_day(claims_check: ClaimsCheck) -> None:
    record = json.dumps({"name": "Cafe Ola", "hours": {"Monday": "9:0-17:0", "Tuesday": "9:0-17:0"}})
    for answer in ("It is open Monday through Sunday.", "It is open every day from 9 am to 5 pm."):
        wrong, _ = hours(claims_check, answer, record)
        assert len(wrong) == 1 and "the hours are Monday 9:00-17:00, Tuesday 9:00-17:00" in wrong[0], answer
    for answer in ("It is closed on Sundays.", "It is open every day except Wednesday to Sunday."):
        assert hours(claims_check, answer, record)[0] == [], answer


def test_a_short_day_name_that_is_part_of_a_name_is_no_day(claims_check: ClaimsCheck) -> None:
    record = json.dumps({"name": "Sun Valley Grill", "hours": {"Monday": "9:0-17:0"}})
    assert hours(claims_check, "Sun Valley Grill is open from 9 am to 5 pm.", record)[0] == []


def test_the_times_a_contradicted_statement_reads_are_not_also_unsupported(claims_check: ClaimsCheck) -> None:
    signal = claims_check.score(
        Sample(question="", context=[RECORD], response="It is open Monday to Friday from 4 pm to 10 pm.")
    )
    assert signal.raw["unsupported"] == 0 and signal.raw["contradicted"] == 1  # type: ignore[index]
