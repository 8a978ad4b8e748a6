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
        # a narrower statement takes its days out of a wider one
        "It is open from 4 pm to 10 pm Monday to Friday, with extended hours until 11 pm on Fridays.",
        "It operates from 4 pm to 10 pm on weekdays, while on Fridays it is open until 11 pm.",
        # each time with the day it follows, pronouns and all
        "On Fridays, they open from 4 pm to 11 pm, and on Saturdays, they open from 11 am to 11 pm.",
        # each time with its nearest days, whatever the sentence opens with
        "It opens on weekdays and Saturdays, from 4 pm to 10 pm Monday to Thursday and 11 am to 11 pm "
        "on Saturdays.",
        "Open Monday to Saturday, from 16:00 to 22:00 from Monday to Thursday and 11:00 to 23:00 on "
        "Saturday.",
        "It is open Monday to Thursday from 4 pm to 10 pm, and until 11 pm on Friday.",
        # an exception and its own statement
        "From Monday to Friday it opens at 4:00 PM and closes at 10:00 PM, except for Fridays when it "
        "closes at 11 PM.",
        "It is closed on Sundays.",
        "It does not open on Sundays.",
        "It isn't open on Sundays.",
        "It is open every day except Sunday.",
        # happy hour is not the hours; "daily" before a noun is no day; "closed" long before a day
        "Happy hour runs Monday to Friday until 7 pm.",
        "It serves daily specials and is open Monday to Thursday from 4 pm to 10 pm.",
        "The old location closed, and the new one is open Monday through Saturday.",
        "MON-THU: 4 p.m to 10 p.m.",
        "On Sundays, the business remains closed.",
        "It is open Monday to Thursday from 4 pm to 10 pm, with extended hours on Fridays.",
        "It is open Monday to Saturday and closed on Sundays.",
        "It is open every day but Sunday.",
        "It is open from 4 pm to 10 pm Monday to Thursday and Friday from 4 pm to 11 pm.",
        "It is open Mon-Thu, 4pm-10pm (11pm on Fri/Sat).",
        "It is open every day except Sundays, which are closed.",
        "Open from 16:00 to 22:00 on Mondays.",
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


@pytest.mark.parametrize(
    "answer",
    [
        "It is open seven days a week, from 4 pm to 10 pm.",  # Friday and Saturday close at 11 pm
        "Weekend hours are 11 am to 11 pm.",  # no Sunday hours
        "It is open every day except Sunday from 4 pm to 10 pm.",
        "It is open every day except Sunday.",  # and Sunday is "0:0-0:0", read as closed: so Saturday...
        "It is not open on Mondays.",
        "It is open Monday through Sunday.",  # Sunday's "0:0-0:0" gives no hours
        "It is open on Fridays from 4:00 PM to 22:00 PM.",  # "22:00 PM" is 10 pm
        "Open from 4:00 to 22:00 on Mondays.",  # a bare end of a 24-hour range is the morning's
        "It is open every day except Mondays, when it is closed.",
    ],
)
def test_hours_that_a_day_does_not_keep_are_contradicted_in_any_wording(
    claims_check: ClaimsCheck, answer: str
) -> None:
    if answer == "It is open every day except Sunday.":
        record = json.dumps({"name": "X", "hours": {"Monday": "9:0-17:0", "Sunday": "9:0-12:0"}})
        assert len(hours(claims_check, answer, record)[0]) == 1
        return
    assert len(hours(claims_check, answer)[0]) == 1, answer


def test_a_day_name_that_folds_to_no_day_is_skipped(claims_check: ClaimsCheck) -> None:
    for answer in ("The cafe is open on FR\u0130DAY from 4 pm.", "It is open on fr\u0131day."):
        hours(claims_check, answer)  # no error


def test_a_day_the_record_gives_no_hours_for_is_not_an_open_day(claims_check: ClaimsCheck) -> None:
    record = json.dumps({"name": "Cafe Ola", "hours": {"Monday": "9:0-17:0", "Tuesday": "9:0-17:0"}})
    for answer in ("It is open Monday through Sunday.", "It is open every day from 9 am to 5 pm."):
        wrong, _ = hours(claims_check, answer, record)
        assert len(wrong) == 1 and "the hours are Monday 9:00-17:00, Tuesday 9:00-17:00" in wrong[0], answer
    for answer in ("It is closed on Sundays.", "It is open every day except Wednesday to Sunday."):
        assert hours(claims_check, answer, record)[0] == [], answer


