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
        # the recogniser leaves "under" out of the number: the reason puts it back
        ("The restaurant has under 200 reviews.", REVIEWS, "under 200: the context says 212"),
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


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        # "over" as a preposition is no bound
        (
            "The loan is repaid over 20 years at a fixed rate.",
            "The loan is repaid over 25 years at a fixed rate.",
        ),
        ("The festival drew 20,000 visitors over 3 days.", "The festival drew 20,000 visitors over 4 days."),
        # the context's number is a bound itself: the rule changed
        ("Companies with more than 50 staff must report.", "Companies with more than 250 staff must report."),
        # a negated bound is no bound the context meets
        ("The town has not over 5,000 residents.", "The town has 8,000 residents."),
        # an estimate is as precise as its digits: "around 2,500" is not 1,953
        ("The record crowd was around 2,500 fans.", "The record crowd was 1,953 fans."),
        # another unit beside the bound
        (
            "The tower is over 300 metres tall and was finished in 1931.",
            "The tower is 320 feet tall and was finished in 1931.",
        ),
        # another relation: what the context's number is of does not meet the bound
        ("The company fired more than 4,000 people in its three factories near Leeds.", STAFF),
    ],
)
def test_what_is_no_bound_the_context_meets_stays_contradicted(
    claims_check: ClaimsCheck, answer: str, context: str
) -> None:
    assert contradictions(score(claims_check, answer, context, QUESTION))


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        # true of $4.2 billion, and no restatement of it: a slipped scale more often than not
        ("The deal was worth more than $4 million.", DEAL),
        # "up to" says the number reaches it
        ("The phone's battery lasts up to 20 hours.", "The phone's battery lasts 14 hours."),
        # an estimate farther than a tenth, within half a unit of its last digit
        ("The storm killed about 100 people in the region.", "The storm killed 149 people in the region."),
        ("The factory cut nearly 1,000 jobs last year.", "The factory cut 520 jobs last year."),
        ("The record crowd was around 2,100 fans.", "The record crowd was 1,953 fans."),
        ("The restaurant has almost 220 reviews.", REVIEWS),
    ],
)
def test_a_bound_or_estimate_far_from_the_contexts_number_is_unsupported(
    claims_check: ClaimsCheck, answer: str, context: str
) -> None:
    signal = score(claims_check, answer, context, QUESTION)
    assert not contradictions(signal) and count(signal, "unsupported") == 1


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        ("The restaurant has no more than 220 reviews.", REVIEWS),
        ("The car reached 100 km/h in about 6 seconds.", "The car reached 100 km/h in 5.8 seconds."),
        ("Fewer than 50 students took the exam this year.", "Only 30 students took the exam this year."),
    ],
)
def test_no_more_than_decimals_and_an_only_in_the_context_are_read(
    claims_check: ClaimsCheck, answer: str, context: str
) -> None:
    signal = score(claims_check, answer, context, QUESTION)
    assert not contradictions(signal) and count(signal, "unsupported") == 0


def test_an_estimate_in_words_is_read(claims_check: ClaimsCheck) -> None:
    signal = score(claims_check, "The restaurant has about two hundred reviews.", REVIEWS, QUESTION)
    assert not contradictions(signal) and count(signal, "unsupported") == 0
