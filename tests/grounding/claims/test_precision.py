"""The claims signal contradicts only a statement about the same thing: the same slot, subject and
relation; names in the same role; polarity read on the aligned statement; a record's fields apart."""

from __future__ import annotations

import json

import pytest

from trustscore import Sample, Signal
from trustscore.grounding.claims._signal import ClaimsCheck

SCHOOL = (
    "Westfield primary school was founded in 1953 by the teacher Ruth Abara. It has 420 pupils and 18 "
    "teachers. It has no swimming pool."
)
QUESTION = "Tell me about Westfield primary school."


def score(check: ClaimsCheck, response: str, context: str = SCHOOL, question: str = QUESTION) -> Signal:
    return check.score(Sample(question=question, context=[context], response=response))


def contradictions(signal: Signal) -> list[str]:
    return list(signal.raw.get("contradictions", [])) if isinstance(signal.raw, dict) else []  # type: ignore[arg-type]


def count(signal: Signal, outcome: str) -> int:
    return int(signal.raw.get(outcome, 0)) if isinstance(signal.raw, dict) else 0  # type: ignore[arg-type]


def kinds(signal: Signal) -> list[str]:
    return [
        str(s.label).split(":")[0].removeprefix("contradicted ")
        for s in signal.spans
        if str(s.label).startswith("contradicted")
    ]


@pytest.mark.parametrize(
    "answer",
    [
        SCHOOL,
        "The school, started by the teacher Ruth Abara in 1953, has 420 pupils and 18 teachers but does "
        "not have a swimming pool.",
    ],
)
def test_the_school_verbatim_and_paraphrased_is_supported(claims_check: ClaimsCheck, answer: str) -> None:
    signal = score(claims_check, answer)
    assert signal.value == 1.0 and not contradictions(signal)
    assert signal.raw["supported"] >= 3  # type: ignore[index,operator]


@pytest.mark.parametrize(
    ("answer", "kind", "reason"),
    [
        ("It has 240 pupils.", "number", "240: the context says 420"),
        ("Westfield primary school was founded in 1935.", "date", "1935: the context says 1953"),
        ("It was founded by the teacher Helen Marsh.", "name", "Helen Marsh: the context says Ruth Abara"),
        (
            "Westfield primary school has a swimming pool.",
            "negation",
            "the context says It has no swimming pool",
        ),
    ],
)
def test_each_school_error_is_contradicted_and_named(
    claims_check: ClaimsCheck, answer: str, kind: str, reason: str
) -> None:
    signal = score(claims_check, answer)
    assert signal.value is not None and signal.value <= 0.15
    assert kinds(signal) == [kind]
    assert reason in contradictions(signal)[0]


def test_a_value_is_compared_only_with_a_value_of_its_slot(claims_check: ClaimsCheck) -> None:
    # 18 is the teachers' count, not the pupils': a count of X against a count of X
    assert contradictions(score(claims_check, "It has 18 pupils.")) == ["18: the context says 420"]
    # a count the context never gives (no rival of its unit) is unsupported, not contradicted
    staff = score(claims_check, "It has 25 cooks.")
    assert count(staff, "contradicted") == 0 and count(staff, "unsupported") == 1
    # a clock time is not a rating; a count is not a year
    shop = "The shop has a rating of 4.0. It opened in 1998 and sells 300 kinds of tea."
    assert count(score(claims_check, "It is open until 8 pm.", shop, ""), "contradicted") == 0
    assert contradictions(score(claims_check, "It sells 350 kinds of tea.", shop, "")) == [
        "350: the context says 300"
    ]


@pytest.mark.parametrize(
    ("question", "answer", "said"),
    [
        ("When was Westfield primary school founded?", "1935.", ["1935: the context says 1953"]),
        ("When was Westfield primary school founded?", "In 1935.", ["1935: the context says 1953"]),
        ("When was Westfield primary school founded?", "1953.", []),
        # a hedged value is approximate, and a question about another event has no slot here
        ("When was Westfield primary school founded?", "Around 1950.", []),
        ("When did Ruth Abara retire?", "1985.", []),
        ("When was Westfield primary school a new school?", "1954.", []),  # "was" asks nothing
        ("When was Westfield primary school founded?", "In the 1950s.", []),  # a decade is no one year
    ],
)
def test_a_bare_answer_fills_the_slot_the_question_asks_about(
    claims_check: ClaimsCheck, question: str, answer: str, said: list[str]
) -> None:
    assert contradictions(score(claims_check, answer, question=question)) == said


def test_a_bare_count_without_its_unit_is_not_read_against_a_count_of_something(
    claims_check: ClaimsCheck,
) -> None:
    """ "240." answering "How many pupils?" could be read against 420 pupils, but a bare number names
    no unit: unsupported, not contradicted."""
    signal = score(claims_check, "240.", question="How many pupils does it have?")
    assert count(signal, "contradicted") == 0


