"""A named person's role against the role the context gives the same person (``_titles``)."""

from __future__ import annotations

import pytest

from tests.grounding.claims.test_precision import contradictions, kinds, score
from trustscore.grounding.claims._signal import ClaimsCheck

COUNCIL = (
    "The project, championed by Councilmember Denise Okafor, will add 6.5 miles of lanes. "
    "Mayor Paul Reinholt said he supported the plan. "
    "Luis Ortega, the utility's general manager, said rates would rise."
)
FAMILY = "He is survived by his son, Thomas, and two grandchildren."


@pytest.mark.parametrize(
    ("answer", "context", "said"),
    [
        (
            "Mayor Okafor championed the project.",
            COUNCIL,
            "Mayor: the context says Denise Okafor, Councilmember",
        ),
        (
            "The mayor, Luis Ortega, said rates would rise.",
            COUNCIL,
            "mayor: the context says Luis Ortega, general manager",
        ),
        ("His nephew Thomas survives him.", FAMILY, "nephew: the context says Thomas, son"),
        (
            "Principal Linda Moreau said the closure was sad.",
            "Linda Moreau, a teacher at Pinecrest, said the closure was sad.",
            "Principal: the context says Linda Moreau, teacher",
        ),
    ],
)
def test_a_role_the_context_gives_the_person_otherwise_is_contradicted(
    claims_check: ClaimsCheck, answer: str, context: str, said: str
) -> None:
    """Before the name, in the name as the recogniser reads it, or in apposition either way."""
    found = score(claims_check, answer, context, "")
    assert kinds(found) == ["role"], answer
    assert contradictions(found) == [said]


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        # the same role, or one a person of that role is also called
        ("Councilmember Okafor championed the project.", COUNCIL),
        (
            "The trial was led by physician Ana Ruiz.",
            "Dr. Ana Ruiz, a neurologist at Boston General, led the trial.",
        ),
        ("The chief executive, Mara Lind, resigned.", "Mara Lind, the company's CEO, resigned."),
        # a sentence that names the person and writes the role may bind it to someone else or to both
        (
            "Mayor Okafor backed the plan.",
            "Councilmember Denise Okafor and Mayor Paul Reinholt backed the plan.",
        ),
        # a name two of the context's people share
        (
            "Mayor Okafor backed the plan.",
            "Councilmember Denise Okafor and Ben Okafor, a teacher, backed it.",
        ),
        # roles one person may hold at once: of other kinds, kinships to different people, a former one
        ("Her son Thomas Hale spoke.", "Thomas Hale, a teacher at Hill School, spoke at the service."),
        ("Senator Mark Jensen spoke.", "Mark Jensen, a lawyer from Ohio, spoke at the hearing."),
        (
            "The family includes their older daughter Blayke.",
            "Parents Danielle and Adam and big sister Blayke are now a family of eight.",
        ),
        ("Councilmember Okafor spoke.", "Former mayor Denise Okafor spoke at the meeting."),
        # a person the context gives no role, or names nowhere
        ("Mayor Okafor backed the plan.", "Denise Okafor backed the plan."),
        ("Mayor Ruth Abara backed the plan.", COUNCIL),
    ],
)
def test_a_role_the_context_allows_or_cannot_rule_out_is_not_contradicted(
    claims_check: ClaimsCheck, answer: str, context: str
) -> None:
    assert kinds(score(claims_check, answer, context, "")) == [], answer


def test_a_role_the_recogniser_takes_into_a_name_is_no_part_of_it(claims_check: ClaimsCheck) -> None:
    """ "Councilmember Okafor" is Denise Okafor, not another name; "Councilmember Ben Okafor" is not."""
    context = "Councilmember Denise Okafor spoke at the meeting."
    assert kinds(score(claims_check, "Councilmember Okafor spoke.", context, "")) == []
    assert contradictions(score(claims_check, "Councilmember Ben Okafor spoke.", context, "")) == [
        "Ben Okafor: the context says Denise Okafor"
    ]


GOVERNOR = (
    "Lab tests without a doctor's order are spreading. And Arizona Gov. Doug Ducey signed a law allowing"
    " them. Texas lawmakers are weighing a similar bill."
)


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (
            "Texas Governor Doug Ducey signed the law.",
            ["Texas Governor: the context says Doug Ducey, Arizona Gov."],
        ),
        ("Mayor Doug Ducey signed the law.", ["Mayor: the context says Doug Ducey, Arizona Gov."]),
        # the same place, written out; no place at all
        ("Arizona Governor Doug Ducey signed the law.", []),
        ("Governor Doug Ducey signed the law.", []),
        # a demonym, a nationality or a country is no rival of a state: it may be or hold it
        ("Arizonan Governor Doug Ducey signed the law.", []),
        ("American Governor Doug Ducey signed the law.", []),
        ("U.S. Governor Doug Ducey signed the law.", []),
    ],
)
def test_a_role_of_another_place_is_contradicted(
    claims_check: ClaimsCheck, answer: str, said: list[str]
) -> None:
    """ "Gov." is a governor; "Texas Governor" names another state's than "Arizona Gov." of one person."""
    assert contradictions(score(claims_check, answer, GOVERNOR, "")) == said


def test_a_place_the_persons_sentence_writes_may_be_theirs(claims_check: ClaimsCheck) -> None:
    """ "Gov. Ducey of Arizona ... in Texas": the sentence that names him writes Texas too, so "Texas
    Governor" may be read from it."""
    context = "Arizona Gov. Doug Ducey spoke in Texas about the law."
    found = score(claims_check, "Texas Governor Doug Ducey spoke about the law.", context, "")
    assert kinds(found) == []


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        # a party is no place, nor is a city written short
        (
            "Californian Governor Gavin Newsom signed the bill.",
            "Democratic Gov. Gavin Newsom signed the bill.",
        ),
        (
            "L.A. Mayor Eric Garcetti announced the plan.",
            "Los Angeles Mayor Eric Garcetti announced the plan.",
        ),
        # a state against a country it lies in, or a city in it
        (
            "Canada Premier Danielle Smith spoke about the budget.",
            "Alberta Premier Danielle Smith spoke about the budget. Canada's finance minister did not.",
        ),
        ("Phoenix Governor Doug Ducey signed the law.", GOVERNOR),
        # the sentence naming her writes the role, short: it may be hers
        ("Governor Denise Okafor spoke.", "Councilmember Denise Okafor and Gov. Tom Reinholt spoke."),
    ],
)
def test_no_rival_place_or_role(claims_check: ClaimsCheck, answer: str, context: str) -> None:
    assert [k for k in kinds(score(claims_check, answer, context, "")) if k == "role"] == [], answer
