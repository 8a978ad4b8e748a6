"""LexicalSupport's meaning-change parts: the worst sentence's share and words put together differently."""

from __future__ import annotations

import pytest

from trustscore import Sample
from trustscore.grounding import LexicalConfig, LexicalSupport
from trustscore.grounding._text import PAIR_WINDOW, pair_keys

CONTEXT = [
    "Smith beat Jones in the final at Wembley in 1998. Jones later won the semi-final against Brown.",
    "The stadium holds 90,000 people.",
]
QUESTION = "Who won the 1998 final?"


def raw(response: str, context: list[str] | None = None, **config: object) -> dict[str, object]:
    s = LexicalSupport(LexicalConfig(**config)).score(  # type: ignore[arg-type]
        Sample(question=QUESTION, context=CONTEXT if context is None else context, response=response)
    )
    assert isinstance(s.raw, dict)
    return s.raw


def test_one_invented_sentence_is_not_diluted_by_faithful_ones() -> None:
    faithful = "Smith beat Jones in the final at Wembley in 1998. The stadium holds 90,000 people. "
    invented = "The ceremony featured fireworks, acrobats and a zeppelin flypast."
    long = raw(faithful * 4 + invented)
    short = raw(faithful + invented)
    assert long["unsupported_share"] < short["unsupported_share"], "the whole-response share dilutes it"
    assert long["sentence_max_unsupported_share"] == short["sentence_max_unsupported_share"] > 0.5
    assert raw(faithful * 4)["sentence_max_unsupported_share"] == 0.0


def test_the_sentence_max_uses_the_prior_so_a_one_word_sentence_is_not_wholly_invented() -> None:
    smoothed = raw("Smith beat Jones. Remarkable!")["sentence_max_unsupported_share"]
    plain = raw("Smith beat Jones. Remarkable!", prior_weight=0.0)["sentence_max_unsupported_share"]
    assert plain == 1.0 and isinstance(smoothed, float) and 0 < smoothed < 1.0


def test_swapped_roles_fail_only_the_ordered_pairs() -> None:
    same = raw("Smith beat Jones in the final.")
    swapped = raw("Jones beat Smith in the final.")
    assert same["unsupported_share"] == swapped["unsupported_share"] == 0.0, "bag of words sees no change"
    assert same["ordered_pairs_unsupported_share"] == 0.0
    assert swapped["pairs_unsupported_share"] == 0.0
    assert isinstance(swapped["ordered_pairs_unsupported_share"], float)
    assert swapped["ordered_pairs_unsupported_share"] > 0


def test_words_moved_to_another_item_fail_the_pairs() -> None:
    moved = raw("Brown beat Smith at Wembley.")
    assert moved["unsupported_share"] == 0.0
    assert isinstance(moved["pairs_unsupported_share"], float) and moved["pairs_unsupported_share"] > 0


def test_pairs_are_none_when_no_adjacent_words_are_both_supported() -> None:
    r = raw("Zeppelins everywhere.")
    assert r["pairs_unsupported_share"] is None and r["ordered_pairs_unsupported_share"] is None
    assert r["sentence_max_unsupported_share"] is not None


def test_question_pairs_count_as_support_unless_disabled() -> None:
    context = ["The final was played in 1998 at Wembley."]
    response = "Smith won the final."
    assert raw(response, context)["pairs_unsupported_share"] == 0.0  # "won final" is in the question
    strict = raw(response, context, question_support=False)
    assert strict["pairs_unsupported_share"] is None, "without the question, 'won' is unsupported"


@pytest.mark.parametrize(
    ("text", "inside", "outside"),
    [
        ("the mayor of the city", [("mayor", "city")], [("city", "mayor")]),
        ("alpha beta gamma delta epsilon", [("alpha", "delta")], [("alpha", "epsilon")]),
    ],
)
def test_pair_keys_are_ordered_and_windowed(
    text: str, inside: list[tuple[str, str]], outside: list[tuple[str, str]]
) -> None:
    assert PAIR_WINDOW == 3
    keys = pair_keys(text)
    assert all(p in keys for p in inside) and not any(p in keys for p in outside)


def test_the_new_parts_are_in_the_version() -> None:
    assert LexicalSupport().version.startswith("lexical-support/16+")


@pytest.mark.parametrize(
    ("context", "response"),
    [
        ("The library holds about 42,000 books.", "The library holds about 42 thousand books."),
        ("The stadium holds 3,500,000 visitors a year.", "The stadium holds 3.5 million visitors a year."),
        ("It cost 12 million pounds.", "It cost 12,000,000 pounds."),
        ("It cost 12 million pounds.", "It cost 12 million pounds."),
        ("The city has 8,200,000,000 litres of water.", "The city has 8.2 billion litres of water."),
        ("About seven million people visit it.", "About 7 million people visit it."),
        ("About 1,000,000 people visit it.", "About one million people visit it."),
        ("Between 5,000,000 and 6,000,000 people visit it.", "Between 5 and 6 million people visit it."),
        ("Between 5 and 6 million people visit it.", "Between 5,000,000 and 6,000,000 people visit it."),
    ],
)
def test_a_number_written_with_a_scale_word_is_the_number_its_digits_write(
    context: str, response: str
) -> None:
    found = raw(response, [context])
    assert found["numbers_unsupported"] == 0
    assert found["pairs_unsupported_share"] in (None, 0.0)