def test_an_amount_in_another_currency_fills_the_same_slot(claims_check: ClaimsCheck) -> None:
    context = "Climbing permits cost 150 dollars and are required all year. A guide costs 90 dollars a day."
    assert contradictions(score(claims_check, "Climbing permits cost 150 euros.", context, "")) == [
        "150 euros: the context says 150 dollars"
    ]
    assert contradictions(score(claims_check, "Climbing permits cost 150 dollars.", context, "")) == []
    assert contradictions(score(claims_check, "Climbing permits cost $150.", context, "")) == []
    # another amount in another currency may be a conversion; pounds may weigh
    assert contradictions(score(claims_check, "Climbing permits cost about 140 euros.", context, "")) == []
    baby = "The baby weighed 3.2 kilograms and cost 900 dollars to deliver."
    assert contradictions(score(claims_check, "7 pounds.", baby, "How much did the baby weigh?")) == []


def test_a_value_of_another_subject_is_not_a_rival(claims_check: ClaimsCheck) -> None:
    context = "The Rowan Museum has 12 galleries. The city library has 40 staff."
    signal = score(claims_check, "The Rowan Museum has 30 staff.", context, "")
    assert count(signal, "contradicted") == 0 and count(signal, "unsupported") == 1


def test_a_name_is_contradicted_only_in_the_same_role(claims_check: ClaimsCheck) -> None:
    context = "The bridge was designed by the engineer Clara Voss and opened in Leeds."
    assert kinds(score(claims_check, "It was designed by the engineer Maria Lang.", context, "")) == ["name"]
    # a place where the context names a person (another group), or a name in another role: no rival
    moved = score(claims_check, "Clara Voss lives in Paris.", context, "")
    assert count(moved, "contradicted") == 0


def test_a_name_glued_to_what_precedes_it_is_still_named_there(claims_check: ClaimsCheck) -> None:
    context = (
        "West of Baghdad, Iraq (CNN)Falih Essawi shouted on the phone as he described his situation. "
        "One fleeing resident, Abu Ahmed, said the fighters were busy setting things up."
    )
    signal = score(claims_check, "Falih Essawi said that the situation is dire.", context, "")
    assert count(signal, "contradicted") == 0


def test_a_conjunct_fills_the_slot_of_the_phrase_it_is_joined_to(claims_check: ClaimsCheck) -> None:
    context = (
        "The suit also names as a defendant the clinic where the embryos are being held, the Art "
        "Reproductive Center in Beverly Hills."
    )
    answer = 'The lawsuit, which names the couple as "Jane Doe" and "John Doe," asks the court to act.'
    assert count(score(claims_check, answer, context, ""), "contradicted") == 0
    founders = "The library was founded by the teacher Ann Lee and the printer Bob Marsh."
    changed = score(claims_check, "It was founded by Ann Lee and the printer Carl Smith.", founders, "")
    assert contradictions(changed) == ["Carl Smith: the context says Bob Marsh"]


def test_a_name_given_as_one_example_of_several_has_no_rival(claims_check: ClaimsCheck) -> None:
    context = "The charity works in seven countries, including Libya, Tunisia and Morocco."
    answer = "The charity works in many countries, including Kenya, Syria and Somalia."
    signal = score(claims_check, answer, context, "")
    assert count(signal, "contradicted") == 0 and count(signal, "unsupported") == 3
    # "such as" and the object of "include" give examples too, in part of a sentence copied or not
    for context, answer in (
        (
            "The festival drew stars such as Tom Hanks.",
            "The festival drew famous actors such as Meryl Streep.",
        ),
        (
            "The charity works in countries such as Libya and Tunisia.",
            "The charity works with groups in countries such as Kenya and Somalia.",
        ),
        (
            "The touring team includes the drummer Ann Lee, who joined in 2019.",
            "The team includes Bob Marsh.",
        ),
    ):
        assert count(score(claims_check, answer, context, ""), "contradicted") == 0, answer
    # a name in the slot of one that is no example is still read against it: a place, the subject
    visits = "Malakooti visited Tunisia in May."
    assert contradictions(score(claims_check, "Malakooti visited Egypt in May.", visits, "")) == [
        "Egypt: the context says Tunisia"
    ]
    tour = "The tour included a stop in Paris, where the band played for 3 hours."
    assert contradictions(score(claims_check, "The band's tour included a stop in London.", tour, "")) == [
        "London: the context says Paris"
    ]
    board = "Microsoft's board includes five independent members, the filing said."
    assert contradictions(
        score(claims_check, "Google's board includes five independent members.", board, "")
    ) == ["Google: the context says Microsoft"]


def test_another_languages_particles_are_not_a_different_name(claims_check: ClaimsCheck) -> None:
    context = "The footbridge was designed by the engineer Tomas Reyes."
    for answer in ("It was designed by von Tomas Reyes.", "It was designed by the engineer Tomas Reyes."):
        assert score(claims_check, answer, context, "").value == 1.0, answer
    # a misspelling of the same name is not another person
    assert count(score(claims_check, "It was designed by Tomas Reyess.", context, ""), "contradicted") == 0


def test_negation_is_read_on_the_aligned_statement(claims_check: ClaimsCheck) -> None:
    context = "The Rovers won the final in May. The club has a training ground in Hull."
    lost = score(claims_check, "The Rovers did not win the final.", context, "")
    assert kinds(lost) == ["negation"]
    assert count(score(claims_check, "The Rovers won the final.", context, ""), "contradicted") == 0
    # a negation about something the context does not state is no contradiction
    other = score(claims_check, "The Rovers did not win the cup in 1990.", context, "")
    assert count(other, "contradicted") == 0


