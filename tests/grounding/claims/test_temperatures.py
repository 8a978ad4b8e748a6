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
    ],
)
def test_the_same_temperature_on_either_scale_is_supported(
    claims_check: ClaimsCheck, answer: str, context: str
) -> None:
    signal = score(claims_check, answer, context, QUESTION)
    assert not contradictions(signal) and count(signal, "unsupported") == 0
