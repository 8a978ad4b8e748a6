"""Passage citations: a number that names one of the context's passages is not a fact to look up."""

from __future__ import annotations

import re

import pytest

from trustscore import Sample
from trustscore.grounding import LexicalSupport
from trustscore.grounding._citations import PassageCitations
from trustscore.grounding._lexical import _claimed
from trustscore.grounding._normalize import normalize

PASSAGES = [
    "The Millbrook footbridge opened in 1998. It is 140 metres long.",
    "The footbridge was designed by the engineer Tomas Reyes.",
    "It is lit at night.",
]


def cited(text: str, passages: int = 3) -> list[str]:
    found = PassageCitations(text, passages)
    parts = [
        (m, re.search(rf"(?<![\w.]){m}(?![\w.])", text)) for m in ("1", "2", "3", "7", "Passage 2", "140")
    ]
    return [m for m, at in parts if at is not None and found.cover(at.start(), at.end())]


def _at(text: str, part: str) -> tuple[int, int]:
    at = re.search(rf"(?<![\w.]){part}(?![\w.])", text)
    assert at is not None
    return at.start(), at.end()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("According to Passage 2, it opened in 1998.", ["2", "Passage 2"]),
        ("passages 1 and 3 both say so", ["1", "3"]),
        ("Source #2 says so.", ["2"]),
        ("It opened in 1998 [1].", ["1"]),
        ("It opened in 1998 [1, 3].", ["1", "3"]),
        ("DOCUMENT 3: it is lit", ["3"]),
    ],
)
def test_a_number_naming_a_passage_given_is_a_citation(text: str, expected: list[str]) -> None:
    assert cited(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Passage 7 says it opened in 1998.",  # three passages: 7 names none of them
        "It is 140 metres long.",
        "Chapter 2 says it opened in 1998.",  # not a passage of the context
        "Passage 2.5 says so.",  # not a passage's place
    ],
)
def test_other_numbers_are_not_citations(text: str) -> None:
    assert [m for m in cited(text) if m != "140"] == [] and "140" not in cited(text)


def test_a_span_holding_a_number_beyond_the_passages_is_not_a_citation() -> None:
    text = "Passages 1 and 7 agree."
    found = PassageCitations(text, 3)
    assert found.cover(*_at(text, "1")) and not found.cover(*_at(text, "7"))
    assert not found.cover(0, len("Passages 1 and 7"))


def test_no_passages_means_no_citations() -> None:
    assert not PassageCitations("According to Passage 1, yes.", 0)


def test_lexical_does_not_look_up_a_cited_passage_number() -> None:
    check = LexicalSupport()
    plain = check.score(Sample(question="", context=PASSAGES, response="It opened in 1998."))
    cites = check.score(
        Sample(question="", context=PASSAGES, response="According to Passage 2, it opened in 1998.")
    )
    beyond = check.score(Sample(question="", context=PASSAGES, response="Passage 7 says it opened in 1998."))
    assert isinstance(cites.raw, dict) and isinstance(beyond.raw, dict) and isinstance(plain.raw, dict)
    assert cites.raw["numbers_unsupported"] == 0 and cites.raw["numbers"] == plain.raw["numbers"] == 1
    assert beyond.raw["numbers_unsupported"] == 1
    assert not any(s.text == "2" for s in cites.spans)


def test_a_number_with_a_unit_after_it_is_a_value_not_a_citation() -> None:
    text = "Its source 2 km north of the village feeds passage 3 metres wide, as Passage 2 says."
    found = PassageCitations(text, 3)
    assert not found.cover(text.index("2 km"), text.index("2 km") + 1)
    assert not found.cover(*_at(text, "3"))
    at = text.rindex("2 says")
    assert found.cover(at, at + 1)


def test_citations_and_list_markers_stay_linear_in_a_huge_answer() -> None:
    """Each number was checked against every citation, and each marker copied the rest of the text:
    minutes at a few hundred kilobytes (speed is measured by benchmarks, not asserted here)."""
    cited = "Passage 1 says 1, " * 20_000
    assert [w.text for w in _claimed(normalize(cited), passages=3) if w.kind == "number"] == ["1"] * 20_000
    listed = "1) The bridge is lit.\n" * 20_000
    assert [w for w in _claimed(normalize(listed), passages=3) if w.kind == "number"] == []