def test_a_record_of_zero_hours_alone_gives_open_days_and_no_times(claims_check: ClaimsCheck) -> None:
    record = json.dumps({"name": "Kiosk", "hours": dict.fromkeys(("Monday", "Tuesday"), "0:0-0:0")})
    assert hours(claims_check, "It is open Monday and Tuesday from 9 am to 5 pm.", record)[0] == []
    assert len(hours(claims_check, "It is open Monday through Sunday.", record)[0]) == 1


def test_days_said_to_keep_longer_hours_keep_longer_hours(claims_check: ClaimsCheck) -> None:
    week = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
    record = json.dumps({"name": "X", "hours": {**dict.fromkeys(week, "9:0-21:0"), "Saturday": "10:0-14:0"}})
    shorter = "It is open every day from 9 am to 9 pm, with extended hours on Saturdays."
    assert len(hours(claims_check, shorter, record)[0]) == 1
    assert hours(claims_check, "It is open daily, with reduced hours on Saturdays.", record)[0] == [
        "daily: the context says the hours are Monday 9:00-21:00, Tuesday 9:00-21:00, Wednesday 9:00-21:00, "
        "Thursday 9:00-21:00, Friday 9:00-21:00, Saturday 10:00-14:00"
    ]  # no Sunday; the reduced Saturday holds


def test_a_record_keyed_by_short_day_names_is_read(claims_check: ClaimsCheck) -> None:
    record = json.dumps({"name": "X", "hours": {"Mon": "9:0-17:0", "Tue": "9:0-17:0"}})
    assert hours(claims_check, "It is open on Mondays from 9 am to 5 pm.", record)[0] == []


def test_a_short_day_name_that_is_part_of_a_name_is_no_day(claims_check: ClaimsCheck) -> None:
    record = json.dumps({"name": "Sun Valley Grill", "hours": {"Monday": "9:0-17:0"}})
    assert hours(claims_check, "Sun Valley Grill is open from 9 am to 5 pm.", record)[0] == []


def test_the_times_a_contradicted_statement_reads_are_not_also_unsupported(claims_check: ClaimsCheck) -> None:
    signal = claims_check.score(
        Sample(question="", context=[RECORD], response="It is open Monday to Friday from 4 pm to 10 pm.")
    )
    assert signal.raw["unsupported"] == 0 and signal.raw["contradicted"] == 1  # type: ignore[index]


def test_a_time_in_prose_is_read_against_a_range_of_clock_times_on_the_clock(
    claims_check: ClaimsCheck,
) -> None:
    context = ["The library is open from 9 am to 6 pm on weekdays."]
    late = claims_check.score(Sample(question="", context=context, response="It is open at 7 pm."))
    assert "7 pm" in [c.split(":")[0] for c in late.raw["contradictions"]]  # type: ignore[index,union-attr]
    inside = claims_check.score(Sample(question="", context=context, response="It is still open at 5 pm."))
    assert inside.value == 1.0


@pytest.mark.parametrize(
    ("answer", "wrong"),
    [
        ("It is not open from 4 pm to 10 pm on Mondays.", "not open from 4 pm to 10 pm on Mondays"),
        ("The grill is closed from 4 pm to 10 pm every weekday.", "closed from 4 pm to 10 pm every weekday"),
        ("It is closed from 16:00 to 22:00.", "closed from 16:00 to 22:00"),
        ("It isn't open from 4 pm to 10 pm on Tuesdays.", "isn't open from 4 pm to 10 pm on Tuesdays"),
        ("It is closed outside 4 pm to 10 pm on Mondays.", None),  # only a range itself said closed
        ("It is closed from 2 pm to 4 pm on Saturdays.", None),  # not hours the record gives
        ("It opens at 4 pm and is closed from 11 pm to 4 pm.", None),
        ("It is closed until 4 pm on Mondays.", None),  # one time: when it opens, not a closed range
    ],
)
def test_a_time_range_said_to_be_closed_is_contradicted_where_the_record_opens_then(
    claims_check: ClaimsCheck, answer: str, wrong: str | None
) -> None:
    contradicted, _ = hours(claims_check, answer)
    if wrong is None:
        assert contradicted == [], answer
    else:
        assert len(contradicted) == 1 and contradicted[0].startswith(f"{wrong}: the context says"), (
            contradicted
        )
