"""A value or a clause is read against the context's statement of the same relation, about the same
thing: a count the same relation gives for a thing named otherwise, a pronoun's nearer subject, the two
halves of a contrast of like things, and a quantity that runs past its sentence's end."""

from __future__ import annotations

import pytest

from trustscore import Sample, Signal
from trustscore.grounding.claims._signal import ClaimsCheck

STRIKE = (
    "Israeli airstrikes were carried out against four militants who crossed into the area from Syria. "
    "The airstrikes prevented the bombing, the military said. Three of the alleged attackers were "
    "killed, Israeli media reported."
)


def contradictions(signal: Signal) -> list[str]:
    return list(signal.raw.get("contradictions", [])) if isinstance(signal.raw, dict) else []  # type: ignore[arg-type]


def score(check: ClaimsCheck, context: str, answer: str) -> Signal:
    return check.score(Sample(question="What happened?", context=[context], response=answer))


def test_a_count_the_same_relation_gives_of_a_thing_named_otherwise_has_no_rival(
    claims_check: ClaimsCheck,
) -> None:
    """Four militants were attacked, three attackers killed: "killed three militants" is the killing's
    count, not a change of the attack's."""
    assert contradictions(score(claims_check, STRIKE, "Israeli airstrikes killed three militants.")) == []
    assert contradictions(score(claims_check, STRIKE, "Israeli airstrikes killed two militants.")) == [
        "two: the context says four"
    ]


@pytest.mark.parametrize(
    ("context", "answer", "said"),
    [
        # the same relation's count is of another thing in the same clause: still a swap
        (
            "The school has 420 pupils and 18 teachers.",
            "The school has 18 pupils.",
            "18: the context says 420",
        ),
        # a measure in another unit is another value, not a thing named otherwise
        (
            "These tasty chops are ready in just 30 minutes. Season them well.",
            "These tasty chops are ready in just 30 hours.",
            "just 30 hours: the context says just 30 minutes",
        ),
    ],
)
def test_a_count_of_another_thing_or_a_measure_in_another_unit_is_still_contradicted(
    claims_check: ClaimsCheck, context: str, answer: str, said: str
) -> None:
    assert contradictions(score(claims_check, context, answer)) == [said]


FEHA = (
    "One difference between the FEHA and the ADA is that the ADA applies to all employers in the private "
    "sector, whereas the FEHA affects more employees, and it doesn't distinguish between private and "
    "public employers."
)


def test_it_in_a_coordinated_clause_is_the_nearer_subject(claims_check: ClaimsCheck) -> None:
    """The parse coordinates "it doesn't distinguish" with the sentence's "is": the sentence's subject
    names both acts, the nearer one only the FEHA."""
    right = "The ADA distinguishes between private and public employers, whereas the FEHA does not."
    assert contradictions(score(claims_check, FEHA, right)) == []
    wrong = score(claims_check, FEHA, "The FEHA does distinguish between private and public employers.")
    assert len(contradictions(wrong)) == 1 and "doesn't distinguish" in contradictions(wrong)[0]


AMINO = (
    "Amino acids are the basic building blocks of proteins. Nonessential amino acids can be made by the "
    "body, while essential amino acids cannot be made by the body so you must get them from your diet."
)


@pytest.mark.parametrize(
    "answer",
    [
        "Essential amino acids are those that cannot be made by the body.",
        "Nonessential amino acids can be made by the body.",
    ],
)
def test_neither_half_of_a_contrast_of_like_things_is_read_against_the_other(
    claims_check: ClaimsCheck, answer: str
) -> None:
    """The subject words of both halves are "acid": the half a "while" hangs on would deny the other's
    statement as surely as the "while" half would."""
    assert contradictions(score(claims_check, AMINO, answer)) == []


def test_a_contrast_of_another_subject_is_still_read(claims_check: ClaimsCheck) -> None:
    context = "The passenger died at the scene, while the driver was taken to hospital."
    assert contradictions(score(claims_check, context, "The passenger did not die at the scene.")) != []


def test_a_quantity_ends_where_an_abbreviation_closes_its_sentence(claims_check: ClaimsCheck) -> None:
    """The parse runs "375 degree F. Rub the roast" on as one sentence and the recogniser takes "375
    degree F. Rub" for one quantity: its unit was "rub", and a 450°F elsewhere its rival."""
    context = "Preheat the oven to 375 degree F. Rub the roast with salt. An oven at 450°F gives a crust."
    signal = score(claims_check, context, "Preheat the oven to 375°F.")
    assert contradictions(signal) == [] and signal.raw["supported"] == 1  # type: ignore[index]
