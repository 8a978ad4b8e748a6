"""A temperature is compared across scales: the same number on another scale is a changed fact, the
same heat converted (as conversions round it) is the same fact."""

from __future__ import annotations

import pytest

from tests.grounding.claims.test_precision import contradictions, count, score
from trustscore.grounding.claims._signal import ClaimsCheck

WEATHER = "The high on Tuesday was 60°F in Denver."
LAKE = "The water of the lake reached 25°C on Sunday."
OVEN = "Bake the bread at 180 degrees Celsius for 20 minutes."
QUESTION = "What do we know?"


@pytest.mark.parametrize(
    ("answer", "context", "said"),
    [
        ("The high on Tuesday was 60°C in Denver.", WEATHER, "60: the context says 60°F"),
        (
            "Bake the bread at 180 degrees Fahrenheit for 20 minutes.",
            OVEN,
            "180 degrees: the context says 180 degrees Celsius",
        ),
        ("Bake the bread at 200°C for 20 minutes.", OVEN, "200°: the context says 180 degrees Celsius"),
        ("Bake the bread at 400°F for 20 minutes.", OVEN, "400: the context says 180 degrees Celsius"),
        # a bound on the other scale is read on it: 25°C is 77°F
        ("The water of the lake reached over 80°F on Sunday.", LAKE, "over 80: the context says 25°C"),
    ],
)
def test_another_temperature_is_contradicted(
    claims_check: ClaimsCheck, answer: str, context: str, said: str
) -> None:
    assert contradictions(score(claims_check, answer, context, QUESTION)) == [said]


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        ("The water of the lake reached 77°F on Sunday.", LAKE),
        ("The high on Tuesday was 16°C in Denver.", WEATHER),
        ("The high on Tuesday was 60 degrees in Denver.", WEATHER),
        ("Bake the bread at 356°F for 20 minutes.", OVEN),
        ("Bake the bread at 350°F for 20 minutes.", OVEN),  # an oven's heat rounded to 25 degrees
        # a whole sentence copied with the heat converted
        (
            "Set the oven to 425°F and roast the potatoes.",
            "Set the oven to 220 degrees Celsius and roast the potatoes.",
        ),
    ],
)
def test_the_same_temperature_on_either_scale_is_supported(
    claims_check: ClaimsCheck, answer: str, context: str
) -> None:
    signal = score(claims_check, answer, context, QUESTION)
    assert not contradictions(signal) and count(signal, "unsupported") == 0


def test_a_fever_is_not_rounded_as_an_oven_is(claims_check: ClaimsCheck) -> None:
    # 39°C is 102.2°F: within an oven's rounding, not within a degree
    context = "Her temperature rose to 39°C overnight, the nurse said."
    signal = score(
        claims_check, "Her temperature rose to 100°F overnight, the nurse said.", context, QUESTION
    )
    assert count(signal, "supported") < 2
