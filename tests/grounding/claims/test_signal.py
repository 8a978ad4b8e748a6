"""The claims signal: each checkable atom of the response against the context."""

from __future__ import annotations

import pytest

from trustscore import Sample, Signal
from trustscore.grounding.claims._signal import ClaimsCheck

from .library import CONTEXT, GERMAN, QUESTION, REFUSAL, VERBATIM, WRONG_DATE

BRIDGE = (
    "The Millbrook footbridge opened to the public in May 1998. It was designed by the engineer Clara "
    "Voss and is 140 metres long. It cost £4.2 million, and 60% of the money came from the town council. "
    "About 3,000 people cross it on an ordinary weekday."
)


def score(check: ClaimsCheck, response: str, context: str = BRIDGE, question: str = "") -> Signal:
    return check.score(Sample(question=question, context=[context], response=response))


def contradicted(signal: Signal) -> list[str]:
    return [s.text for s in signal.spans if s.label and s.label.startswith("contradicted")]


@pytest.mark.parametrize(
    ("faithful", "changed", "atom", "said"),
    [
        ("The bridge is 140 metres long.", "The bridge is 104 metres long.", "104 metres", "140 metres"),
        ("It opened in May 1998.", "It opened in May 1989.", "May 1989", "May 1998"),
        ("It cost £4.2 million.", "It cost £2.4 million.", "£2.4 million", "£4.2 million"),
        (
            "60% of the money came from the town council.",
            "90% of the money came from the town council.",
            "90%",
            "60%",
        ),
        (
            "It was designed by the engineer Clara Voss.",
            "It was designed by the engineer Maria Lang.",
            "Maria Lang",
            "Clara Voss",
        ),
    ],
)
def test_a_changed_atom_is_a_contradiction_that_names_it(
    claims_check: ClaimsCheck, faithful: str, changed: str, atom: str, said: str
) -> None:
    good, bad = score(claims_check, faithful), score(claims_check, changed)
    assert good.value == 1.0 and not good.spans
    assert bad.value is not None and bad.value <= 0.15
    assert contradicted(bad) == [atom]
    assert any(said in str(s.label) for s in bad.spans)
    assert bad.raw["contradictions"] == [f"{atom}: the context says {said}"]  # type: ignore[index]


def test_a_date_in_another_format_is_the_same_date(claims_check: ClaimsCheck) -> None:
    context = "The Alder Street Library opened on 14 March 2011."
    for answer in ("It opened on 2011-03-14.", "It opened on 14 March 2011.", "It opened in March 2011."):
        assert score(claims_check, answer, context).value == 1.0, answer
    assert contradicted(score(claims_check, "It opened on 2011-04-14.", context)) == ["2011-04-14"]


def test_an_atom_the_context_never_states_is_unsupported_not_contradicted(claims_check: ClaimsCheck) -> None:
    signal = score(claims_check, "Tickets for the opening cost $25.")
    assert signal.value is not None and 0.15 < signal.value < 1.0
    assert [s.label.split(":")[0] for s in signal.spans if s.label] == ["unsupported money"]
    assert signal.raw["unsupported"] == 1 and signal.raw["contradicted"] == 0  # type: ignore[index]


def test_an_atom_the_question_states_is_supported(claims_check: ClaimsCheck) -> None:
    signal = score(claims_check, "Yes, since 1998.", question="Has the bridge been open since 1998?")
    assert signal.value == 1.0


def test_a_negated_statement_of_the_context_is_a_contradiction(claims_check: ClaimsCheck) -> None:
    signal = score(claims_check, "The Millbrook footbridge did not open to the public in May 1998.")
    assert signal.value is not None and signal.value <= 0.15
    assert "opened May 1998" in str(signal.raw["contradictions"])  # type: ignore[index]


def test_a_swapped_predicate_contradicts_and_a_negated_antonym_agrees(claims_check: ClaimsCheck) -> None:
    context = "The library is open from Monday to Saturday and is closed on Sundays."
    swapped = score(claims_check, "Yes, it is open on Sundays.", context)
    assert swapped.value is not None and swapped.value <= 0.15
    assert contradicted(swapped) == ["Sundays"]
    assert "closed Sundays" in str(swapped.raw["contradictions"])  # type: ignore[index]
    assert score(claims_check, "No, it is not open on Sundays.", context).value == 1.0
    assert score(claims_check, "It is closed on Sundays.", context).value == 1.0


def test_raw_counts_contradicted_facts_and_polarity_apart(claims_check: ClaimsCheck) -> None:
    """The shipped calibrator reads ``contradicted_facts`` alone: a changed value counts there, a
    statement's polarity the other way does not."""
    context = "The library opened in May 1998. It is closed on Sundays."
    facts = score(claims_check, "The library opened in May 1989. It is closed on Sundays.", context)
    polarity = score(claims_check, "The library opened in May 1998. It is open on Sundays.", context)
    assert facts.raw["contradicted_facts"] == 1 and facts.raw["contradicted_polarity"] == 0  # type: ignore[index]
    assert polarity.raw["contradicted_facts"] == 0 and polarity.raw["contradicted_polarity"] == 1  # type: ignore[index]
    for signal in (facts, polarity):
        assert signal.raw["contradicted"] == 1  # type: ignore[index]


