"""The claims signal reads a yes or no to a yes/no question as the question's statement, asserted or
denied (claims/_polar.py): a no to what the context states is contradicted, a no to what it
contradicts is supported, a yes asserts every value the question names."""

from __future__ import annotations

import pytest

from tests.grounding.claims.test_precision import SCHOOL, contradictions, count, score
from trustscore import Signal, Span
from trustscore.grounding.claims._signal import ClaimsCheck

FOUNDED = "Was the school founded in 1953?"
POOL = "Does the school have a swimming pool?"


def reply_spans(signal: Signal, response: str, reply: str) -> list[Span]:
    at = response.index(reply)
    return [s for s in signal.spans if (s.start, s.end) == (at, at + len(reply))]


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (FOUNDED, "Yes."),
        (FOUNDED, "Yes, it was."),
        (POOL, "No."),
        (POOL, "No, it doesn't."),
        ("Was the school founded in 1935?", "No."),  # the context says 1953: the no is right
        ("Was the school founded by the teacher Helen Marsh?", "No."),
        ("Does the school have 240 pupils?", "No, it does not."),
    ],
)
def test_a_right_yes_or_no_is_supported(claims_check: ClaimsCheck, question: str, answer: str) -> None:
    signal = score(claims_check, answer, question=question)
    assert signal.value == 1.0 and not contradictions(signal), signal.raw
    assert count(signal, "supported") >= 1


@pytest.mark.parametrize(
    ("question", "answer", "kind", "reason"),
    [
        (FOUNDED, "No.", "negation", "No. (The school was not founded in 1953): the context says Westfield "
         "primary school was founded in 1953 by the teacher Ruth Abara"),
        (FOUNDED, "No, it was not.", "negation", "No, it was not. (The school was not founded in 1953): the "
         "context says Westfield primary school was founded in 1953 by the teacher Ruth Abara"),
        (POOL, "Yes.", "negation", "Yes. (The school does have a swimming pool): the context says It has no "
         "swimming pool"),
        ("Was the school founded in 1935?", "Yes.", "date", "Yes. (The school was founded in 1935): the "
         "context says 1953"),
        ("Does the school have 240 pupils?", "Yes, it does.", "number", "Yes, it does. (The school does have "
         "240 pupils): the context says 420"),
    ],
)  # fmt: skip
def test_a_wrong_yes_or_no_is_contradicted_on_the_reply(
    claims_check: ClaimsCheck, question: str, answer: str, kind: str, reason: str
) -> None:
    signal = score(claims_check, answer, question=question)
    assert contradictions(signal) == [reason]
    (span,) = reply_spans(signal, answer, answer)
    assert span.text == f"{answer} ({reason.split(' (')[1].split(')')[0]})"
    assert str(span.label).startswith(f"contradicted {kind}")


def test_a_no_to_what_the_context_never_says_checks_nothing(claims_check: ClaimsCheck) -> None:
    # "The school does have a gym." restates no statement of the context, as it would written out;
    # the word match reads the unsupported gym.
    signal = score(claims_check, "No.", question="Does the school have a gym?")
    assert signal.value is None and signal.raw == {"outcome": "nothing_to_check"}


def test_a_no_to_a_statement_partly_stated_is_unsupported(claims_check: ClaimsCheck) -> None:
    signal = score(claims_check, "No.", question="Was the school founded in 1953 in Leeds?")
    assert count(signal, "unsupported") == 1 and not contradictions(signal), signal.raw


def test_the_rest_of_the_answer_is_checked_where_it_stands(claims_check: ClaimsCheck) -> None:
    answer = "No, it was not. It was founded in 1935 by the teacher Ruth Abara."
    signal = score(claims_check, answer, question=FOUNDED)
    assert len(contradictions(signal)) == 2
    (year,) = [s for s in signal.spans if s.text == "1935"]
    assert answer[year.start : year.end] == "1935"
    assert reply_spans(signal, answer, "No, it was not.")


