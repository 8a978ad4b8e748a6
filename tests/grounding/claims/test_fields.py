"""A record's yes/no fields: a string value that says yes or no ("WiFi": "no", "free", "paid") is one,
a key of two words is also stated as one word ("takeout", "WiFi", "Wi-Fi"), a field the record writes
as null is unsupported, and a sentence that says the record leaves a field unsaid states nothing of it."""

from __future__ import annotations

import json

import pytest

from trustscore import Sample, Signal
from trustscore.grounding.claims._signal import ClaimsCheck


def record(wifi: str) -> str:
    return json.dumps(
        {
            "name": "Kaptain's Firehouse BBQ",
            "attributes": {"RestaurantsTakeOut": True, "OutdoorSeating": False, "WiFi": wifi},
        }
    )


def check(claims_check: ClaimsCheck, answer: str, context: str) -> tuple[list[str], int]:
    """The contradictions of kind "field" and the number of supported verdicts."""
    signal: Signal = claims_check.score(Sample(question="", context=[context], response=answer))
    assert isinstance(signal.raw, dict), signal.error
    labels = [str(s.label) for s in signal.spans if "field" in str(s.label)]
    return labels, int(signal.raw.get("supported", 0))  # type: ignore[call-overload]


@pytest.mark.parametrize(
    ("answer", "wifi", "said"),
    [
        ("It offers free WiFi.", "no", "contradicted field: WiFi: the context says WiFi: no"),
        ("Wi-Fi is available to guests.", "no", "contradicted field: Wi-Fi: the context says WiFi: no"),
        ("The ambiance is casual, and WiFi is available.", "no", "WiFi: the context says WiFi: no"),
        ("There is no WiFi.", "free", "contradicted field: WiFi: the context says WiFi: free"),
        ("It does not have wifi.", "paid", "wifi: the context says WiFi: paid"),
        ("It does not offer takeout.", "free", "takeout: the context says RestaurantsTakeOut: true"),
        ("Take-out is not available.", "free", "Take-out: the context says RestaurantsTakeOut: true"),
    ],
)
def test_a_field_stated_the_other_way_is_contradicted_with_the_records_value(
    claims_check: ClaimsCheck, answer: str, wifi: str, said: str
) -> None:
    labels, _ = check(claims_check, answer, record(wifi))
    assert len(labels) == 1 and labels[0].endswith(said), labels


@pytest.mark.parametrize(
    ("answer", "wifi"),
    [
        ("It offers free WiFi and takeout.", "free"),
        ("Wi-Fi is free.", "free"),
        ("It has WiFi, for a fee.", "paid"),
        ("It offers no WiFi.", "no"),
        ("WiFi is not available, but takeout is.", "no"),
        ("It offers take-out orders.", "no"),
    ],
)
def test_a_field_stated_as_the_record_says_is_supported(
    claims_check: ClaimsCheck, answer: str, wifi: str
) -> None:
    labels, supported = check(claims_check, answer, record(wifi))
    assert labels == [] and supported >= 1, answer


def test_a_string_that_says_neither_yes_nor_no_is_no_field(claims_check: ClaimsCheck) -> None:
    """Not "quiet", and not "None", which some records write for a value they do not know."""
    context = json.dumps(
        {
            "name": "X",
            "attributes": {"NoiseLevel": "quiet", "WiFi": "sometimes", "RestaurantsDelivery": "None"},
        }
    )
    assert check(claims_check, "It is loud, has no WiFi and offers delivery.", context)[0] == []


def unsupported(claims_check: ClaimsCheck, answer: str, context: str) -> list[str]:
    signal = claims_check.score(Sample(question="", context=[context], response=answer))
    return [str(s.label) for s in signal.spans if str(s.label).startswith("unsupported field")]


def test_a_field_the_record_leaves_null_is_unsupported_unless_said_to_be_unknown(
    claims_check: ClaimsCheck,
) -> None:
    context = json.dumps({"name": "X", "attributes": {"Music": None, "OutdoorSeating": True}})
    assert unsupported(claims_check, "They do not offer live music.", context) == [
        "unsupported field: music: the context never states this field"
    ]
    for answer in (
        "There is no mention of music.",
        "The data does not mention whether there is music.",
        "Music is not specified.",
        "The music is unknown.",
    ):
        assert unsupported(claims_check, answer, context) == [], answer


@pytest.mark.parametrize(
    "answer",
    [
        "The data does not mention if reservations are accepted.",
        "Reservations are not mentioned in the data.",
        "There is no information about reservations.",
        "Whether it takes reservations is unknown.",
    ],
)
def test_a_field_said_to_be_left_unsaid_is_not_stated_either_way(
    claims_check: ClaimsCheck, answer: str
) -> None:
    context = json.dumps({"name": "X", "attributes": {"RestaurantsReservations": False}})
    assert check(claims_check, answer, context)[0] == [], answer


