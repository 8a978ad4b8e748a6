"""Values that answers write otherwise than the context: a unit in another spelling ("42 km" for "a
42-kilometre route", "3.8 km²" for "3.8 square kilometres"), a year of a span ("from 1990 to 2020" for
"between 1990 and 2020"), a bound after its number ("18 or older"), a number inside a bound the answer
copies ("sold 350" where it "sold more than 300"), a time in abbreviated parts ("2 hrs 10 mins"), a count
whose noun is left out ("23 shops in the UK and 4 in Ireland"), a range in words ("eight to ten
minutes"), "failed to" as the denial it is, where "tried to" is none, a "half" that names a size
("half sheet pans"), no number, the dotted "U.S." and "U.K." as the places they are, and a span of
amounts the tokenizer keeps in one word ("$100-$300")."""

from __future__ import annotations

import pytest

from tests.grounding.claims.test_precision import contradictions, count, score
from trustscore.grounding.claims._lexicon import unit_spelling
from trustscore.grounding.claims._signal import ClaimsCheck

TRAIL = "The Ridgeback Trail is a 42-kilometre hiking route that climbs 1,150 metres."
RESERVOIR = "The reservoir covers 3.8 square kilometres and holds 41 million cubic metres of water when full."
HABITAT = (
    "It is not listed as threatened, although its habitat shrank by about 18 percent between 1990 and 2020."
)


@pytest.mark.parametrize(
    ("written", "named"),
    [
        ("km", "kilometer"),
        ("kilometres", "kilometer"),
        ("km²", "kilometer"),
        ("km2", "kilometer"),
        ("m³.", "meter"),
        ("mins", "minute"),
        ("pupils", "pupils"),
        ("m.", "m."),
        ("B2", "B2"),
    ],
)
def test_a_unit_is_named_once_however_it_is_written(written: str, named: str) -> None:
    """An abbreviation, a British spelling and a square or cubic length name pint's unit; a word that
    names none stays itself, and so does a lone letter (a million as often as a metre) and a power of
    anything but a length."""
    assert unit_spelling(written) == named


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        ("The route covers 42 km and climbs 1,150 metres.", TRAIL),
        ("The water spreads over 3.8 km² and can store 41 million m³.", RESERVOIR),
    ],
)
def test_an_abbreviated_unit_states_the_context_s_value(
    claims_check: ClaimsCheck, answer: str, context: str
) -> None:
    signal = score(claims_check, answer, context=context)
    assert count(signal, "unsupported") == 0
    assert contradictions(signal) == []


def test_a_unit_a_hyphen_joins_is_one_unit(claims_check: ClaimsCheck) -> None:
    """ "500 watt-hours" is no count of hours to set against "4 hrs"; "Second-quarter" is a quarter, and
    "2-year-old" a child "2 years old"."""
    battery = "Its battery holds 500 Wh and charges fully in 4 hrs."
    signal = score(
        claims_check, "Its battery holds 500 watt-hours and charges fully in 4 hours.", context=battery
    )
    assert contradictions(signal) == []
    plant = "The plant produced 48,000 units in the first quarter and 52,800 units in the second quarter."
    signal = score(claims_check, "Second-quarter output rose from the first quarter.", context=plant)
    assert count(signal, "unsupported") == 0
    child = "Mahesh Koiraba, 31, lost his only daughter in the quake. She was 2 years old."
    signal = score(
        claims_check, "Mahesh Koiraba, who lost his 2-year-old daughter in the quake, grieves.", context=child
    )
    assert count(signal, "unsupported") == 0


def test_another_number_in_an_abbreviated_unit_is_contradicted(claims_check: ClaimsCheck) -> None:
    signal = score(claims_check, "The trail is a 52 km route.", context=TRAIL)
    assert contradictions(signal) == ["52 km: the context says 42-kilometre"]


def test_each_year_of_a_span_is_stated(claims_check: ClaimsCheck) -> None:
    signal = score(
        claims_check, "It lost about 18 percent of its habitat from 1990 to 2020.", context=HABITAT
    )
    assert count(signal, "unsupported") == 0
    assert signal.raw["unsupported_dates"] == 0  # type: ignore[index]


