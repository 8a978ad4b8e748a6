"""ChatRequest refuses sampling parameters vLLM would reject, before any request is sent."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from trustscore.llm import ChatRequest, Message

MESSAGES = [Message(role="user", content="hi")]


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"temperature": 2.01}, "less than or equal to 2"),
        ({"temperature": -0.1}, "greater than or equal to 0"),
        ({"temperature": math.nan}, "finite number"),
        ({"top_p": 0.0}, "greater than 0"),
        ({"top_p": 1.5}, "less than or equal to 1"),
        ({"n": 3, "temperature": 0.0}, "set temperature > 0 or n = 1"),
    ],
)
def test_sampling_parameters_outside_vllms_bounds_are_refused(
    settings: dict[str, float], message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        ChatRequest(messages=MESSAGES, **settings)  # type: ignore[arg-type]


def test_the_edges_of_vllms_ranges_are_accepted() -> None:
    ChatRequest(messages=MESSAGES, temperature=2.0, top_p=1.0, n=4)
    ChatRequest(messages=MESSAGES, temperature=0.0, n=1)