@pytest.mark.parametrize(
    "framed",
    [
        "On the other hand, the ATV is not physically demanding to ride.",
        "According to the passages, the ATV is not physically demanding to ride.",
        "Based on the information provided, the ATV is not physically demanding to ride.",
    ],
)
def test_a_linking_phrase_or_a_named_source_is_not_what_the_clause_says(
    claims_check: ClaimsCheck, framed: str
) -> None:
    """ "On the other hand" and "according to the passages" frame the clause: their nouns do not make
    it a statement about something else than the context's."""
    context = "The ATV is more physically demanding to ride, and the rider must use balance."
    assert kinds(score(claims_check, framed, context, "")) == ["negation"]
    kept = framed.replace(" not", "")
    assert count(score(claims_check, kept, context, ""), "contradicted") == 0


def test_a_plural_proper_noun_is_the_same_subject_as_its_singular(claims_check: ClaimsCheck) -> None:
    """The tagger reads "Rottweilers" after "Overall," as a plural proper noun, whose lemma it keeps."""
    context = "The Rottweiler is easy to train, and it loves water."
    denied = "Overall, Rottweilers are not easy to train."
    assert kinds(score(claims_check, denied, context, "")) == ["negation"]


def test_a_clause_beside_a_checked_value_and_a_british_spelling_are_still_read(
    claims_check: ClaimsCheck,
) -> None:
    """The first clause's ages are checked as values of "die"; the second clause's polarity is read all
    the same, and "hospitalised" states what "hospitalized" does."""
    context = (
        "Gary Terry, 36, died at the scene. The driver, Tavon Watson, 24, was taken to hospital. "
        "He was hospitalized with minor injuries."
    )
    wrong = "The passenger, 36-year-old Gary Terry, died at the scene, and the driver, 24-year-old Tavon "
    assert kinds(
        score(claims_check, wrong + "Watson, was not hospitalised with minor injuries.", context, "")
    ) == ["negation"]
    right = score(claims_check, wrong + "Watson, was hospitalised with minor injuries.", context, "")
    assert count(right, "contradicted") == 0


def test_a_report_is_about_what_it_reports(claims_check: ClaimsCheck) -> None:
    """ "He" after "The driver lost control, police said" is the driver, not the police."""
    context = (
        "The driver, Tavon Watson, lost control of the car, police said. He was hospitalized with minor "
        "injuries."
    )
    signal = score(
        claims_check, "The driver, Tavon Watson, was not hospitalized with minor injuries.", context, ""
    )
    assert kinds(signal) == ["negation"]


@pytest.mark.parametrize(
    ("answer", "negated"),
    [
        ("It has 420 pupils and a swimming pool.", True),
        ("It has 420 pupils and no swimming pool.", False),
        ("It has 420 pupils and 18 teachers.", False),
        ("It has no swimming pool and 420 pupils.", False),
        ("It has no swimming pool but 18 teachers.", False),
    ],
)
def test_coordinated_objects_are_read_one_by_one(
    claims_check: ClaimsCheck, answer: str, negated: bool
) -> None:
    """The pool beside the pupils is still a pool the school does not have."""
    assert (kinds(score(claims_check, answer)) == ["negation"]) is negated
    assert count(score(claims_check, answer), "contradicted") == int(negated)


@pytest.mark.parametrize(
    ("answer", "negated"),
    [
        ("The hotel has neither a pool nor a gym.", True),
        ("The hotel has no pool or gym.", True),
        ("The hotel has no pool and a gym.", False),
        ("The hotel has a gym and no pool.", False),
    ],
)
def test_neither_nor_and_or_carry_a_negation_and_and_does_not(
    claims_check: ClaimsCheck, answer: str, negated: bool
) -> None:
    context = "The hotel has a gym. It has no pool."
    assert (kinds(score(claims_check, answer, context, "")) == ["negation"]) is negated


def test_a_predicate_noun_is_read_for_its_negation(claims_check: ClaimsCheck) -> None:
    context = "The sirloin steak is a steak cut from the rear of the animal."
    wrong = score(
        claims_check, "The sirloin steak is not a steak cut from the rear of the animal.", context, ""
    )
    assert kinds(wrong) == ["negation"]
    right = score(claims_check, "The sirloin steak is a steak cut from the rear of the animal.", context, "")
    assert count(right, "contradicted") == 0


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (
            "It is a way to humiliate the enemy and a tactic of ethnic cleansing.",
            "Rape is not only a way to humiliate the enemy but also a tactic of ethnic cleansing.",
        ),
        (
            "For the fifth year in a row, ambush attacks were the No. 1 cause of deaths of officers.",
            "Ambush attacks have been the leading cause of deaths of officers.",
        ),
        (
            "The student said that she did not immediately turn to prostitution but used it as a last resort",
            "The student says she turned to prostitution after her loan failed to cover the rent.",
        ),
        (
            "Advertising can drive up testing volume, so the freedom to test won't save money.",
            "The freedom to test does not necessarily save money.",
        ),
        (
            "Mule deer have a black tip on the tail. White tails don't have a black tip on the tail.",
            "Mule deer have a black tip on their tail, while white-tailed deer do not have this black tip.",
        ),
    ],
)
def test_not_only_a_hedge_number_one_and_a_contrast_are_no_negations(
    claims_check: ClaimsCheck, context: str, answer: str
) -> None:
    assert count(score(claims_check, answer, context, ""), "contradicted") == 0


