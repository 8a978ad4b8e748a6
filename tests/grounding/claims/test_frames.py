"""A number the context never states meets the context's number between the same words as a rival:
"3561 Coast Village Rd" against the record's "1187 Coast Village Rd". Words that name no slot ("per
year", "a total of"), a number set off by commas after a name, and a person's age are left alone."""

from __future__ import annotations

import json

import pytest

from tests.grounding.claims.test_precision import contradictions, count, score
from trustscore.grounding.claims._signal import ClaimsCheck

QUESTION = "What does the text say?"
RECORD = json.dumps(
    {"name": "Khao Kaeng", "address": "1187 Coast Village Rd", "city": "Montecito", "review_count": 135}
)
TYRES = "Inflate the tyres to 32 psi. The car's top speed is 120 mph, and its engine makes 300 Nm of torque."
PAY = (
    "Automotive technicians in Alaska earn about $23.70 per hour or $49,400 per year. Technicians in "
    "aerospace manufacturing earn about $32 per hour or $66,300 per year on average."
)


def test_a_number_before_the_records_words_for_another_is_contradicted(claims_check: ClaimsCheck) -> None:
    # the record's field names no unit the response's number gives: only the words around them agree
    answer = "Khao Kaeng is located at 3561 Coast Village Rd in Montecito."
    assert contradictions(score(claims_check, answer, RECORD, QUESTION)) == ["3561: the context says 1187"]


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("In aerospace they earn about $32 per hour or $99,450 per year on average.", "$66,300"),
        ("In Alaska the pay is about $23.70 per hour or $51,000 per year.", "$49,400"),
    ],
)
def test_the_rival_is_the_number_whose_words_agree_most(
    claims_check: ClaimsCheck, answer: str, said: str
) -> None:
    signal = score(claims_check, answer, PAY, QUESTION)
    assert [c.split(": the context says ")[1] for c in contradictions(signal)] == [said]


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        # a bound or an estimate may be a rounding or a sum of the values its words stand among
        ("In aerospace the pay is $32 per hour or about $60,000 per year on average.", PAY),
        ("With parking, a weekday night costs at least $144 per night.", "Parking costs $15 per night."),
        # a frame two values share: the answer's may be their sum
        (
            "Together the two candidates spent $20.5 million on the campaign.",
            "Smith spent $12 million on the campaign, while Jones spent $8.5 million on the campaign.",
        ),
        # a year says when, not which value: a change is no restatement of the revenue
        (
            "Revenue grew by $400 million in fiscal 2023.",
            "Acme reported revenue of $4.2 billion in fiscal 2023.",
        ),
        # a unit read from part of its words ("pounds" of "pounds per square inch") is no other measure
        ("Inflate the tyres to 32 pounds per square inch.", TYRES),
        ("Its engine makes 300 newton metres of torque.", TYRES),
    ],
)
def test_a_derived_or_approximate_value_is_no_framed_contradiction(
    claims_check: ClaimsCheck, answer: str, context: str
) -> None:
    assert contradictions(score(claims_check, answer, context, QUESTION)) == []


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        # "per year" names no slot: another number there may be another thing's
        ("A membership costs $70,000 per year.", PAY),
        # set off by commas after a name: a score, a seed or an age, not a slot of the name
        ("Carlos Colina, 96, faces charges.", "Carlos Colina, 32, was arraigned on Monday."),
        # the same digits, which the parse reads at another scale on one side, are no sure rival
        (
            "scheme will only affect firms with 250 or more staff - an estimated 10 million in "
            "private sector and five million in public sector .",
            "Big Society good deeds scheme will only affect firms with 250 or more staff The policy "
            "will apply to workers at firms with at least 250 staff - an estimated 10 million in the "
            "private sector and five million in the public sector. Volunteers would be able to take the "
            "time to volunteer in a block",
        ),
    ],
)
def test_words_that_name_no_slot_leave_the_number_unsupported(
    claims_check: ClaimsCheck, answer: str, context: str
) -> None:
    signal = score(claims_check, answer, context, QUESTION)
    assert contradictions(signal) == []
    assert count(signal, "unsupported") == 1


@pytest.mark.parametrize(
    ("answer", "context", "said"),
    [
        (
            "Bring it to a boil and simmer for 15 hours.",
            "Add the pork and bring to a boil. Simmer for 15 minutes, then serve.",
            "15 hours: the context says 15 minutes",
        ),
        (
            "Some areas are receiving up to 400 cm of rain annually.",
            "Parts of the coast are receiving up to 400 inches of rain a year.",
            "up to 400 cm: the context says up to 400 inches",
        ),
    ],
)
def test_the_same_number_in_another_unit_of_measure_is_contradicted(
    claims_check: ClaimsCheck, answer: str, context: str, said: str
) -> None:
    assert contradictions(score(claims_check, answer, context, QUESTION)) == [said]


def test_a_number_word_in_the_contexts_words_for_another_is_contradicted(claims_check: ClaimsCheck) -> None:
    answer = "Police have released CCTV images of two men they want to speak to."
    context = "Officers have released CCTV images of three men they are keen to speak to about the attack."
    assert contradictions(score(claims_check, answer, context, QUESTION)) == ["two: the context says three"]


def test_the_same_count_of_another_thing_is_no_unit_change(claims_check: ClaimsCheck) -> None:
    # "reviews" and "pupils" count things; they measure nothing another unit could restate
    answer = "The school has 420 reviews online."
    context = "The school has 420 pupils and 18 teachers."
    assert not any("reviews" in c for c in contradictions(score(claims_check, answer, context, QUESTION)))
