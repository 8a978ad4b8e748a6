"""A value the response works out from the context's (a difference, a total, an average) is unsupported,
never contradicted by one value of the context nor supported by a sum that happens to give it; a
duration is the context's in any unit; a value of another rate ("per month") is no rival of one per
hour."""

from __future__ import annotations

import pytest

from tests.grounding.claims.test_precision import contradictions, count, score
from trustscore.grounding.claims._signal import ClaimsCheck

LAPTOP = "The base model costs $1,499. The 1 TB version costs $1,699."
HOUSING = "Officials said 1,200 new housing units were built in 2022 and 950 units in 2021."
BREAD = (
    "Knead the dough for 10 minutes. Let it rise for 1 hour, shape it, and let it rise again for 45 "
    "minutes. Bake for 35 minutes. Let the bread cool for 1 hour before slicing."
)
SALARY = "Aerospace engineers earn about $57 per hour or $118,610 per year on average."
TEACHERS = "The average teacher salary was $61,500 in 2022 and $58,900 in 2021."
INFLATION = "Inflation was 7% in 2021 and 4.8% in 2022."


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (LAPTOP, "The 1 TB version costs $200 more than the base model."),
        (LAPTOP, "The base model is $200 cheaper than the 1 TB version."),
        (LAPTOP, "The 1 TB version costs $300 more than the base model."),
        (HOUSING, "Officials said 250 more housing units were built in 2022 than in 2021."),
        (HOUSING, "A total of 2,150 new housing units were built in 2021 and 2022."),
        (HOUSING, "A total of 2,500 new housing units were built in 2021 and 2022."),
        (HOUSING, "Officials said 2,150 new housing units were built over 2021 and 2022."),
        (TEACHERS, "The average teacher salary rose by $2,600 in 2022."),
        (TEACHERS, "The average teacher salary was $61,500 in 2022, up about 4.4% from 2021."),
        # the change of two amounts, whose one percentage is another thing's
        (
            "In 2022 the state had 412,000 teachers, of whom 76% were women. The average teacher salary was "
            "$61,500 in 2022, up from $58,900 in 2021.",
            "The average teacher salary was $61,500 in 2022, up about 4.4% from 2021.",
        ),
        (INFLATION, "Inflation averaged about 5.9% over 2021 and 2022."),
        # worked out from the wrong two values: 2022's salary and 2021's bonus
        (
            "Dana earned $66,560 in 2022 and $64,000 in 2021. "
            "Her bonus was $3,500 in 2021 and $2,800 in 2022.",
            "Dana's salary and bonus together came to $70,060 in 2022.",
        ),
    ],
)
def test_a_value_worked_out_from_the_contexts_is_unsupported(
    claims_check: ClaimsCheck, context: str, answer: str
) -> None:
    """Which values a difference or total is worked out from is not read: a right one and a wrong one
    alike are unsupported, and neither names one value of the context as the right one."""
    signal = score(claims_check, answer, context=context)
    assert contradictions(signal) == [], answer
    assert count(signal, "unsupported") == 1, answer


@pytest.mark.parametrize(
    "answer",
    [
        "Let the dough rise for 60 minutes after kneading.",
        "Let the loaves rise for 0.75 hours.",
        "Let the bread cool for 60 minutes before slicing.",  # a copy with the unit changed
        "Both rises take 1 hour and 45 minutes.",
    ],
)
def test_a_duration_the_context_states_in_another_unit_is_supported(
    claims_check: ClaimsCheck, answer: str
) -> None:
    context = BREAD + " Both rises take 105 minutes."
    signal = score(claims_check, answer, context=context)
    assert contradictions(signal) == [], answer
    assert count(signal, "unsupported") == 0, answer


