"""Lexical support reads a name and its initials in capitals as one name, whichever text writes which;
lower case is no one's initials, and two long names with the same initials stay two."""

from __future__ import annotations

import pytest

from trustscore import Sample, Signal
from trustscore.grounding._initials import capital_words, run_initials
from trustscore.grounding._lexical import LexicalSupport


def lexical(context: str, answer: str) -> Signal:
    return LexicalSupport().score(Sample(question="Tell me about it.", context=[context], response=answer))


def unsupported(signal: Signal) -> list[str]:
    return [span.text for span in signal.spans]


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (
            "The pastas compare with the best Italian restaurants in NY / SF / LA etc.",
            "They compare with the best Italian restaurants in New York, San Francisco, and Los Angeles.",
        ),
        ("Prices at the L.A. branch rose in 2019.", "Prices at the Los Angeles branch rose in 2019."),
        ("The United Nations sent observers in 1994.", "The UN sent observers in 1994."),
    ],
)
def test_a_name_and_its_initials_in_capitals_vouch_for_each_other(context: str, answer: str) -> None:
    signal = lexical(context, answer)
    assert unsupported(signal) == []
    assert signal.raw["names_unsupported"] == 0  # type: ignore[index]


def test_the_words_of_initials_are_no_invented_pair() -> None:
    """ "New" and "York" stand side by side in "NY": their pair is not one the context never puts together."""
    signal = lexical("Our offices are in NY and SF.", "New York.")
    assert signal.raw["pairs_unsupported_share"] == 0.0  # type: ignore[index]


@pytest.mark.parametrize(
    ("context", "answer", "missing"),
    [
        ("North Yorkshire has many farms.", "New York has many farms.", ["New", "York"]),
        ("The la menu changes daily.", "The Los Angeles menu changes daily.", ["Los", "Angeles"]),
        # only a whole run: "Los Angeles Lakers" are not "LA"
        ("Tickets for LA games sold out.", "Tickets for Los Angeles Lakers games sold out.", ["Lakers"]),
    ],
)
def test_other_initials_lower_case_or_part_of_a_run_vouch_for_nothing(
    context: str, answer: str, missing: list[str]
) -> None:
    assert set(missing) <= set(unsupported(lexical(context, answer)))


def test_capital_words_and_run_initials() -> None:
    assert capital_words("In NY / S.F. / la, the USA and a NASA-like XYZWVU.") == {"NY", "SF", "USA", "NASA"}
    assert run_initials("The United Nations met. New York City") == {"TU", "UN", "TUN", "NY", "YC", "NYC"}


@pytest.mark.parametrize(
    "text",
    [
        "Founded in 500 BC.",
        "Open from 9 AM to 5 PM.",
        "SOLD AS IS. NO RETURNS.",
        "READ THE LABEL ON LA",
        "BUY A CAR TODAY",
        "World War II began.",
        "Shares in AT&T rose.",
    ],
)
def test_capitals_after_a_number_or_in_a_shouted_stretch_are_no_initials(text: str) -> None:
    assert capital_words(text) == frozenset()


def test_initials_side_by_side_or_in_a_list_stay_initials() -> None:
    assert capital_words("the US FDA and NY / SF / LA") == {"US", "FDA", "NY", "SF", "LA"}
    assert capital_words("Offices in NY, SF, LA; the EU, UK") == {"NY", "SF", "LA", "EU", "UK"}
    assert capital_words("Washington DC") == {"DC"}


def test_a_middle_initial_is_one_of_a_names_initials() -> None:
    signal = lexical("JFK was elected president in 1960.", "John F. Kennedy was elected president in 1960.")
    assert unsupported(signal) == []
