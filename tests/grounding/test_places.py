"""A place's code and its name are one name to lexical support ("CA" / "California", "USA" / "United
States"), in either direction, and a code counts only as written: a whole word in capitals."""

from __future__ import annotations

import pytest

from trustscore import Sample
from trustscore.grounding import LexicalSupport
from trustscore.grounding._places import place_mentions
from trustscore.grounding._text import pair_keys, support_keys

RECORD = '{"name": "Javan\'s", "city": "Goleta", "state": "CA", "categories": "Sandwiches"}'
NAMED = "Javan's is a sandwich shop located in Goleta, California."
CODED = "Javan's is a sandwich shop located in Goleta, CA."


def lexical(response: str, context: str) -> tuple[float, list[str], object]:
    sample = Sample(question="Write an overview", context=[context], response=response)
    signal = LexicalSupport().score(sample)
    assert signal.value is not None and isinstance(signal.raw, dict)
    return signal.value, [s.text for s in signal.spans], signal.raw["pairs_unsupported_share"]


def test_a_state_named_where_the_record_gives_its_code_is_supported() -> None:
    named, coded = lexical(NAMED, RECORD), lexical(CODED, RECORD)
    assert "California" not in named[1] and "CA" not in coded[1]
    assert named[1] == coded[1] and named[2] == coded[2]  # "Goleta, California": near, as "Goleta", "CA"
    assert named[0] == pytest.approx(coded[0], abs=0.01)  # the two words' rarity weights differ a little


def test_a_code_written_where_the_context_names_the_place_is_supported() -> None:
    context = "Javan's is a sandwich shop in Goleta, California, and in Albany, New York."
    _, unsupported, _ = lexical("Javan's has shops in Goleta, CA and Albany, NY.", context)
    assert unsupported == []
    _, unsupported, _ = lexical("Javan's has shops in Goleta, California and Albany, New York.", RECORD)
    assert unsupported == ["shops", "Albany", "New", "York"]  # the record gives CA, no NY


def test_a_code_counts_only_as_a_whole_word_in_capitals() -> None:
    for context in ("Built ca. 1900 in Goleta.", "Ca. 1900 it was built in Goleta.", "Goleta (CAL)"):
        assert "california" not in support_keys(context)
        _, unsupported, _ = lexical("It was built in Goleta, California.", context)
        assert "California" in unsupported
    assert "california" in support_keys("Goleta, CA 93117")


def test_one_code_stands_for_every_place_it_names_and_a_name_for_each_code() -> None:
    assert [m.words for m in place_mentions("CA")] == [("california", "canada")]
    assert [m.words for m in place_mentions("USA")] == [("united", "states")]
    assert [m.words for m in place_mentions("the United States")] == [("us", "usa")]
    assert [m.words for m in place_mentions("New York, NY")] == [("ny",), ("new", "york")]


def test_a_code_holds_its_names_words_in_order_for_the_pairs_check() -> None:
    keys = pair_keys('{"city": "Albany", "state": "NY"}')
    assert ("albany", "new") in keys and ("new", "york") in keys


def test_the_longest_spelling_at_a_word_that_ends_where_a_word_ends() -> None:
    assert [(m.start, m.end) for m in place_mentions("Guinea-Bissau and Guinea")] == [(0, 13), (18, 24)]
    assert place_mentions("CA_X, CAé, CA1") == ()  # a code inside a longer word is not the code
    assert [m.words for m in place_mentions("NY,NY")] == [("new", "york"), ("new", "york")]