@pytest.mark.parametrize(
    "answer",
    [
        "The warranty covers defects in materials and workmanship for two years, but not limescale damage "
        "or use with a non-standard power supply.",
        "The warranty covers defects in materials and workmanship, not limescale damage.",
    ],
)
def test_what_a_clause_denies_beside_what_it_asserts_is_no_contradiction(
    claims_check: ClaimsCheck, answer: str
) -> None:
    """ "Covers X, but not Y" asserts X and denies Y: read against "does not cover Y" it agrees (the
    bundled example ex04 was flagged for it)."""
    context = (
        "The kettle comes with a two-year warranty covering defects in materials and workmanship. "
        "The warranty does not cover limescale damage or use with a non-standard power supply."
    )
    assert count(score(claims_check, answer, context, "What does the warranty cover?"), "contradicted") == 0


def test_an_antonym_contradicts_and_a_negated_antonym_agrees(claims_check: ClaimsCheck) -> None:
    context = "The museum is closed on Mondays. Its garden is open in summer."
    assert kinds(score(claims_check, "The museum is open on Mondays.", context, "")) == ["predicate"]
    assert score(claims_check, "The museum is not open on Mondays.", context, "").value == 1.0
    # two adjectives that are not opposites contradict nothing
    assert count(score(claims_check, "Its garden is lovely in summer.", context, ""), "contradicted") == 0


def test_an_exception_the_answer_includes_is_contradicted(claims_check: ClaimsCheck) -> None:
    context = "The shop is open every day except Sunday."
    signal = score(claims_check, "The shop is open every day, Sunday included.", context, "")
    assert kinds(signal) == ["negation"] and "except Sunday" in contradictions(signal)[0]
    assert score(claims_check, "The shop is open every day except Sunday.", context, "").value == 1.0


def test_a_record_field_is_compared_only_with_a_value_of_that_field(claims_check: ClaimsCheck) -> None:
    record = json.dumps(
        {
            "name": "Finch & Fork",
            "city": "Santa Barbara",
            "state": "CA",
            "business_stars": 4.0,
            "review_count": 5,
            "hours": {"Monday": "17:30-23:0"},
        }
    )
    assert kinds(score(claims_check, "Finch & Fork is rated 3.5 stars.", record, "")) == ["number"]
    assert score(claims_check, "Finch & Fork is rated 4.0 stars.", record, "").value == 1.0
    # a count of another thing, a state's full name: no field of theirs to compare with
    for answer in (
        "Finch & Fork serves 30 dishes.",
        "Finch & Fork is in Santa Barbara, California.",
    ):
        assert count(score(claims_check, answer, record, ""), "contradicted") == 0, answer  # type: ignore[index]


RECORD = json.dumps(
    {
        "name": "Finch & Fork",
        "hours": {"Monday": "17:30-23:0", "Sunday": "9:0-14:0"},
        "attributes": {
            "BusinessParking": {"garage": True, "valet": False},
            "RestaurantsReservations": True,
            "OutdoorSeating": False,
            "Ambience": {"casual": False, "classy": True},
        },
    }
)


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("Finch & Fork does not take reservations.", "RestaurantsReservations: true"),
        ("It has outdoor seating.", "OutdoorSeating: false"),
        ("It has a casual atmosphere.", "Ambience.casual: false"),
        ("It offers valet parking.", "BusinessParking.valet: false"),
    ],
)
def test_a_yes_no_field_stated_the_other_way_is_contradicted(
    claims_check: ClaimsCheck, answer: str, said: str
) -> None:
    signal = score(claims_check, answer, RECORD, "")
    assert kinds(signal) == ["field"] and said in contradictions(signal)[0]


def test_a_yes_no_field_stated_as_the_record_says_is_supported(claims_check: ClaimsCheck) -> None:
    answer = "Finch & Fork takes reservations, has a classy vibe and garage parking, and no outdoor seating."
    signal = score(claims_check, answer, RECORD, "")
    assert signal.value == 1.0
    assert signal.raw["supported"] >= 4  # type: ignore[index,operator]
    # a word of the field without its parent's is not a statement of it: "casual" alone
    assert count(score(claims_check, "Finch & Fork serves casual food.", RECORD, ""), "contradicted") == 0


def test_opening_hours_are_read_against_the_records_hours(claims_check: ClaimsCheck) -> None:
    assert score(claims_check, "On Sundays it is open from 9:00 am to 2:00 pm.", RECORD, "").value == 1.0
    wrong = score(claims_check, "On Sundays it is open from 10 am to 2 pm.", RECORD, "")
    assert contradictions(wrong) == [
        "Sundays it is open from 10 am to 2 pm: the context says the hours are Sunday 9:00-14:00"
    ]
    assert kinds(score(claims_check, "It is open every day.", RECORD, "")) == ["hours"]