def test_the_question_does_not_support_the_statement_it_now_makes(claims_check: ClaimsCheck) -> None:
    # Read as written, "Yes" checked nothing and the question's own 1935 counted as support.
    signal = score(claims_check, "Yes.", question="Was the school founded in 1935?")
    assert signal.value is not None and signal.value < 0.5


def test_a_question_with_no_plain_statement_leaves_the_answer_as_written(claims_check: ClaimsCheck) -> None:
    signal = score(claims_check, "No.", question="Is it open on Saturday or Sunday?")
    assert signal.value is None and signal.raw == {"outcome": "nothing_to_check"}


def test_an_answer_that_is_not_a_reply_is_read_as_before(claims_check: ClaimsCheck) -> None:
    signal = score(claims_check, "No doubt it was founded in 1935.", question=FOUNDED, context=SCHOOL)
    assert contradictions(signal) == ["1935: the context says 1953"]
    # "No one" opens a statement that denies: nothing founded it in 1935, which the context does not refute
    signal = score(claims_check, "No one founded it in 1935.", question=FOUNDED, context=SCHOOL)
    assert count(signal, "contradicted") == 0


QUARTER = "Orbis Labs reported revenue of $412 million. Net profit fell to $31 million."


@pytest.mark.parametrize(("answer", "contradicted"), [("No.", True), ("Yes, it did.", False)])
def test_a_question_asking_less_than_the_context_says_is_read_on_the_fuller_statement(
    claims_check: ClaimsCheck, answer: str, contradicted: bool
) -> None:
    # "Net profit did fall." has no argument; the context's clause has one more ("to $31 million").
    signal = score(claims_check, answer, context=QUARTER, question="Did net profit fall?")
    assert bool(contradictions(signal)) is contradicted, signal.raw
    assert count(signal, "supported") == (0 if contradicted else 1)


def test_the_fuller_statement_must_be_of_the_same_subject(claims_check: ClaimsCheck) -> None:
    signal = score(claims_check, "No.", context=QUARTER, question="Did the share price fall?")
    assert signal.value is None and signal.raw == {"outcome": "nothing_to_check"}


@pytest.mark.parametrize(
    "question",
    [
        "Was the school closed in 1953?",  # the context holds 1953, but never says the school closed
        "Was Ruth Abara a pupil at the school?",
        "Was the school founded in 1953 by a pupil?",
    ],
)
def test_a_no_is_contradicted_only_where_the_context_states_the_statement(
    claims_check: ClaimsCheck, question: str
) -> None:
    signal = score(claims_check, "No.", question=question)
    assert not contradictions(signal) and count(signal, "unsupported") == 1, signal.raw


def test_the_question_supports_none_of_what_a_reply_goes_on_to_say(claims_check: ClaimsCheck) -> None:
    # Read as written, the question's "Helen Marsh" vouched for the answer's.
    signal = score(claims_check, "Yes, Helen Marsh founded it.", question="Was it founded by Helen Marsh?")
    assert any("Helen Marsh" in c and "Ruth Abara" in c for c in contradictions(signal)), signal.raw


@pytest.mark.parametrize(
    ("question", "statement"),
    [
        ("Was Ruth Abara a pupil at the school?", "Ruth Abara was a pupil at the school."),
        ("Were the Beatles from Liverpool?", "The Beatles were from Liverpool."),
        ("Is the school of music open on Sundays?", "The school of music is open on Sundays."),
        ("Are climbing permits required all year?", "Climbing permits are required all year."),
        ("Did net profit fall?", "Net profit did fall."),
        ("Was the museum, which opened in 1990, closed in 2001?", None),
    ],
)
def test_a_question_turns_into_its_plain_statement_or_none(
    claims_check: ClaimsCheck, question: str, statement: str | None
) -> None:
    from trustscore.grounding.claims._polar import asked

    parse = claims_check.pipeline.parse
    found = asked(parse(question.rstrip("?")), parse)
    assert (found.affirmed if found is not None else None) == statement
