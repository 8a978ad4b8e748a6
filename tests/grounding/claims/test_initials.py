"""A name and its initials in capitals are one name, whichever text writes which: "NY / SF / LA" in a
review states "New York, San Francisco and Los Angeles". Two long names with the same initials stay two."""

from __future__ import annotations

import pytest

from trustscore import Sample, Signal
from trustscore.grounding.claims._signal import ClaimsCheck


def outcomes(signal: Signal) -> dict[str, object]:
    raw = signal.raw if isinstance(signal.raw, dict) else {}
    return {k: raw.get(k) for k in ("supported", "unsupported", "contradicted")}


def score(check: ClaimsCheck, context: str, answer: str) -> Signal:
    return check.score(Sample(question="Tell me about it.", context=[context], response=answer))


@pytest.mark.parametrize(
    ("context", "answer", "names"),
    [
        (
            "The pastas compare with the best Italian restaurants in NY / SF / LA etc.",
            "It compares with the best restaurants in New York, San Francisco, and Los Angeles.",
            3,
        ),
        ("Prices at the L.A. branch rose in 2019.", "Prices at the Los Angeles branch rose in 2019.", 1),
        ("The United Nations sent observers in 1994.", "The UN sent observers in 1994.", 1),
    ],
)
def test_a_name_and_its_initials_in_capitals_state_each_other(
    claims_check: ClaimsCheck, context: str, answer: str, names: int
) -> None:
    signal = score(claims_check, context, answer)
    assert outcomes(signal)["unsupported"] == 0
    assert outcomes(signal)["contradicted"] == 0
    assert isinstance(outcomes(signal)["supported"], int) and outcomes(signal)["supported"] >= names


def test_two_names_with_the_same_initials_are_not_one(claims_check: ClaimsCheck) -> None:
    signal = score(claims_check, "North Yorkshire has many farms.", "New York has many farms.")
    assert outcomes(signal)["supported"] == 0


def test_lower_case_letters_are_no_initials(claims_check: ClaimsCheck) -> None:
    """A word in lower case ("la") is not a name's initials."""
    signal = score(claims_check, "The la menu changes daily.", "The Los Angeles menu changes daily.")
    assert outcomes(signal)["unsupported"] == 1


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        ("Sales rose 5% in the US last year.", "Sales rose 5% last year, according to Ulrich Schmidt."),
        ("The IT team fixed the bug in 2020.", "Isaac Taylor fixed the bug in 2020."),
    ],
)
def test_two_capitals_are_no_persons_initials(claims_check: ClaimsCheck, context: str, answer: str) -> None:
    """Two capitals most often stand for something else ("US", "IT"): a person made up with those
    initials stays unsupported."""
    assert outcomes(score(claims_check, context, answer))["unsupported"] == 1


def test_a_person_goes_by_three_initials_a_middle_one_among_them(claims_check: ClaimsCheck) -> None:
    context, answer = "JFK was elected president in 1960.", "John F. Kennedy was elected president in 1960."
    signal = score(claims_check, context, answer)
    assert outcomes(signal) == {"supported": 2, "unsupported": 0, "contradicted": 0}