def test_the_times_and_days_of_a_supported_hours_statement_are_not_also_unsupported_numbers(
    claims_check: ClaimsCheck,
) -> None:
    week = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    record = json.dumps({"name": "805 Kabob", "hours": dict.fromkeys(week, "10:0-22:0")})
    answer = "The restaurant is open seven days a week from 10 am to 10 pm, making it a convenient option."
    signal = score(claims_check, answer, record, "")
    assert signal.value == 1.0 and not signal.spans, signal.explanation
    assert signal.raw["kinds"] == ["hours"]  # type: ignore[index]
    late = score(claims_check, "It is open seven days a week from 10 am to 11 pm.", record, "")
    assert count(late, "contradicted") == 1  # type: ignore[index]


def test_a_value_between_two_supported_times_is_still_checked(claims_check: ClaimsCheck) -> None:
    record = json.dumps({"name": "Finch & Fork", "hours": {"Monday": "17:30-23:0"}, "review_count": 5})
    answer = "It opens at 5:30 pm, has 12 reviews, and closes at 11 pm."
    assert contradictions(score(claims_check, answer, record, "")) == ["12: the context says 5"]


def test_a_partitive_count_counts_its_noun(claims_check: ClaimsCheck) -> None:
    context = "Three of the alleged attackers were killed. Police arrested 12 people."
    assert contradictions(score(claims_check, "Four alleged attackers were killed.", context, "")) == [
        "Four: the context says Three"
    ]
    assert score(claims_check, "Three alleged attackers were killed.", context, "").value == 1.0


def test_a_rating_out_of_a_scale_and_a_field_after_without(claims_check: ClaimsCheck) -> None:
    record = json.dumps(
        {
            "name": "Finch & Fork",
            "attributes": {"Ambience": {"casual": False, "trendy": False, "classy": True}},
            "business_stars": 3.5,
            "review_info": [{"review_stars": 1.0}],
        }
    )
    # the 5 of "out of 5" is the scale, not a rating
    assert score(claims_check, "It is rated 3.5 out of 5 stars.", record, "").value == 1.0
    assert contradictions(score(claims_check, "It is rated 4.5 out of 5 stars.", record, "")) == [
        "4.5: the context says 3.5"
    ]
    answer = "Their ambiance is classy without being too trendy or casual."
    assert score(claims_check, answer, record, "").value == 1.0


@pytest.mark.parametrize(
    "answer",
    [
        "Parking is available in a garage, but neither street parking, valet, nor lot parking is provided.",
        "However, they do not take reservations, offer live music, or have a specific ambience.",
        "The restaurant offers takeout but does not have Wi-Fi or accept reservations.",
        "The bar's ambience leans more towards being a divey place rather than trendy or upscale.",
    ],
)
def test_a_negation_shared_by_coordinated_fields_reaches_each(claims_check: ClaimsCheck, answer: str) -> None:
    record = json.dumps(
        {
            "attributes": {
                "BusinessParking": {"garage": True, "street": False, "lot": False, "valet": False},
                "RestaurantsReservations": False,
                "Music": False,
                "Ambience": {"trendy": False, "upscale": False, "divey": True},
            }
        }
    )
    signal = score(claims_check, answer, record, "")
    assert signal.value == 1.0, contradictions(signal)


def test_a_negation_does_not_cross_into_a_clause_with_its_own_subject(claims_check: ClaimsCheck) -> None:
    record = json.dumps({"attributes": {"RestaurantsReservations": False, "OutdoorSeating": True}})
    for answer in (
        "The restaurant does not take reservations, but outdoor seating is available.",
        "They do not take reservations and have outdoor seating available.",
    ):
        assert score(claims_check, answer, record, "").value == 1.0, answer


def test_a_wordnet_antonym_of_the_contexts_predicate_contradicts(claims_check: ClaimsCheck) -> None:
    """The pair "large" / "small" is not listed: WordNet's direct antonyms make them opposites."""
    context = "The school's playground is small. Its library is new."
    assert kinds(score(claims_check, "The playground is large.", context, "")) == ["predicate"]
    assert score(claims_check, "The playground is not large.", context, "").value == 1.0


def test_a_name_the_context_excepts_from_one_statement_may_do_another(claims_check: ClaimsCheck) -> None:
    """ "without Wayne" excepts him from the incorporation only: that he sold his share is no inclusion;
    saying he was there ("with Wayne") still contradicts the exception."""
    context = (
        "Apple was incorporated January 3, 1977 without Wayne, who sold his share of the company back to "
        "Jobs and Wozniak for $800."
    )
    sold = score(
        claims_check,
        "In 1977, Apple was incorporated, and Wayne sold his share of the company back to Jobs and Wozniak.",
        context,
    )
    assert not contradictions(sold) and sold.value == 1.0
    with_him = score(claims_check, "Apple was incorporated in 1977 with Wayne.", context)
    assert kinds(with_him) == ["negation"] and "except Wayne" in contradictions(with_him)[0]


def test_you_in_the_context_is_not_the_subject_of_the_sentence_before(claims_check: ClaimsCheck) -> None:
    """A clause whose subject is "you" speaks of the reader, not of the previous sentence's subject:
    "you can increase your score" is not what "watching stories does not increase your score" denies."""
    context = (
        "The obvious way to increase your Snapchat score is to send and receive more Snaps. Remember, you "
        "can increase your score simply by adding more friends and increasing your Snapchat interaction."
    )
    answer = "No, watching Snapchat stories does not increase your score."
    signal = score(claims_check, answer, context, "Does watching Snapchat stories increase your score?")
    assert count(signal, "contradicted") == 0
    same = score(claims_check, "You cannot increase your score by adding more friends.", context)
    assert kinds(same) == ["negation"]


