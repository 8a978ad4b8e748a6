"""A number the context gives only in another unit of the same measure is contradicted by it, wherever
either stands: the answer's own words give the value no slot to compare in, and the same quantity
converted would be another number. A rank, zero, another measure or a word prose uses otherwise is no
rival."""

from __future__ import annotations

import pytest

from trustscore import Sample, Signal
from trustscore.grounding.claims._signal import ClaimsCheck


def findings(signal: Signal, outcome: str) -> list[str]:
    raw = signal.raw if isinstance(signal.raw, dict) else {}
    return list(raw.get(outcome, []))  # type: ignore[arg-type]


def score(check: ClaimsCheck, context: str, answer: str, question: str = "Tell me about it.") -> Signal:
    return check.score(Sample(question=question, context=[context], response=answer))


@pytest.mark.parametrize(
    ("context", "question", "answer", "said"),
    [
        (
            "The Ridgeback Trail is a 42-kilometre route through the hills; most walkers need three days.",
            "How long is the Ridgeback Trail?",
            "It is 42 miles long, and most hikers take three days.",
            "42 miles: the context says 42-kilometre",
        ),
        (
            "Line 2 runs for 14.6 kilometres and serves 12 stations.",
            "How long is Line 2?",
            "It is 14.6 miles long with 12 stations.",
            "14.6 miles: the context says 14.6 kilometres",
        ),
        (
            "Once cooked, the curry keeps in the fridge for up to 3 days.",
            "How long does it keep?",
            "Stored in the fridge, it lasts for up to 3 weeks.",
            "up to 3 weeks: the context says up to 3 days",
        ),
        # the unit a number word leaves out of its value is named on both sides
        (
            "The recipe needs two cups of stock, added at the end.",
            "How much stock goes in?",
            "Add two tablespoons of stock at the end.",
            "two tablespoons: the context says two cups",
        ),
        (
            "Take a missed dose when you remember. Keep below 25 °C and out of the reach of children.",
            "How should it be stored?",
            "Keep it below 25 °F and out of children's reach.",
            "25: the context says 25°C",
        ),
        # an amount of the same thing, however its words are inflected or how many come before it
        (
            "The crate holds 2 kg of apples, which the baker buys on Fridays.",
            "How much fruit is needed?",
            "You need 2 lb of apple.",
            "2 lb: the context says 2 kg",
        ),
        (
            "The crew paved 42 kilometres of roads near the coast.",
            "How much road was resurfaced?",
            "About 42 miles of road were resurfaced.",
            "About 42 miles: the context says 42 kilometres",
        ),
        (
            "The crew paved 42 kilometres of the new coastal road last year.",
            "How much road was resurfaced?",
            "About 42 miles of road were resurfaced.",
            "About 42 miles: the context says 42 kilometres",
        ),
        (
            "Checked bags heavier than 32 kg are refused at the desk.",
            "What if my bag is heavy?",
            "The desk refuses bags heavier than 32 lb.",
            "32 lb: the context says 32 kg",
        ),
    ],
)
def test_a_number_the_context_gives_in_another_unit_of_its_measure_is_contradicted(
    claims_check: ClaimsCheck, context: str, question: str, answer: str, said: str
) -> None:
    assert findings(score(claims_check, context, answer, question), "contradictions") == [said]


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        # another measure: a length is no time, so the distance is only unsupported
        ("The hotel is 25 minutes by car from the airport.", "The hotel is 25 kilometres from the airport."),
        # a word pint lists as a unit that prose uses for something else
        ("The high jump bar was set at 12 feet.", "She scored 12 points in the final."),
        # a rank is no amount of its unit
        ("The officer was killed three days after the bombings.", "The trial has entered its third week."),
        # a span's ends may be in two units: "45 minutes to an hour" is read with the unit "hour"
        ("Roast the chicken for up to 45 minutes.", "Roast the chicken for 45 minutes to an hour."),
        # a rate's unit is what it is per: "40 per week" counts hours
        ("Most of them work more than 40 hours.", "Most of them work 40 per week."),
        # an amount of another thing: the context gives no amount of salt to compare
        (
            "Pour two cups of hot water into a bowl, then soak the jewelry.",
            "Pour in the water and add two tablespoons of salt.",
        ),
        # zero is zero in any unit
        ("The train's delay was 0 hours on every day of the trial.", "The delay was 0 minutes every day."),
    ],
)
def test_another_measure_a_prose_unit_another_thing_or_zero_is_no_rival(
    claims_check: ClaimsCheck, context: str, answer: str
) -> None:
    assert findings(score(claims_check, context, answer), "contradictions") == []


def test_the_same_quantity_converted_and_a_denied_value_are_not_contradicted(
    claims_check: ClaimsCheck,
) -> None:
    """A conversion is another number; "not 42 miles" where the context says 42 kilometres is true."""
    context = "The Ridgeback Trail is 42 kilometres long, and the ferry crossing takes 1 hour."
    signal = score(claims_check, context, "The ferry crossing takes 60 minutes.")
    assert findings(signal, "contradictions") == []
    signal = score(claims_check, context, "The Ridgeback Trail is not 42 miles long.")
    assert findings(signal, "contradictions") == []


FORECAST = "Hourly forecast. There is 36 percentage chance of rain and 10 mph winds from the South."


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        # the parse splits "km/h" into three words; read as "10 km" it was a distance the context never states
        (
            "There is 36 percentage chance of rain and 10 km/h winds from the South.",
            "10 km/h: the context says 10 mph",
        ),
        ("The winds are 10 km/h.", "10 km/h.: the context says 10 mph"),
    ],
)
def test_a_speed_in_another_unit_is_contradicted(claims_check: ClaimsCheck, answer: str, said: str) -> None:
    assert findings(score(claims_check, FORECAST, answer), "contradictions") == [said]


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (FORECAST, "The winds blow at 10 miles per hour."),  # "per" opens a rate: no percentage of 36
        (FORECAST, "The winds are 10 mi/h."),
        ("The train reaches 120 kph on the new line.", "On the new line the train reaches 120 km/h."),
        # a count "per year" is no speed: it counts what "a year" counts
        ("There are 256 sunny days per year in Sausalito.", "Sausalito has 256 sunny days a year."),
    ],
)
def test_a_speed_in_its_own_unit_however_written_is_supported(
    claims_check: ClaimsCheck, context: str, answer: str
) -> None:
    signal = score(claims_check, context, answer)
    assert isinstance(signal.raw, dict)
    assert findings(signal, "contradictions") == [] and signal.raw["unsupported"] == 0
