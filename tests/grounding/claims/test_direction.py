"""A change said to go one way between two values of the context that go the other is contradicted."""

from __future__ import annotations

import pytest

from trustscore import Sample, Signal
from trustscore.grounding.claims._direction import direction_verdicts
from trustscore.grounding.claims._signal import ClaimsCheck
from trustscore.grounding.claims._verdict import Verdict

REEFS = "Her team found that 38 percent of the reefs were bleached, up from 22 percent in 2015."
REVENUE = (
    "Revenue fell to $900 million in 2023 from $3 billion in 2021. Profit was $40 million, then $31 million."
)


def contradictions(check: ClaimsCheck, context: str, answer: str) -> list[str]:
    signal: Signal = check.score(Sample(question="", context=[context], response=answer))
    raw = signal.raw if isinstance(signal.raw, dict) else {}
    return [str(c) for c in raw.get("contradictions", [])]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("context", "answer", "said"),
    [
        (
            REEFS,
            "Bleaching fell from 22 percent in 2015 to 38 percent.",
            "38 percent is more than 22 percent",
        ),
        (REEFS, "The share of bleached reefs dropped sharply from 22% to 38%.", "38% is more than 22%"),
        (REVENUE, "Revenue grew from $3 billion to $900 million.", "$3 billion is more than $900 million"),
        (REVENUE, "Profit of $31 million, up from $40 million.", "$40 million is more than $31 million"),
        (REVENUE, "Profit came in at $40 million, a drop from $31 million.", "$40 million is more than $31"),
        (
            "The town had 1,200 people in 1990 and 1,500 in 2020.",
            "The population decreased from 1,200 to 1,500.",
            "1,500 is more than 1,200",
        ),
    ],
)
def test_a_direction_its_own_values_refute_is_contradicted(
    claims_check: ClaimsCheck, context: str, answer: str, said: str
) -> None:
    found = contradictions(claims_check, context, answer)
    assert any(said in c for c in found), found


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (REEFS, "Bleaching rose from 22 percent in 2015 to 38 percent."),
        (REEFS, "38 percent of the reefs were bleached, up from 22 percent in 2015."),
        (REVENUE, "Revenue fell from $3 billion to $900 million."),
        (REVENUE, "Profit slipped to $31 million, down from $40 million."),
        # not amounts: a rank, years, clock times
        ("The team moved from 2nd to 5th place.", "The team dropped from 2nd to 5th place."),
        ("Sales grew between 2015 and 2019.", "Sales dropped from 2015 to 2019."),
        ("It is open from 9 am to 5 pm.", "Hours were cut from 9 am to 5 pm."),
        # a scale only one side names may be either's; a negated direction asserts none
        ("Sales fell from 3 million to 2.5 million units.", "Sales fell from 3 to 2.5 million units."),
        ("Prices were 10 and then 12.", "Prices did not fall from 10 to 12."),
        ("Prices were 10 and then 12.", "Prices didn't fall from 10 to 12."),
        # a value the context never states is the atoms' to judge, not the direction's
        ("Prices were 10 and then 12.", "Prices fell from 10 to 14."),
        # ranges, other units, ratios, rankings, another clause's verb
        ("Costs fell 10 to 20 percent.", "The rules cut costs by anywhere from 10 to 20 percent."),
        ("Declines were 2 to 5 percent.", "Shares fell, with declines ranging from 2 to 5 percent."),
        ("It took 2 hours; now 45 minutes.", "The new line cut the journey from 2 hours to 45 minutes."),
        (
            "It was 3 dollars per kilo, 25 dollars per crate.",
            "It dropped from 3 dollars per kilo to 25 dollars per crate.",
        ),
        ("About 1 in 4 adults smoke; it was 1 in 3.", "About 1 in 4 adults smoke, down from 1 in 3."),
        ("She was 15th and is now 4th.", "She rose from 15 to 4 in the world rankings this season."),
        ("Fees were $100 and then $200.", "Enrollment dropped while fees increased from $100 to $200."),
        # the context's own wording, copied, is no error of the answer's
        (
            "She rose from 15 to 4 in the world rankings this season.",
            "She rose from 15 to 4 in the world rankings this season.",
        ),
        (
            "Flight times were reduced from 3 hours to 90 minutes last year.",
            "Flight times were reduced from 3 hours to 90 minutes last year.",
        ),
        # the context's wording is its own, whatever its other sentences say
        (
            "The race took place in May. Entries rose from 400 to 350 after the fee was cut.",
            "Entries rose from 400 to 350 after the fee was cut.",
        ),
    ],
)
def test_a_direction_its_values_bear_out_or_that_is_no_change_of_amount_stands(
    claims_check: ClaimsCheck, context: str, answer: str
) -> None:
    found = contradictions(claims_check, context, answer)
    assert not any("is more than" in c for c in found), found


def test_the_direction_replaces_the_sentences_supported_polarity_and_keeps_a_contradicted_one() -> None:
    text = "Bleaching fell from 22 to 38 percent. It rose."
    bounds = [(0, 37), (38, 46)]
    supported = Verdict("polarity", "supported", text[0:37], 0, 37)
    other = Verdict("polarity", "supported", text[38:46], 38, 46)
    found = direction_verdicts([supported, other], (text, bounds), ("22 ... 38", [(0, 9)]))
    assert other in found and supported not in found
    assert [v.kind for v in found if v.outcome == "contradicted"] == ["predicate"]
    already = Verdict("negation", "contradicted", text[0:9], 0, 9)
    assert direction_verdicts([already], (text, bounds), ("22 ... 38", [(0, 9)])) == [already]


@pytest.mark.parametrize(
    "answer",
    [
        "Attendance went from 10 to 20 people.",  # "went" alone says no direction
        "The airline offers lower fares from 10 to 20 euros.",  # "lower" an adjective
        "Attendance went up from 10 to 20 people.",
    ],
)
def test_a_word_that_says_no_direction_is_not_read_as_one(claims_check: ClaimsCheck, answer: str) -> None:
    context = "Attendance rose from 10 to 20 people; fares run from 10 to 20 euros."
    assert not any("is more than" in c for c in contradictions(claims_check, context, answer))


@pytest.mark.parametrize(
    "text",
    [
        "rose from 1 to 2 " * 20_000 + "fell from 1 to 2",
        "1," * 30_000 + " and 12" * 30_000 + " fell from 1 to 2",  # a run of digits and commas
    ],
)
def test_a_huge_sentence_is_read_to_its_end(text: str) -> None:
    found = direction_verdicts([], (text, [(0, len(text))]), ("1 2", [(0, 3)]))
    assert [v.text for v in found] == ["fell from 1 to 2"]