def test_a_date_in_or_on_or_bare_is_one_time_slot_for_the_polarity(claims_check: ClaimsCheck) -> None:
    """A date with "in", "on" or none is one slot (when): "not incorporated in 1977" denies what
    "incorporated January 3, 1977" states, so the negation is read on it."""
    context = "Apple was incorporated January 3, 1977 by Jobs and Wozniak."
    signal = score(claims_check, "In 1977, Apple was not incorporated.", context)
    assert kinds(signal) == ["negation"] and "1977" in contradictions(signal)[0]
    assert count(score(claims_check, "Apple was incorporated in 1977.", context), "contradicted") == 0


def test_worse_contradicts_better_said_of_the_same_value(claims_check: ClaimsCheck) -> None:
    """spaCy lemmatises "better" as "well" and "worse" as "bad": the pair is an antonym of a predicate."""
    context = "The air quality index in Sausalito is 13% better than the national average."
    signal = score(claims_check, "The air quality index is 13% worse than the national average.", context)
    assert kinds(signal) == ["predicate"]
    same = score(claims_check, "The air quality index is 13% better than the national average.", context)
    assert count(same, "contradicted") == 0


def test_a_number_inside_a_name_or_an_address_supports_the_same_number(claims_check: ClaimsCheck) -> None:
    """A record's address is no number atom: its street number, or the number in the business's name,
    written on its own in the answer is the record's, not an unsupported count."""
    record = json.dumps(
        {"name": "805 Deli", "address": "135 E Carrillo St", "city": "Santa Barbara", "stars": 4.5}
    )
    right = score(claims_check, "805 Deli is located at 135 E Carrillo St in Santa Barbara.", record, "")
    assert count(right, "unsupported") == 0 and count(right, "contradicted") == 0
    moved = score(claims_check, "805 Deli is located at 531 E Carrillo St in Santa Barbara.", record, "")
    assert count(moved, "supported") < count(right, "supported")
    assert count(moved, "unsupported") + count(moved, "contradicted") >= 1


def test_a_one_the_context_cannot_compare_is_left_unchecked(claims_check: ClaimsCheck) -> None:
    """ "One customer mentioned" counts nothing the reviews must state; "three customers" does."""
    context = (
        "Review: The fries were cold but the burger was great. Review: Friendly staff and quick service."
    )
    one = score(claims_check, "One customer mentioned that the fries were cold.", context, "")
    assert count(one, "unsupported") == 0
    three = score(claims_check, "Three customers mentioned that the fries were cold.", context, "")
    assert count(three, "unsupported") == 1


@pytest.mark.parametrize("written", ["350°F", "350 F", "350 degrees F", "350 degrees Fahrenheit"])
def test_a_temperature_is_one_value_however_its_unit_is_spelled(
    claims_check: ClaimsCheck, written: str
) -> None:
    context = "Heat the oven to 350 degrees Fahrenheit and bake the brats for 30 minutes."
    same = score(claims_check, f"Bake the brats at {written} for 30 minutes.", context, "")
    assert count(same, "unsupported") == 0 and count(same, "contradicted") == 0


def test_a_temperature_on_the_other_scale_is_not_supported(claims_check: ClaimsCheck) -> None:
    context = "Heat the oven to 350 degrees Fahrenheit and bake the brats for 30 minutes."
    other = score(claims_check, "Bake the brats at 350°C for 30 minutes.", context, "")
    assert count(other, "unsupported") + count(other, "contradicted") == 1


def test_a_percentage_written_as_a_word_after_the_number_is_a_percentage(claims_check: ClaimsCheck) -> None:
    context = "3pm: partly cloudy, 64 degrees. There is 42 percentage chance of rain."
    signal = score(claims_check, "There is a 42% chance of rain at 3pm.", context, "")
    assert count(signal, "unsupported") == 0 and count(signal, "contradicted") == 0


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (
            "The crash happened on Highway 101 near San Jose. Three people were killed.",
            "101 people were killed in the crash on Highway 101.",
        ),
        (
            "The interview was broadcast on BBC Radio 4. Twelve people were injured in the fire.",
            "4 people were injured in the fire.",
        ),
    ],
)
def test_a_number_inside_a_name_is_no_count_of_something_else(
    claims_check: ClaimsCheck, context: str, answer: str
) -> None:
    assert kinds(score(claims_check, answer, context, "")) == ["number"]


def test_an_address_number_does_not_vouch_for_a_count(claims_check: ClaimsCheck) -> None:
    record = json.dumps({"name": "Joe's Deli", "address": "135 E Carrillo St", "review_count": 12})
    assert count(score(claims_check, "Joe's Deli has 135 reviews.", record, ""), "supported") == 1