def test_a_year_inside_a_span_but_not_written_is_not_stated(claims_check: ClaimsCheck) -> None:
    signal = score(claims_check, "A survey counted the butterfly in 2005.", context=HABITAT)
    assert signal.raw["unsupported_dates"] == 1  # type: ignore[index]


AGE = "Runners must be at least 18 years old on race day."
PHONES = "It works with Android phones (Android 10 or later)."


@pytest.mark.parametrize(
    ("answer", "context", "said"),
    [
        ("You have to be 18 or older on the day of the race.", AGE, []),
        ("It pairs with Android phones (Android 10 and newer).", PHONES, []),
        ("It works with Android 9 or later.", PHONES, ["9 or later: the context says 10 or later"]),
        ("Guests must be at least 21.", "Guests must be 21 or over.", []),
        (
            "Guests must be 18 or over.",
            "Guests must be 21 or over.",
            ["18 or over: the context says 21 or over"],
        ),
        ("Guests must be 18.", "Guests must be 21 or over.", ["18: the context says 21"]),
    ],
)
def test_a_bound_written_after_its_number_is_that_bound(
    claims_check: ClaimsCheck, answer: str, context: str, said: list[str]
) -> None:
    """ "18 or older" is "at least 18": its unit is not the bound's word ("older", "later"), so it meets
    the context's value however each side writes the bound, and another number is still a rival."""
    signal = score(claims_check, answer, context=context)
    assert contradictions(signal) == said
    assert count(signal, "unsupported") == 0


@pytest.mark.parametrize(
    ("answer", "context", "said"),
    [
        (
            "You have to be 18 or younger on the day of the race.",
            AGE,
            ["18 or younger: the context says at least 18 years old"],
        ),
        (
            "You must take at least 3 tablets.",
            "Take no more than 3 tablets.",
            ["at least 3: the context says no more than 3"],
        ),
        ("Bags of up to 23 kg are free.", "Bags of at least 23 kg are charged.", []),
        (
            "Fewer than 5,000 visitors came on opening day.",
            "More than 5,000 visitors passed through on opening day.",
            ["Fewer than 5,000: the context says More than 5,000"],
        ),
    ],
)
def test_bounds_of_one_number_that_point_away_from_each_other_contradict(
    claims_check: ClaimsCheck, answer: str, context: str, said: list[str]
) -> None:
    """ "18 or younger" and "at least 18" share only 18: a rule for minors is no rule for adults, so
    the same number bounded the other way is contradicted, where the two are said of one thing; two
    rules with their own predicates ("are free", "are charged") may agree. Bounds no value meets both
    of contradict however each side words its predicate ("came", "passed through")."""
    signal = score(claims_check, answer, context=context)
    assert contradictions(signal) == said
    if not said:  # nor is the free bag's bound stated
        assert count(signal, "unsupported") == 1


def test_a_bare_number_inside_a_bound_written_after_its_number_is_unsupported(
    claims_check: ClaimsCheck,
) -> None:
    signal = score(claims_check, "Guests must be 25.", context="Guests must be 21 or over.")
    assert contradictions(signal) == []
    assert count(signal, "unsupported") == 1


def test_a_duration_s_abbreviated_unit_states_the_context_s(claims_check: ClaimsCheck) -> None:
    context = "Rooms are 120 euros a night, and breakfast is served for 2 hours."
    assert count(score(claims_check, "Breakfast is served for 2 hrs.", context=context), "unsupported") == 0


FLIGHT = "The flight takes 2 hours and 10 minutes."


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("The flight takes 2 hrs 10 mins.", []),
        ("The flight takes 130 minutes.", []),
        ("The flight takes 3 hrs 10 mins.", ["3 hrs 10 mins: the context says 2 hours and 10 minutes"]),
    ],
)
def test_a_time_in_abbreviated_parts_is_one_time(
    claims_check: ClaimsCheck, answer: str, said: list[str]
) -> None:
    """ "2 hrs 10 mins", whose numbers the parse reads apart, is one time, and the context's "2 hours and
    10 minutes" is no range of 2 to 10 that "3 hrs" falls in."""
    signal = score(claims_check, answer, context=FLIGHT)
    assert contradictions(signal) == said
    assert count(signal, "unsupported") == 0


