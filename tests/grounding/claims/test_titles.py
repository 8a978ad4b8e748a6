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