@pytest.mark.parametrize(
    ("context", "answer", "same"),
    [
        ("The water boils at 100°C at sea level.", "The water boils at 100°F at sea level.", False),
        ("The water boils at 212°F.", "The water boils at 212°C.", False),
        ("Water boils at 100 degrees Celsius at sea level.", "Water boils at 100°F at sea level.", False),
        ("Water boils at 100 degrees Celsius at sea level.", "Water boils at 100°C at sea level.", True),
        ("Preheat the oven to 200°C.", "Preheat the oven to 200 C.", True),
        ("The high today will be 95 degrees Fahrenheit.", "The high today will be 95 F.", True),
        ("Heat the oven to 350 degrees and bake the brats.", "Bake the brats at 350°F.", True),
    ],
)
def test_a_temperatures_scale_is_read_inside_and_after_its_value(
    claims_check: ClaimsCheck, context: str, answer: str, same: bool
) -> None:
    """A scale the value's words name ("212°F" as one entity, "100 degrees Celsius") or the words
    after it name ("200 C."); a value whose scale is unsaid agrees with either."""
    signal = score(claims_check, answer, context, "")
    assert (count(signal, "unsupported") + count(signal, "contradicted") == 0) is same


@pytest.mark.parametrize(
    ("context", "answer", "same"),
    [
        (
            "The company raised $4 million in its first round.",
            "The company raised $4m in its first round.",
            True,
        ),
        (
            "The company raised $4m in its first round.",
            "The company raised $4 million in its first round.",
            True,
        ),
        ("The deal was worth £6.4bn.", "The deal was worth £6.4 billion.", True),
        ("The deal was worth £6.4 billion.", "The deal was worth £6.4bn.", True),
        ("The house sold for $400k.", "The house sold for $400,000.", True),
        (
            "The company raised $4m in its first round.",
            "The company raised $4 billion in its first round.",
            False,
        ),
        ("The deal was worth £6.4bn.", "The deal was worth £6.4 million.", False),
        ("The deal was worth £6.4 billion.", "The deal was worth £6.5bn.", False),
        ("The house sold for $400k.", "The house sold for $450,000.", False),
        ("The house sold for $5,000.", "The house sold for $5k.", True),
        ("The council said the new bridge cost £20m.", "The new bridge cost £20m, the council said.", True),
        (
            "The council said the new bridge cost £20 million.",
            "The council said the new bridge cost £20m.",
            True,
        ),
        ("The deal was worth £1.5bn.", "The deal was worth £1,500m.", True),
        (
            "The company raised 4 million dollars in its first round.",
            "The company raised $4m in its first round.",
            True,
        ),
    ],
)
def test_an_amounts_scale_is_one_value_abbreviated_or_written_out(
    claims_check: ClaimsCheck, context: str, answer: str, same: bool
) -> None:
    """ "$4m" is four million dollars, as news copy writes it, whether the recogniser leaves the "m" out
    of the amount, the tokeniser keeps "6.4bn" as one word or a full stop ends it ("£20m."); another
    scale or value is contradicted."""
    signal = score(claims_check, answer, context, "")
    assert count(signal, "contradicted") == (0 if same else 1)
    assert count(signal, "unsupported") == 0


@pytest.mark.parametrize(
    ("context", "answer", "contradicted", "unsupported"),
    [
        ("He was born on Feb 14 in Ohio.", "He was born on March 14 in Ohio.", 1, 0),
        ("He was born on Feb 14 in Ohio.", "He was born on Feb 15 in Ohio.", 1, 0),
        ("He was born on Feb 14 in Ohio.", "He was born on 14 February in Ohio.", 0, 0),
        ("He was born on 14 February 1990 in Ohio.", "He was born on Feb 14 in Ohio.", 0, 0),
        ("He was born on 14 February 1990 in Ohio.", "He was born on March 14 in Ohio.", 1, 0),
        ("He was born in 1990 in Ohio.", "He was born on March 14 in Ohio.", 0, 1),
        ("The shop opened in March and closed in 2011.", "The shop opened in May.", 1, 0),
        ("The festival runs from June 3 to June 9.", "The festival is open on June 4.", 0, 0),
        ("The festival runs from June 3 to June 9.", "The festival is open on July 4.", 0, 1),
        ("The school opened on March 14.", "The school has 14 pupils.", 0, 1),
        ("The forecast for Feb 14 is 64 degrees.", "On Feb 14 it will be 64 degrees.", 0, 0),
        ("The forecast for Feb 14 is 64 degrees.", "On March 14 it will be 64 degrees.", 1, 0),
        ("Strikes will take place on March 3, 4 and 5.", "Strikes will take place on March 4.", 0, 0),
        ("The store is closed on 25 and 26 December.", "The store is closed on 25 December.", 0, 0),
        ("The store is closed on December 25 and January 1.", "The store is closed on January 1.", 0, 0),
        ("The shows are on June 3, June 10 and June 17.", "The show is on June 11.", 1, 0),
        ("On June 5, 12 people were hurt in the crash.", "The crash happened on June 12.", 0, 1),
        ("The tournament was held in 2018 and 2022.", "The tournament was held in 2022.", 0, 0),
        (
            "On 14 March 2019, 312 MPs voted against the deal.",
            "The deal was rejected on 15 March 2019.",
            0,
            1,
        ),
        ("Strikes will take place on March 3, 4 and 5.", "Strikes will take place on March 7.", 1, 0),
        ("The works will take place on 3, 4 and 5 March.", "The works will take place on 4 March.", 0, 0),
        ("The shop was closed from Dec 24 to Jan 2.", "The shop was closed on Dec 10.", 0, 1),
        ("The result came on 2 April.", "The result came on 2 April 2019.", 0, 1),
        ("Applications close in early March.", "Applications close in March.", 0, 0),
        (
            "Anyone under 16 is not allowed to enter the club.",
            "Anyone under 16 may not enter the club.",
            0,
            0,
        ),
        (
            "The marathon was first run on 16 October 1983. It is run in October.",
            "The marathon was first run on 16 October 1993.",
            1,
            0,
        ),
    ],
)
def test_a_date_without_its_year_is_compared_as_a_date(
    claims_check: ClaimsCheck, context: str, answer: str, contradicted: int, unsupported: int
) -> None:
    """ "March 14" is a month and a day, not the number 14: another month is contradicted, a year alone
    says nothing of it, a list or span of days of its month states the days in it (a span over two
    months states none), and its day counts nothing; a day the recogniser leaves out of a date is read
    with the month beside it, but not beside the modal "may"; a date without a year vouches for no
    year, and a month alone is no date."""
    signal = score(claims_check, answer, context, "")
    assert (count(signal, "contradicted"), count(signal, "unsupported")) == (contradicted, unsupported)


