"""A named person's age is compared with the age the context gives that person, not with any number."""

from __future__ import annotations

import pytest

from tests.grounding.claims.test_precision import contradictions, count, kinds, score
from trustscore.grounding.claims._signal import ClaimsCheck

BLAST = (
    "The blast killed the boy, Martin Richard, 8, and Lingzi Lu, 23, a graduate student from China. "
    "Bill Richard, father of Martin Richard, watched the trial."
)
ARRESTS = "Police arrested John Smith, 45, and Jane Doe, aged 31, on Monday."
QUESTION = "What happened?"
SAYS = "the context says Martin Richard is 8"


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("The explosion killed 23-year-old Martin Richard.", f"23-year-old: {SAYS}"),
        ("The explosion killed Martin Richard, aged 23.", f"23: {SAYS}"),
        ("The explosion killed the 23-year-old pupil Martin Richard.", f"23-year-old: {SAYS}"),
    ],
)
def test_an_age_the_context_gives_another_person_contradicts(
    claims_check: ClaimsCheck, answer: str, said: str
) -> None:
    signal = score(claims_check, answer, BLAST, QUESTION)
    assert contradictions(signal) == [said]
    assert kinds(signal) == ["age"]


@pytest.mark.parametrize(
    "answer",
    [
        "The explosion killed 8-year-old Martin Richard.",
        "The explosion killed Martin Richard, 8, and Lingzi Lu, 23.",
        "Lingzi Lu, a 23-year-old graduate student, died in the blast.",
    ],
)
def test_the_persons_own_age_is_supported(claims_check: ClaimsCheck, answer: str) -> None:
    signal = score(claims_check, answer, BLAST, QUESTION)
    assert not contradictions(signal) and count(signal, "unsupported") == 0


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("Jane Doe, a 45-year-old nurse, was arrested.", "45-year-old: the context says Jane Doe is 31"),
        ("Police arrested John Smith, aged 31.", "31: the context says John Smith is 45"),
    ],
)
def test_each_way_of_writing_an_age_is_read(claims_check: ClaimsCheck, answer: str, said: str) -> None:
    assert contradictions(score(claims_check, answer, ARRESTS, QUESTION)) == [said]


def test_the_age_of_a_name_two_people_share_is_not_compared(claims_check: ClaimsCheck) -> None:
    # "Richard" may be Bill Richard, whose age the context never gives
    signal = score(claims_check, "Richard, 45, watched the trial.", BLAST, QUESTION)
    assert "age" not in kinds(signal)


def test_a_person_the_context_gives_no_age_is_left_to_the_number_check(claims_check: ClaimsCheck) -> None:
    signal = score(claims_check, "Bill Richard, 45, watched the trial.", BLAST, QUESTION)
    assert "age" not in kinds(signal)


def test_an_age_is_not_contradicted_by_the_age_of_someone_else(claims_check: ClaimsCheck) -> None:
    # the number check alone read "45: the context says 8", Martin Richard's age
    context = "Bill Richard, father of Martin Richard, 8, watched."
    signal = score(claims_check, "Bill Richard, 45, watched the trial.", context, QUESTION)
    assert not contradictions(signal) and count(signal, "unsupported") == 1


@pytest.mark.parametrize(
    "answer",
    [
        "Jane Doe, 31 points ahead, won.",  # no age: a count follows the number
        "Jane Doe, 2024, was arrested.",  # no age: a year
    ],
)
def test_a_number_beside_a_name_that_is_no_age_is_not_read_as_one(
    claims_check: ClaimsCheck, answer: str
) -> None:
    assert "age" not in kinds(score(claims_check, answer, ARRESTS, QUESTION))


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        # another person's age before a name, across "'s", "of", "and" or "whose"
        (
            "Bill Richard, 44, said his son Martin Richard, 8, was killed in the bombing.",
            "The 8-year-old Martin Richard's father Bill Richard spoke to reporters.",
        ),
        (
            "John Smith, 45, and his son Tom Smith, 12, were rescued from the lake.",
            "Tom Smith, the 12-year-old son of John Smith, was rescued from the lake.",
        ),
        # a list of ages
        (
            "The brothers, Tom Smith, 8, and Henry Smith, 10, were found safe on Sunday.",
            "The brothers, Tom Smith and Henry Smith, 8 and 10, were found safe on Sunday.",
        ),
        # the same person's age at another time, which the context states without the name beside it
        (
            "John Smith, 58, founded the company in 2010. He died in 2012, aged 60.",
            "John Smith, aged 60, died in 2012.",
        ),
        # a title tells two people of one surname apart
        (
            "Mary Smith, 43, and her husband, 45, were charged with fraud.",
            "Mr Smith, 45, was charged with fraud.",
        ),
        # a goal's minute, a shirt's number or a citation in brackets is no age
        ("Lionel Messi, 36, scored the opener.", "Goals: Lionel Messi (23), Luis Suarez (67)."),
        # a numbered list
        (
            "John Smith, 45, and Jane Doe, 31, reached the final.",
            "The finalists were: 1. John Smith, 2. Jane Doe.",
        ),
        # a surname alone may be another of the family
        (
            "Richard, 44, said his family was devastated. Martin Richard died in the blast.",
            "Martin Richard, 8, died in the blast.",
        ),
    ],
)
def test_what_is_not_the_persons_age_is_not_compared_as_one(
    claims_check: ClaimsCheck, context: str, answer: str
) -> None:
    assert "age" not in kinds(score(claims_check, answer, context, QUESTION))