PARKING_AND_AMBIENCE = json.dumps(
    {
        "name": "Le Cafe Stella",
        "attributes": {
            "BusinessParking": {
                "garage": False,
                "street": True,
                "validated": False,
                "lot": True,
                "valet": False,
            },
            "Ambience": {"intimate": False, "casual": True, "upscale": False},
        },
    }
)


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (
            "The restaurant offers validated parking.",
            "validated: the context says BusinessParking.validated: false",
        ),
        ("It has a validated parking lot.", "validated: the context says BusinessParking.validated: false"),
        (
            "Customers can park their cars in a garage.",
            "garage: the context says BusinessParking.garage: false",
        ),
        ("It offers an intimate dining experience.", "intimate: the context says Ambience.intimate: false"),
        ("The decor is upscale.", "upscale: the context says Ambience.upscale: false"),
    ],
)
def test_a_field_is_stated_in_the_words_prose_uses_for_it(
    claims_check: ClaimsCheck, answer: str, said: str
) -> None:
    """A key's word as written ("validated", which parses as the verb "validate"), and a parent's
    field said of where one parks or of the decor and the dining experience."""
    labels, _ = check(claims_check, answer, PARKING_AND_AMBIENCE)
    assert len(labels) == 1 and labels[0].endswith(said), labels


@pytest.mark.parametrize(
    "answer",
    [
        "It does not offer WiFi or validated parking.",
        "The restaurant offers a parking lot but doesn't provide garage, validated, or valet parking.",
        "It offers a lot, but none of them are validated.",
        "Customers can park on the street or in the lot.",
        "It has a casual dining atmosphere.",
        "It offers a casual dining experience rather than an upscale one.",
        "The atmosphere is casual rather than upscale.",
        "The dining experience is not upscale but casual.",
        "It may not be the best option for those looking for an upscale experience.",
        "None of the customers complained about the casual atmosphere.",
    ],
)
def test_a_denied_or_true_field_in_prose_is_no_contradiction(claims_check: ClaimsCheck, answer: str) -> None:
    labels, _ = check(claims_check, answer, PARKING_AND_AMBIENCE)
    assert labels == [], answer


def test_a_non_prefix_denies_the_field(claims_check: ClaimsCheck) -> None:
    context = json.dumps({"name": "X", "attributes": {"Smoking": "no"}})
    assert check(claims_check, "It is a non-smoking establishment.", context) == ([], 1)
    assert len(check(claims_check, "Smoking is allowed.", context)[0]) == 1


def test_a_value_written_as_a_python_string_is_read(claims_check: ClaimsCheck) -> None:
    """Yelp's open data writes some values as Python strings ("u'no'") and some booleans as strings."""
    context = json.dumps({"name": "X", "attributes": {"WiFi": "u'no'", "RestaurantsTakeOut": "True"}})
    labels, _ = check(claims_check, "It offers free WiFi but no takeout.", context)
    assert sorted(label.split(": the context says ")[1] for label in labels) == [
        "RestaurantsTakeOut: True",
        "WiFi: no",
    ]


def test_saying_the_record_leaves_unsaid_what_it_states_is_contradicted(claims_check: ClaimsCheck) -> None:
    """A "yes", or any value of a group of fields ("BusinessParking", "hours"), that the answer says the
    record does not give; a "no" said that way is let pass ("no mention of live music" for a false
    ``Music``), and a null is supported."""
    context = json.dumps(
        {
            "name": "X",
            "hours": {"Monday": "8:0-14:0"},
            "attributes": {
                "WiFi": "free",
                "Music": False,
                "Alcohol": None,
                "BusinessParking": {"garage": False, "street": False},
            },
        }
    )
    said = {
        "The data does not mention whether there is WiFi.": ["WiFi: free"],
        "The data does not provide information about its operating hours.": ['hours: {"Monday": "8:0-14:0"}'],
        "It has WiFi, but the data gives no information about parking facilities.": [
            'BusinessParking: {"garage": false, "street": false}'
        ],
        "There is no mention of live music.": [],
        "Alcohol is not mentioned.": [],
    }
    for answer, contradicted in said.items():
        labels, _ = check(claims_check, answer, context)
        assert [label.split(": the context says ")[1] for label in labels] == contradicted, answer


@pytest.mark.parametrize(
    "answer",
    [
        "The reviews do not mention WiFi.",  # what reviews leave out is no claim about the record
        "One reviewer did not mention parking.",
        "It is unclear whether the parking is validated, but street parking is available.",
        "The data does not mention a dress code, though the atmosphere is casual.",
        "Validated parking is not mentioned, and valet parking is unknown.",  # fields, not the group
        "The business offers free WiFi, though its hours on Monday are not listed.",
        "The listing does not mention food, but it does note happy hour.",
        "Is there outdoor seating? The record does not say.",  # a question states nothing
    ],
)
def test_what_is_left_unsaid_is_read_only_of_the_record_and_of_its_own_clause(
    claims_check: ClaimsCheck, answer: str
) -> None:
    context = json.dumps(
        {
            "name": "X",
            "hours": {"Tuesday": "11:0-22:0"},
            "attributes": {
                "WiFi": "free",
                "OutdoorSeating": False,
                "HappyHour": True,
                "BusinessParking": {"street": True, "validated": None, "valet": None},
                "Ambience": {"casual": True},
            },
        }
    )
    assert check(claims_check, answer, context)[0] == [], answer