@pytest.mark.parametrize(
    ("answer", "finding"),
    [
        ("Unemployment rose by $6 last year.", "unsupported money: $6"),
        ("Unemployment rose by 8 percent last year.", "contradicted percent: 8 percent"),
        ("Unemployment rose by 6% last year.", None),
        ("A stamp now costs 60 cents.", "contradicted money: 60 cents"),
    ],
)
def test_per_cent_is_a_percentage_and_cents_are_money(
    claims_check: ClaimsCheck, answer: str, finding: str | None
) -> None:
    """The recogniser calls "6 per cent" money, by its "cent": read as $6 it would vouch for "$6"."""
    context = "Unemployment rose by 6 per cent last year, the office said. A stamp costs 50 cents."
    findings = [
        ": ".join(span.label.split(": ")[:2]) for span in score(claims_check, answer, context, "").spans
    ]
    assert findings == ([] if finding is None else [finding])


@pytest.mark.parametrize(
    ("answer", "finding"),
    [
        ("Five per cent of the students had worked in the sex industry.", None),
        ("Nearly 5% of the students had worked in the sex industry.", None),
        (
            "Eight per cent of the students had worked in the sex industry.",
            "contradicted percent: Eight per cent",
        ),
        ("15 per cent had thought about it.", "contradicted percent: 15 per cent"),
    ],
)
def test_a_percentage_the_recogniser_left_out_is_still_read(
    claims_check: ClaimsCheck, answer: str, finding: str | None
) -> None:
    """The recogniser tags the context's "nearly five per cent of them" as no entity, and an answer's
    "five per cent" as an amount of money: the context's is read as the percentage it is."""
    context = (
        "The survey by the University of Swansea revealed that nearly five per cent of them had actually "
        "worked in the sex industry, and 12 % had thought about it."
    )
    findings = [
        ": ".join(span.label.split(": ")[:2]) for span in score(claims_check, answer, context, "").spans
    ]
    assert findings == ([] if finding is None else [finding])


def test_percentage_points_are_not_a_percentage(claims_check: ClaimsCheck) -> None:
    context = "Support rose 3% in a month."
    signal = score(claims_check, "Support rose 3 percentage points in a month.", context, "")
    assert count(signal, "unsupported") == 1


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        ("Two people were killed in the crash.", "One person was killed in the crash."),
        ("Two men were arrested on Monday.", "One man was arrested on Monday."),
    ],
)
def test_a_one_its_slot_compares_is_still_contradicted(
    claims_check: ClaimsCheck, context: str, answer: str
) -> None:
    """ "people" counts persons: "one person" meets "two people" in its slot."""
    assert kinds(score(claims_check, answer, context, "")) == ["number"]


@pytest.mark.parametrize(
    "answer",
    [
        "Lucky Penny has 4.5 stars and 212 reviews; it is one of 2 Coast Village Rd restaurants I like.",
        "Lucky Penny has 212 reviews; it is one of 2 Coast Village Rd restaurants I like.",
    ],
)
def test_a_records_count_is_its_fields_whatever_noun_the_parse_hangs_it_on(
    claims_check: ClaimsCheck, answer: str
) -> None:
    """The parse hung the review count on the "stars" key before it, and the count was contradicted by
    itself ("212: the context says 212")."""
    record = json.dumps(
        {
            "name": "Lucky Penny",
            "address": "1187 Coast Village Rd",
            "city": "Santa Barbara",
            "stars": 4.5,
            "review_count": 212,
        }
    )
    signal = score(claims_check, answer, record, "Write an overview of the business.")
    assert not contradictions(signal) and count(signal, "unsupported") == 0


def test_a_price_per_unit_is_no_count_of_that_unit(claims_check: ClaimsCheck) -> None:
    record = json.dumps({"name": "Sea Hotel", "rooms": 50, "price_per_room": 200})
    said = contradictions(score(claims_check, "Sea Hotel has 200 rooms.", record, "Describe the hotel."))
    assert said == ["200: the context says 50"]