SHOPS = "Today it operates 23 shops in the United Kingdom and 4 in Ireland, and employs about 410 people."


@pytest.mark.parametrize(
    ("answer", "said", "unsupported"),
    [
        ("It runs 23 shops in the UK and 5 in Ireland.", ["5: the context says 4"], 0),
        ("It runs 27 shops in total.", [], 1),
        ("It runs 27 shops: twenty-three across the United Kingdom plus four in Ireland.", [], 1),
    ],
)
def test_a_count_whose_noun_is_left_out_counts_its_sibling_s(
    claims_check: ClaimsCheck, answer: str, said: list[str], unsupported: int
) -> None:
    """The 4 of "23 shops ... and 4 in Ireland" counts shops: "5 in Ireland" is its rival, and a total of
    the two ("in total", "plus") is worked out from them, unsupported, not "27: the context says 23"
    ("UK" is the United Kingdom the context writes out: supported)."""
    signal = score(claims_check, answer, context=SHOPS)
    assert contradictions(signal) == said
    assert count(signal, "unsupported") == unsupported


def test_the_uk_is_the_united_kingdom_the_context_names(claims_check: ClaimsCheck) -> None:
    """ "UK", the code ISO keeps for the United Kingdom (its assigned one is GB), names the context's
    place, so it meets no other place as its rival ("UK: the context says Ireland")."""
    signal = score(claims_check, "It runs 23 shops in the UK.", context=SHOPS)
    assert contradictions(signal) == []
    assert count(signal, "unsupported") == 0


@pytest.mark.parametrize(
    "answer",
    [
        "The company opened 40 stores in the US last year.",
        "The company opened 40 stores in the USA last year.",
        "The company opened 40 stores in the United States last year.",
        "The company opened 40 stores in the U.S. last year.",
    ],
)
def test_the_dotted_us_is_the_united_states_in_every_spelling(claims_check: ClaimsCheck, answer: str) -> None:
    """A context that writes "the U.S." names the place "US", "USA" and "United States" name: none of
    them meets Canada as its rival, in a copy of the sentence or not."""
    context = "The company opened 40 stores in the U.S. last year and 12 in Canada."
    signal = score(claims_check, answer, context=context)
    assert contradictions(signal) == []
    assert count(signal, "unsupported") == 0


def test_the_dotted_uk_is_the_uk_and_no_other_place(claims_check: ClaimsCheck) -> None:
    context = "The U.K. left the EU in 2020."
    for answer in ("The UK left the EU in 2020.", "The United Kingdom left the EU in 2020."):
        signal = score(claims_check, answer, context=context)
        assert contradictions(signal) == [] and count(signal, "unsupported") == 0, answer
    assert contradictions(score(claims_check, "The US left the EU in 2020.", context=context)) == [
        "US: the context says U.K"
    ]


def test_numbers_that_label_are_no_count(claims_check: ClaimsCheck) -> None:
    """ "steps 7 and 10" numbers steps, it counts none: no rival in "the last two steps"."""
    context = "7. Now just repeat the last two steps for the remainder of the braid."
    signal = score(claims_check, "Repeat steps 7 and 10 for the rest of the braid.", context=context)
    assert contradictions(signal) == []


BIKES = "The shop sold more than 300 bikes last year."


def test_a_bare_number_inside_a_copied_bound_is_unsupported(claims_check: ClaimsCheck) -> None:
    signal = score(claims_check, "The shop sold 350 bikes last year.", context=BIKES)
    assert contradictions(signal) == []
    assert count(signal, "unsupported") == 1


def test_a_bare_number_outside_a_copied_bound_is_contradicted(claims_check: ClaimsCheck) -> None:
    signal = score(claims_check, "The shop sold 250 bikes last year.", context=BIKES)
    assert contradictions(signal) == ["250: the context says more than 300"]


