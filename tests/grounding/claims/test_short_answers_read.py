"""What short answers say that the value check read wrong: a time the parse splits in two, a denial
that bounds a number, an exception after a preposition, the whole of a part, a count of times in one
word, a denied verb's infinitive, and how many dates the context never states."""

from __future__ import annotations

import pytest

from tests.grounding.claims.test_precision import contradictions, count, score
from trustscore.grounding.claims._signal import ClaimsCheck

FERRY = (
    "The crossing covers 31 nautical miles and takes 1 hour 50 minutes on the MV Skarra Spirit, which "
    "carries up to 420 passengers."
)
DOSE = (
    "The usual adult dose is one tablet twice a day, taken with water. Do not take more than 3 tablets "
    "in 24 hours."
)
TOWER = "The tower has 164 steps and is open to visitors from May to September, except on Mondays."
LEAGUE = "The team won 24 of their 32 matches, drew 5 and lost only 3."
BREAD = "The dough is left to rise twice, for one hour each time."


@pytest.mark.parametrize(
    "answer",
    [
        "It takes 1 hour 50 minutes over 31 nautical miles.",
        "It takes 1 hour, 50 minutes over 31 nautical miles.",
    ],
)
def test_a_time_the_parse_splits_is_one_time(claims_check: ClaimsCheck, answer: str) -> None:
    assert contradictions(score(claims_check, answer, context=FERRY)) == []


def test_a_time_with_another_part_is_still_contradicted(claims_check: ClaimsCheck) -> None:
    signal = score(claims_check, "It takes 1 hour 40 minutes over 31 nautical miles.", context=FERRY)
    assert contradictions(signal) == ["40: the context says 50"]


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("Adults take one tablet twice a day and no more than 3 tablets in 24 hours.", []),
        ("Take at most 3 tablets in 24 hours.", []),
        (
            "You can take more than 3 tablets in 24 hours.",
            ["more than 3: the context says not take more than 3"],
        ),
        ("Do not take more than 5 tablets in 24 hours.", ["more than 5: the context says more than 3"]),
    ],
)
def test_a_denial_that_bounds_a_number_is_the_bound_it_makes(
    claims_check: ClaimsCheck, answer: str, said: list[str]
) -> None:
    """ "Do not take more than 3" says "no more than 3": restated by it, contradicted by the bound the
    other way or another number, and its other values ("in 24 hours") are not denied."""
    assert contradictions(score(claims_check, answer, context=DOSE)) == said


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("Over 10,000 have died.", []),
        ("By then more than 10,000 had died.", []),
        ("Fewer than 10,000 have died.", ["Fewer than 10,000: the context says More than 10,000"]),
    ],
)
def test_a_denial_said_of_the_counted_bounds_no_number(
    claims_check: ClaimsCheck, answer: str, said: list[str]
) -> None:
    """ "More than 10,000 have not survived" counts those who did not survive: no "at most 10,000"."""
    context = (
        "Over the last year more than 25,000 people have fought Ebola. More than 10,000 have not survived."
    )
    assert contradictions(score(claims_check, answer, context=context, question="")) == said


@pytest.mark.parametrize(
    ("context", "answer", "outcome"),
    [
        (
            "The store did not sell more than 300 books in May.",
            "The store sold 250 books in May.",
            "unsupported",
        ),
        (
            "The store did not sell more than 300 books in May.",
            "The store sold 450 books in May.",
            "contradicted",
        ),
        ("The store sold more than 300 books in May.", "The store sold 250 books in May.", "contradicted"),
    ],
)
def test_a_number_against_the_contexts_bound(
    claims_check: ClaimsCheck, context: str, answer: str, outcome: str
) -> None:
    """Under the bound a denial makes ("did not sell more than 300") it is a number the context does
    not state; off it, contradicted."""
    assert count(score(claims_check, answer, context=context), outcome) == 1


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("The tower is closed on Mondays.", []),
        ("The tower is not open on Mondays.", []),
        ("The tower is open on Mondays.", ["Mondays: the context says except Mondays"]),
    ],
)
def test_an_exception_after_a_preposition_is_an_exception(
    claims_check: ClaimsCheck, answer: str, said: list[str]
) -> None:
    assert contradictions(score(claims_check, answer, context=TOWER)) == said


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("They won 24, drew 5 and lost 3 of their 32 matches.", []),
        ("The team lost 24 of their 32 matches.", ["24: the context says won 24"]),
        ("The team won 24 of their 30 matches.", ["30: the context says 32"]),
    ],
)
def test_the_whole_of_a_part_is_not_what_the_predicate_acts_on(
    claims_check: ClaimsCheck, answer: str, said: list[str]
) -> None:
    assert contradictions(score(claims_check, answer, context=LEAGUE)) == said


@pytest.mark.parametrize(
    ("context", "answer", "said"),
    [
        ("Reserves are inspected twice a year.", "Inspections take place two times a year.", []),
        (
            "Reserves are inspected twice a year.",
            "Reserves are inspected three times a year.",
            ["three: the context says twice"],
        ),
        ("The light flashes white twice every 15 seconds.", "It flashes twice every 15 seconds.", []),
    ],
)
def test_twice_is_a_count_of_times(
    claims_check: ClaimsCheck, context: str, answer: str, said: list[str]
) -> None:
    signal = score(claims_check, answer, context=context)
    assert contradictions(signal) == said and count(signal, "unsupported") == 0


def test_a_denied_verb_denies_its_infinitives_values(claims_check: ClaimsCheck) -> None:
    """ "is not left to rise twice" denies the rising twice the context states."""
    signal = score(claims_check, "The dough is not left to rise twice.", context=BREAD)
    assert contradictions(signal) == ["twice: the context says rise twice"]


def test_dates_the_context_never_states_are_counted(claims_check: ClaimsCheck) -> None:
    """A reworded sentence gives the date no slot to be contradicted in: it is unsupported, and counted
    apart for the fused score."""
    context = "The council voted on Tuesday, March 12, to approve the bike lane plan. It costs $4.8 million."
    signal = score(claims_check, "The council approved the $4.8 million plan on March 21.", context=context)
    assert contradictions(signal) == []
    assert isinstance(signal.raw, dict) and signal.raw["unsupported_dates"] == 1
    same = score(claims_check, "The council approved the $4.8 million plan on March 12.", context=context)
    assert isinstance(same.raw, dict) and same.raw["unsupported_dates"] == 0
    # a date that points from the day of writing is no calendar date to count
    relative = score(claims_check, "The council approved the plan this weekend.", context=context)
    assert isinstance(relative.raw, dict) and relative.raw["unsupported_dates"] == 0
