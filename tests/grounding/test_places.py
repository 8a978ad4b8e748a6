"""A place's code and its name are one name to lexical support ("CA" / "California", "USA" / "United
States"), in either direction. A code in a context counts only where it stands as a place (a record
field's whole value, or before a postal code); a name vouches for its code only as a response writes a
code, in capitals, and the dotted "U.S." and "U.K." are places wherever they stand."""

from __future__ import annotations

import pytest

from trustscore import Sample
from trustscore._errors import BudgetExceeded
from trustscore.compute._deadline import Deadline, bound
from trustscore.grounding import LexicalSupport
from trustscore.grounding._places import codes_alike, place_mentions
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
    _, unsupported, _ = lexical("It has shops in the UK and Ireland.", "It has shops in the United Kingdom.")
    assert unsupported == ["Ireland"]  # "UK": the code ISO keeps reserved for the United Kingdom
    _, unsupported, _ = lexical("Javan's has shops in Goleta, California and Albany, New York.", RECORD)
    assert unsupported == ["shops", "Albany", "New", "York"]  # the record gives CA, no NY


@pytest.mark.parametrize(
    ("context", "response", "place"),
    [
        ("Ann Lee, MD, treats patients.", "Ann Lee treats patients in Maryland.", "Maryland"),
        ("The IT team moved to Rome.", "The team moved to Rome, Italy.", "Italy"),
        ("The city was founded in 500 BC.", "The city in British Columbia was founded in 500.", "British"),
        ("SOLD AS IS. NO RETURNS.", "Sold in American Samoa, Iceland and Norway.", "Samoa"),
    ],
)
def test_an_acronym_in_capitals_is_no_place(context: str, response: str, place: str) -> None:
    assert place_mentions(context) == ()
    _, unsupported, _ = lexical(response, context)
    assert place in unsupported


def test_a_code_counts_as_a_record_value_or_before_a_postal_code() -> None:
    for context in ('{"state": "CA"}', '["NV", "CA"]', "Goleta, CA 93117", "Goleta, CA 93117-1234"):
        assert "california" in support_keys(context), context
    assert "ontario" in support_keys("Ottawa, ON K1A 0B1")
    for context in ("Goleta, CA", '{"note": "CA only"}', "CA 931", "Built ca. 1900.", "Goleta (CAL)"):
        assert "california" not in support_keys(context), context
    _, unsupported, _ = lexical("It was built in Goleta, California.", "Built ca. 1900 in Goleta.")
    assert "California" in unsupported


def test_the_dotted_us_and_uk_are_places_wherever_they_stand() -> None:
    """ "U.S.", "U.S.A." and "U.K." are written so in prose, not only in a record: they vouch for their
    names, and their codes are each other's. Other dotted capitals are no place ("M.D.", "L.A.")."""
    assert [m.words for m in place_mentions("sold in the U.S. and the U.K.")] == [
        ("united", "states"),
        ("united", "kingdom"),
    ]
    assert [(m.start, m.end) for m in place_mentions("made in the U.S.A. since")] == [(12, 18)]
    assert place_mentions("Ann Lee, M.D., grew up in L.A. at 9 A.M.") == ()
    assert codes_alike("U.S.") == codes_alike("USA") == {"US", "USA"}
    assert codes_alike("U.K.") == {"UK", "GB", "GBR"}
    assert codes_alike("California") == codes_alike("M.D.") == frozenset()
    _, unsupported, _ = lexical("It has 40 stores in the United States.", "It has 40 stores in the U.S.")
    assert unsupported == []


def test_a_name_vouches_for_its_code_only_written_in_capitals() -> None:
    context = "She was born in Kingston, Jamaica, and cooked in New Orleans, Louisiana."
    assert {"JAM", "LA"} <= support_keys(context) and not {"jam", "la"} & support_keys(context)
    _, unsupported, _ = lexical("She made jam in Kingston and sang la la in New Orleans.", context)
    assert "jam" in unsupported and "la" in unsupported
    _, unsupported, _ = lexical("She was born in Kingston, JAM, and cooked in New Orleans, LA.", context)
    assert unsupported == []


def test_one_code_stands_for_every_place_it_names_and_a_name_for_each_code() -> None:
    assert [m.words for m in place_mentions('"CA"')] == [("california", "canada")]
    assert [m.stands_for for m in place_mentions('"CA"')] == [(("california",), ("canada",))]
    assert [m.words for m in place_mentions('"USA"')] == [("united", "states")]
    assert [m.stands_for for m in place_mentions("the United States")] == [(("US",), ("USA",))]
    assert [m.words for m in place_mentions("the United States")] == [("us", "usa")]
    assert [m.words for m in place_mentions("New York, NY 10001")] == [("ny",), ("new", "york")]
    assert place_mentions("") == () and support_keys("") == frozenset() and pair_keys("") == frozenset()


def test_a_curly_apostrophe_is_the_same_spelling() -> None:
    straight, curly = place_mentions("Côte d'Ivoire"), place_mentions("Côte d\u2019Ivoire")
    assert [m.stands_for for m in curly] == [m.stands_for for m in straight] == [(("CI",), ("CIV",))]
    assert curly[0].end == len("Côte d\u2019Ivoire")


def test_pairs_hold_a_stopword_code_and_pair_each_name_alone() -> None:
    keys = pair_keys('{"city": "Albany", "state": "NY"}')
    assert ("albany", "new") in keys and ("new", "york") in keys
    assert ("portland", "oregon") in pair_keys('{"city": "Portland", "state": "OR"}')
    assert ("indianapoli", "indiana") in pair_keys("Indianapolis, IN 46204")  # "Indianapolis" folded
    assert ("california", "canada") not in pair_keys('{"state": "CA"}')  # two names, not one


def test_the_longest_spelling_at_a_word_that_ends_where_a_word_ends() -> None:
    assert [(m.start, m.end) for m in place_mentions("Guinea-Bissau and Guinea")] == [(0, 13), (18, 24)]
    assert [(m.start, m.end) for m in place_mentions("South Sudan")] == [(0, 11)]  # no "Sudan" inside
    assert place_mentions('"CA_X", "CAé", "CA1"') == ()  # a code inside a longer word is not the code
    assert [m.words for m in place_mentions('"NY","NY"')] == [("new", "york"), ("new", "york")]


def test_the_scan_stops_at_an_expired_deadline() -> None:
    text = "Goleta, California, and Albany, New York. " * 5000 + "unique-key-for-the-cache"
    deadline = Deadline(60)
    deadline.cancel()
    with bound(deadline), pytest.raises(BudgetExceeded):
        place_mentions(text)
    assert len(place_mentions(text)) == 2 * 5000  # unbound: runs to the end