@pytest.mark.parametrize(
    ("context", "response"),
    [
        ("The library holds about 42,000 books.", "The library holds about 24 thousand books."),
        ("The library holds about 42,000 books.", "The library holds about 42 books."),
        ("The library holds about 42,000 books.", "The library holds about 1000 books."),
        ("It cost 12 million pounds.", "It cost 21,000,000 pounds."),
        ("It cost 12,000,000 pounds.", "It cost 12 billion pounds."),
        ("Doors open at 6 pm.", "The hotel has 18 rooms."),
        ("The library holds about 42 thousand books.", "The library holds about 42 books."),
        ("About seven million people visit it.", "About 7 people visit it."),
        ("It grew from 900 to 3 million users.", "It grew from 900 million to 3 million users."),
    ],
)
def test_another_number_is_still_unsupported(context: str, response: str) -> None:
    assert raw(response, [context])["numbers_unsupported"] == 1


def test_opening_hours_vouch_for_the_words_that_state_them() -> None:
    """A record that gives its hours as clock-time ranges supports "open", "every day", "week"; a
    context without such ranges does not."""
    record = '{"name": "Finch", "hours": {"Monday": "11:0-19:0", "Tuesday": "11:0-19:0"}}'
    answer = "It is open from 11:00 AM to 7:00 PM every day of the week."
    assert raw(answer, [record])["unsupported_share"] == 0.0
    prose = '{"name": "Finch", "note": "It sells tea at 11:00."}'
    assert raw(answer, [prose])["unsupported_share"] > 0.0
    session = "The 10:30-11:30 session covered budgets."  # a time span in prose states no opening hours
    assert raw("The session was open every day of the week.", [session])["unsupported_share"] > 0.0
    # a day the record leaves out is no day it says is closed
    assert (
        raw("Finch is closed on Mondays.", [record.replace('"Monday"', '"Friday"')])["unsupported_share"]
        > 0.0
    )


HOURS_ALL_WEEK = (
    '{"name": "Finch", "hours": {"Monday": "8:0-17:0", "Tuesday": "8:0-17:0", "Wednesday": "8:0-17:0", '
    '"Thursday": "8:0-17:0", "Friday": "8:0-17:0", "Saturday": "13:0-18:0", "Sunday": "13:0-18:0"}}'
)


@pytest.mark.parametrize(
    "context",
    [
        HOURS_ALL_WEEK,
        "The office opens Monday, Tuesday, Wednesday, Thursday and Friday, and on Saturday and Sunday.",
        "The office opens Mon-Fri, and Saturdays and Sundays too.",
        "The office opens Monday through Friday, and on Saturday and Sunday afternoons.",
    ],
)
def test_the_days_a_context_names_vouch_for_weekdays_and_weekends(context: str) -> None:
    answer = "It opens from 8:00 to 17:00 on weekdays and from 13:00 to 18:00 on weekends."
    assert raw(answer, [context])["words_unsupported"] == 0


@pytest.mark.parametrize(
    ("context", "unsupported"),
    [
        (HOURS_ALL_WEEK.replace('"Thursday"', '"Thursdays"').replace('"Friday": "8:0-17:0", ', ""), 1),
        ("The office opens Monday to Thursday, and on Saturday.", 2),
        ("The office opens on Sunday.", 2),
    ],
)
def test_days_short_of_the_whole_span_vouch_for_neither(context: str, unsupported: int) -> None:
    assert raw("It opens on weekdays and weekends.", [context])["words_unsupported"] == unsupported


@pytest.mark.parametrize(
    ("context", "response"),
    [
        ("The colour of the organisation's logo changed.", "The organization changed its logo color."),
        ("The organization changed its logo color.", "The colour of the organisation's logo changed."),
        ("He was hospitalised with anaemia.", "He was hospitalized with anemia."),
        ("The study tracked customer behavior.", "The study tracked customer behaviours."),
    ],
)
def test_a_word_in_its_other_spelling_is_the_same_word(context: str, response: str) -> None:
    assert raw(response, [context])["words_unsupported"] == 0


def test_a_spelling_is_no_other_word() -> None:
    assert raw("The colourful logo changed.", ["The organisation's logo changed."])["words_unsupported"] == 1


def test_the_shrunk_share_reads_a_short_answer_by_the_words_it_leaves_unsupported() -> None:
    """Two reworded words of five and twenty invented words of fifty are both a plain share of 0.4;
    shrunk by the prior of supported words, the short answer's share is far below the long one's."""
    from trustscore.grounding._lexical import SHARE_PRIOR_WORDS

    context = ["Smith beat Jones in the final at Wembley in 1998."]
    short = raw("Smith defeated Jones at Wembley, winning.", context)
    invented = " ".join(f"zorblax{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(20))
    long = raw("Smith beat Jones in the final at Wembley in 1998. " * 5 + invented + ".", context)
    assert short["unsupported_share"] == long["unsupported_share"] == 0.4
    assert short["shrunk_unsupported_share"] == round(2 / (5 + SHARE_PRIOR_WORDS), 6)
    assert long["shrunk_unsupported_share"] == round(20 / (50 + SHARE_PRIOR_WORDS), 6)