@pytest.mark.parametrize(
    ("context", "answer", "named"),
    [
        # the context states the difference itself: the same slot
        (
            "The base model costs $1,499. The 1 TB version costs $200 more than the base model.",
            "The 1 TB version costs $300 more than the base model.",
            "$300",
        ),
        ("Sales rose by 5% in 2022, to 40% of the market.", "Sales rose by 7% in 2022.", "7%"),
        # a duration the context states in no unit at all
        (BREAD, "Bake for 50 minutes.", "50 minutes"),
        (BREAD, "Let it rise for 2 hours, then shape it.", "2 hours"),
        # a total the context states the same way, its sentence split by a stray full stop
        (
            "Reheat foods to 165 °F for 15 seconds within 2 hours. When reheating food, the total time the "
            "temperature. of the food is between 41 °F and 165 °F cannot exceed 2 hours.",
            "The total time the food's temperature is between 41 °F and 165 °F should not exceed 2 minutes.",
            "2 minutes",
        ),
        # a range is no time written in several units
        (
            "Cook, uncovered, for 6 to 9 minutes or until the fish begins to flake. Rest it for 5 minutes.",
            "Cook, uncovered, for 18 to 9 minutes or until the fish begins to flake.",
            "18 to 9 minutes",
        ),
        # nothing to work a total out from: one cost is its rival
        ("The repair cost $500, parts and labour.", "The total cost of the repair was $600.", "$600"),
        # a span and "together with" name no periods or parts that sum
        ("The loan is repaid over 20 years.", "The loan is repaid over 25 years.", "25 years"),
        (
            "Sales grew from $3 billion in 2021 to $4 billion in 2024.",
            "Sales grew to $5 billion over the past three years.",
            "$5 billion",
        ),
        (
            "He founded the firm with $5,000 in 1990 and sold it for $2 million in 2010.",
            "Together with his wife, he founded the firm with $8,000.",
            "$8,000",
        ),
        # the same rate
        (SALARY, "Aerospace engineers earn about $75 per hour on average.", "$75"),
    ],
)
def test_a_changed_value_of_the_same_slot_stays_contradicted(
    claims_check: ClaimsCheck, context: str, answer: str, named: str
) -> None:
    found = contradictions(score(claims_check, answer, context=context))
    assert any(named in c for c in found), (answer, found)


def test_a_value_of_another_rate_is_no_rival(claims_check: ClaimsCheck) -> None:
    """ "$9,884 per month" is not "$57 per hour" changed: the context gives no monthly pay to compare."""
    signal = score(
        claims_check, "Aerospace engineers earn about $9,884 per month on average.", context=SALARY
    )
    assert contradictions(signal) == []
    per_year = score(
        claims_check, "Aerospace engineers earn about $118,600 per year on average.", context=SALARY
    )
    assert contradictions(per_year) == []
    assert count(per_year, "supported") == 1  # read against the yearly pay, an estimate of it


def test_a_denied_duration_stays_a_contradicted_negation(claims_check: ClaimsCheck) -> None:
    """The same time in another unit supports a value, not a denial of it."""
    found = contradictions(score(claims_check, "It does not rise for 60 minutes.", context=BREAD))
    assert found, "a denial of the stated rise read as supported"


def test_a_bare_number_worked_out_is_unsupported(claims_check: ClaimsCheck) -> None:
    """Sums of small bare numbers (a list's items, a step's number) reach almost any small number: a
    bare total is never supported by arithmetic, nor contradicted by one of the numbers."""
    signal = score(claims_check, "Together Ana and Ben scored 9.", context="Ana scored 4 and Ben scored 5.")
    assert contradictions(signal) == []
    assert count(signal, "unsupported") == 1


def test_a_range_is_not_worked_out(claims_check: ClaimsCheck) -> None:
    """ "60-70 degrees" gives two values and works out none, whatever the sentence says of a total: it
    stays the context's range changed."""
    context = (
        "The comfort index counts the days within the comfort range of 70-80 degrees. "
        "The hottest day reached 95 degrees."
    )
    answer = "In total, the index counts the days within the comfort range of 60-70 degrees."
    assert contradictions(score(claims_check, answer, context=context)) == [
        "60-70 degrees: the context says 70-80 degrees"
    ]