RAISED = "The charity raised $5 million for the new hospital wing."
FAILED = "The charity failed to raise $5 million for the new hospital wing."


@pytest.mark.parametrize(
    ("answer", "context", "said"),
    [
        (FAILED, RAISED, ["$5 million: the context says raised $5 million"]),
        (RAISED, FAILED, ["$5 million: the context says not raise $5 million"]),
        ("The charity did not raise $5 million for the new hospital wing.", FAILED, []),
        ("The charity did not fail to raise $5 million for the new hospital wing.", RAISED, []),
    ],
)
def test_failing_to_do_something_denies_it(
    claims_check: ClaimsCheck, answer: str, context: str, said: list[str]
) -> None:
    assert contradictions(score(claims_check, answer, context=context)) == said


LANDING = "SpaceX tried to land a Falcon 9 on the drone ship in January, but the rocket exploded."


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("SpaceX failed to land a Falcon 9 on the drone ship in January.", []),
        ("SpaceX landed a Falcon 9 on the drone ship in January.", []),
        ("SpaceX tried to land a Falcon 9 on the drone ship in March.", ["March: the context says January"]),
    ],
)
def test_what_is_tried_is_neither_done_nor_denied(
    claims_check: ClaimsCheck, answer: str, said: list[str]
) -> None:
    """ "tried to land" says nothing of whether it landed: no polarity to set against "failed to land" or
    "landed"; its values are still the context's ("in March" for "in January")."""
    assert contradictions(score(claims_check, answer, context=LANDING)) == said


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("Cook for eight to ten minutes, stirring often.", []),
        (
            "Cook for twelve to fifteen minutes, stirring often.",
            ["twelve to fifteen minutes: the context says 8-10 minutes"],
        ),
    ],
)
def test_a_range_in_words_is_the_range_in_digits(
    claims_check: ClaimsCheck, answer: str, said: list[str]
) -> None:
    """ "eight to ten minutes" is "8-10 minutes", not eighteen."""
    context = "Add in the wine; cook for 8-10 minutes, stirring often."
    assert contradictions(score(claims_check, answer, context=context, question="")) == said


ADDITION = (
    "A second floor addition can run $100-$300 a square foot. "
    "The benchmark cost to install carpet ranges between $3.74 - $4.83 per square foot."
)


def test_a_span_of_amounts_written_with_a_dash_states_its_first_end(claims_check: ClaimsCheck) -> None:
    """ "$100-$300", which the tokenizer keeps as one word after the "$", states $100 as "$100 to $300"
    does: the answer's range is supported, not set against the carpet's price of the sentence that
    shares its words ("cost to install", "square foot")."""
    answer = "The cost to install a second floor ranges from $100 to $300 per square foot."
    signal = score(claims_check, answer, context=ADDITION)
    assert contradictions(signal) == []
    assert count(signal, "unsupported") == 0


PANS = "Spread the crumbs evenly on 2 half sheet pans and bake until they are crisp, about 5 minutes."


@pytest.mark.parametrize(
    ("answer", "said", "unsupported"),
    [
        ("Spread the crumbs on half sheet pans and bake until crisp.", [], 0),
        ("Bake the crumbs on 2 half sheet pans.", [], 0),
        ("Spread the crumbs on 3 half sheet pans and bake until crisp.", ["3: the context says 2"], 0),
        ("Bake the crumbs for half an hour.", [], 1),
        ("Spread them on pans less than half the size of a sheet.", [], 1),
    ],
)
def test_a_half_that_names_a_size_is_no_number(
    claims_check: ClaimsCheck, answer: str, said: list[str], unsupported: int
) -> None:
    """ "half sheet pans" are pans of a size: no number 0.5 the context never states, and "2 half sheet
    pans" counts 2 pans, the rival of 3. Half of a unit ("half an hour") or of a thing ("half the size")
    is still a number."""
    signal = score(claims_check, answer, context=PANS)
    assert contradictions(signal) == said
    assert count(signal, "unsupported") == unsupported