def test_a_juniors_age_is_not_his_fathers(claims_check: ClaimsCheck) -> None:
    context = "John Smith Sr., 70, and his son John Smith Jr., 45, run the farm."
    said = contradictions(score(claims_check, "John Smith Sr., aged 45, runs the farm.", context, QUESTION))
    assert said == ["45: the context says John Smith Sr. is 70"]


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        # the same person a few years on
        (
            "Jane Doe, 31, was elected in 2013. She won re-election in 2017.",
            "Jane Doe, 35, won re-election in 2017.",
        ),
        # a number beside a name that neither text calls an age: points, a shirt's number, a seed
        (
            "The top scorers were LeBron James, 30, and Anthony Davis, 25, in the win over Boston.",
            "LeBron James, 39, led the Lakers in the win over Boston.",
        ),
        (
            "The favourites are Carlos Alcaraz, 1, and Novak Djokovic, 2.",
            "Carlos Alcaraz, 21, is the favourite.",
        ),
        # a tally line with no verb
        (
            "Magnus Carlsen, 33, beat Hikaru Nakamura, 36, in the final.",
            "Magnus Carlsen, 3, Hikaru Nakamura, 1.",
        ),
    ],
)
def test_an_age_at_another_time_or_a_tally_is_not_contradicted(
    claims_check: ClaimsCheck, context: str, answer: str
) -> None:
    assert not contradictions(score(claims_check, answer, context, QUESTION))


def test_an_age_said_of_no_name_is_someone_elses(claims_check: ClaimsCheck) -> None:
    # the 23 of "a 23-year-old graduate student" cannot be Martin Richard's, whom the context says is 8
    context = (
        "The blast killed the boy, Martin Richard, 8. A 23-year-old graduate student from China also died."
    )
    said = contradictions(
        score(claims_check, "The explosion killed 23-year-old Martin Richard.", context, QUESTION)
    )
    assert said == [f"23-year-old: {SAYS}"]


DEATH = "Jane Doe died at the age of 81 at her home in Leeds on Monday."


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("Jane Doe died aged 80 at her home in Leeds.", "80: the context says Jane Doe is 81"),
        ("Jane Doe died at the age of 71 in Leeds.", "71: the context says Jane Doe is 81"),
    ],
)
def test_an_age_the_clause_gives_its_subject_is_read(
    claims_check: ClaimsCheck, answer: str, said: str
) -> None:
    assert contradictions(score(claims_check, answer, DEATH, QUESTION)) == [said]


@pytest.mark.parametrize(
    "answer",
    [
        "81-year-old Jane Doe died at her home in Leeds.",
        "Jane Doe, 81, died at her home in Leeds.",
        "Jane Doe died at the age of 81.",
    ],
)
def test_the_age_the_clause_gives_supports_the_same_age_however_written(
    claims_check: ClaimsCheck, answer: str
) -> None:
    signal = score(claims_check, answer, DEATH, QUESTION)
    assert not contradictions(signal) and count(signal, "unsupported") == 0


def test_an_age_in_a_clause_naming_two_people_is_not_bound_to_either(claims_check: ClaimsCheck) -> None:
    # "at the age of 25" may be the bride's: the subject's age is not read from it
    context = "John Smith, 30, married Jane Doe, 25, in 2001."
    answer = "John Smith married Jane Doe at the age of 25 in 2001."
    assert not contradictions(score(claims_check, answer, context, QUESTION))


CAREER = "Jane Doe joined the company at the age of 22. Jane Doe became CEO at the age of 45."


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("Jane Doe became CEO at the age of 22.", ["22: the context says Jane Doe is 45"]),
        ("Jane Doe joined the company at the age of 45.", ["45: the context says Jane Doe is 22"]),
        ("Jane Doe became CEO at the age of 45.", []),
    ],
)
def test_an_age_at_an_event_is_compared_with_the_age_at_that_event(
    claims_check: ClaimsCheck, answer: str, said: list[str]
) -> None:
    # the person's age at another event is not hers at this one, though the context writes the number
    assert contradictions(score(claims_check, answer, CAREER, QUESTION)) == said