def test_two_contradictions_pull_lower_than_one(claims_check: ClaimsCheck) -> None:
    one = score(claims_check, "It opened in May 1989 and is 140 metres long.")
    two = score(claims_check, "It opened in May 1989 and is 104 metres long.")
    assert one.value is not None and two.value is not None and two.value < one.value <= 0.15


def test_an_abstention_is_its_own_outcome_and_not_unsupported(claims_check: ClaimsCheck) -> None:
    signal = score(claims_check, REFUSAL, CONTEXT, QUESTION)
    assert signal.value == 1.0 and signal.raw["outcome"] == "abstention" and not signal.spans  # type: ignore[index]
    assert signal.raw["contradicted"] == 0  # type: ignore[index]
    # What the shipped calibrator reads is there, so an abstention scores rather than failing the feature.
    assert signal.raw["contradicted_facts"] == 0 and signal.raw["contradicted_polarity"] == 0  # type: ignore[index]
    assert signal.explanation is not None and "abstention" in signal.explanation


def test_another_language_is_missing_with_its_reason(claims_check: ClaimsCheck) -> None:
    pytest.importorskip("py3langid")
    signal = score(claims_check, GERMAN, CONTEXT, QUESTION)
    assert signal.value is None and signal.error is not None and "other language" in signal.error
    assert signal.raw == {"outcome": "other_language"}


def test_nothing_to_check_is_missing_with_its_reason(claims_check: ClaimsCheck) -> None:
    signal = score(claims_check, "It is a lovely place.")
    assert signal.value is None and signal.error is not None and signal.error.startswith("nothing to check")


def test_no_context_is_missing_with_its_reason(claims_check: ClaimsCheck) -> None:
    signal = claims_check.score(Sample(question="When?", context=[], response="In 1998."))
    assert signal.value is None and signal.error is not None and "no context" in signal.error


def test_spans_index_the_response(claims_check: ClaimsCheck) -> None:
    signal = score(claims_check, WRONG_DATE, CONTEXT, QUESTION)
    assert [WRONG_DATE[s.start : s.end] for s in signal.spans] == [s.text for s in signal.spans]
    assert contradicted(signal) == ["14 March 2001"]
    assert signal.raw["contradictions"] == ["14 March 2001: the context says 14 March 2011"]  # type: ignore[index]


def test_full_width_digits_read_as_digits(claims_check: ClaimsCheck) -> None:
    assert score(claims_check, "The bridge is １４０ metres long.").value == 1.0


def test_verbatim_answers_are_fully_supported(claims_check: ClaimsCheck) -> None:
    assert score(claims_check, VERBATIM, CONTEXT, QUESTION).value == 1.0


def test_the_question_supports_a_value_but_asserts_no_relation(claims_check: ClaimsCheck) -> None:
    context = "The library is open from Monday to Saturday and is closed on Sundays."
    question = "Is the library open on Sundays?"
    assert score(claims_check, "No, it does not open on Sundays.", context, question).value == 1.0
    swapped = score(claims_check, "Yes, it is open on Sundays.", context, question)
    assert swapped.value is not None and swapped.value <= 0.15


def test_a_passage_citation_is_not_an_unsupported_atom(claims_check: ClaimsCheck) -> None:
    passages = [BRIDGE, "The bridge is painted green.", "It is lit at night."]
    for response in (
        "According to Passage 1, the bridge is 140 metres long.",
        "Passages 1 and 3 say the bridge is 140 metres long [1].",
    ):
        signal = claims_check.score(Sample(question="", context=passages, response=response))
        assert signal.value == 1.0, (response, signal.explanation)
    beyond = claims_check.score(
        Sample(question="", context=passages, response="Passage 7 says the bridge is 140 metres long.")
    )
    assert beyond.value is not None and beyond.value < 1.0


def test_a_list_items_number_is_not_an_unsupported_atom(claims_check: ClaimsCheck) -> None:
    listed = (
        "The bridge:\n\n1. It opened in May 1998.\n2. It is 140 metres long.\n3) About 3,000 people cross it."
    )
    signal = score(claims_check, listed)
    assert signal.value == 1.0 and not signal.spans, signal.explanation
    assert score(claims_check, "The bridge opened in May 1998.\n4. It is lit.").value == 1.0
    alone = score(claims_check, "The bridge is 1.")  # a number ending a sentence is a claim
    assert alone.value is not None and alone.value < 1.0


def test_a_contradicted_sentence_opening_a_line_is_no_list_marker(claims_check: ClaimsCheck) -> None:
    """Only a number is read as a list item's marker: a whole first sentence, which also opens a line and
    ends at a stop with more text after it, keeps its contradiction."""
    signal = claims_check.score(
        Sample(
            question="",
            context=["The bridge is lit at night. It is open to walkers."],
            response="The bridge is not lit at night. It is open to walkers.",
        )
    )
    assert signal.raw["contradicted"] == 1, signal.explanation  # type: ignore[index]
