"""A number written as a bound or an estimate is met by the context's number, not compared as written."""

from __future__ import annotations

import pytest

from tests.grounding.claims.test_precision import contradictions, count, score
from trustscore.grounding.claims._signal import ClaimsCheck

REVIEWS = "The restaurant has 212 reviews and a rating of 4.5 stars."
STAFF = "The company employs 5,000 people in its three factories near Leeds."
PRICES = "Prices rose by 12% last year, the statistics office said."
DEAL = "The deal was worth $4.2 billion."
RECORD = '{"name": "Cafe Rio", "review_count": 212, "stars": 4.5, "city": "Tampa"}'
QUESTION = "What do we know?"


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        ("The restaurant has over 200 reviews.", REVIEWS),
        ("The restaurant has more than 200 reviews.", REVIEWS),
        ("The restaurant has at least 210 reviews.", REVIEWS),
        ("The restaurant has fewer than 250 reviews.", REVIEWS),
        ("The restaurant has about 200 reviews.", REVIEWS),
        ("The restaurant has almost 220 reviews.", REVIEWS),
        ("The deal was worth more than $4 billion.", DEAL),
        ("Cafe Rio in Tampa has over 200 reviews.", RECORD),
        # a copied sentence whose number is now a bound: the copy check sees "more than 4" for "5"
        ("The company employs more than 4,000 people in its three factories near Leeds.", STAFF),
        ("Prices rose by more than 10% last year, the statistics office said.", PRICES),
    ],
)
def test_a_bound_the_context_meets_is_supported(claims_check: ClaimsCheck, answer: str, context: str) -> None:
    signal = score(claims_check, answer, context, QUESTION)
    assert not contradictions(signal) and count(signal, "unsupported") == 0


@pytest.mark.parametrize(
    ("answer", "context", "said"),
    [
        ("The restaurant has more than 300 reviews.", REVIEWS, "more than 300: the context says 212"),
        ("The restaurant has nearly 500 reviews.", REVIEWS, "nearly 500: the context says 212"),
        ("The restaurant has about 300 reviews.", REVIEWS, "about 300: the context says 212"),
        ("Cafe Rio has nearly 4 stars.", RECORD, "nearly 4: the context says 4.5"),
        ("Cafe Rio in Tampa has more than 300 reviews.", RECORD, "more than 300: the context says 212"),
        (
            "The company employs more than 6,000 people in its three factories near Leeds.",
            STAFF,
            "more than 6,000: the context says 5,000",
        ),
        (
            "Prices rose by over 15% last year, the statistics office said.",
            PRICES,
            "over 15%: the context says 12%",
        ),
        ("The deal was worth under $4 billion.", DEAL, "$4 billion: the context says $4.2 billion"),
    ],
)
def test_a_bound_the_context_breaks_is_contradicted(
    claims_check: ClaimsCheck, answer: str, context: str, said: str
) -> None:
    assert contradictions(score(claims_check, answer, context, QUESTION)) == [said]


def test_a_year_is_no_estimate(claims_check: ClaimsCheck) -> None:
    # a tenth of 1953 is two centuries: "around 1950" is not read as met by 1953
    signal = score(claims_check, "Westfield primary school was founded in around 1935.")
    assert contradictions(signal)
