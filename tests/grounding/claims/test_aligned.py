"""A response sentence is read against the context sentence it copies word for word, and a sentence
that copies one only in part is read one anchored change at a time: a negation, an antonym, a one-word
number or a name in the same slot contradicts; a range, the same number written otherwise, a name's
variant, words the context also says elsewhere and both sides said by the response do not."""

from __future__ import annotations

import pytest

from trustscore import Sample, Signal
from trustscore.grounding.claims._signal import ClaimsCheck

SCHOOL = (
    "Westfield primary school was founded in 1953 by the teacher Ruth Abara. It has 420 pupils and 18 "
    "teachers. It has no swimming pool."
)
GRILL = (
    "Heat the grill to medium. Continue to cook, flipping and brushing every 5 minutes, until the sauce "
    "has thickened and the ribs are heated through and have grill marks, for a total grilling time of 20 "
    "minutes. Hotel staff say Police Scotland said inquiries into the incident were ongoing on Monday. "
    "Police Scotland said inquiries into the incident were ongoing. The officers came from Berriedale in "
    "Caithness. Simmer until rice is tender and liquid is gone, 15 to 20 minutes for white rice."
)


def score(check: ClaimsCheck, response: str, context: str) -> Signal:
    return check.score(Sample(question="What happened?", context=[context], response=response))


def contradicted(signal: Signal) -> list[str]:
    return [str(s.label) for s in signal.spans if str(s.label).startswith("contradicted")]


@pytest.mark.parametrize(
    ("context", "answer", "label"),
    [
        (
            SCHOOL,
            "Westfield primary school has a swimming pool.",
            "contradicted negation: Westfield primary school has a swimming pool: the context says It has "
            "no swimming pool",
        ),
        (
            GRILL,
            "Keep cooking until the sauce has thickened and the ribs are not heated through.",
            "contradicted negation: the ribs are not heated through: the context says the ribs are heated "
            "through and have grill marks, for a total grilling time of …",
        ),
        (
            GRILL,
            "Let it simmer until rice is tender and the liquid is not gone.",
            "contradicted negation: the liquid is not gone: the context says and liquid is gone, 15",
        ),
        (
            "The horse had never collapsed before, and had shown no symptoms on Saturday.",
            "The horse had always collapsed before.",
            "contradicted negation: The horse had always collapsed before: the context says The horse had "
            "never collapsed before, and had shown no symptoms on Saturday",
        ),
        (
            "We go to Thai restaurants all the time and this was one of the best in central CA.",
            "It is one of the worst in central CA, reviewers say.",
            "contradicted predicate: worst: the context says best",
        ),
        (
            "A judge agreed to postpone the Arkansas case on 28 March to allow prosecutors to ask for help.",
            "A judge refused to postpone the Arkansas case on 28 March to allow prosecutors to ask for help.",
            "contradicted predicate: refused: the context says agreed",
        ),
    ],
)
def test_a_changed_polarity_in_the_aligned_statement_is_contradicted(
    claims_check: ClaimsCheck, context: str, answer: str, label: str
) -> None:
    signal = score(claims_check, answer, context)
    assert contradicted(signal) == [label]
    assert signal.value is not None and signal.value < 0.5


@pytest.mark.parametrize(
    "answer",
    [
        "Westfield primary school has 420 teachers and 18 pupils.",
        "It has 18 pupils and 420 teachers.",
    ],
)
def test_two_values_exchanged_between_their_slots_are_both_contradicted(
    claims_check: ClaimsCheck, answer: str
) -> None:
    """The response states both numbers, each in the other's slot: "18 pupils" does not restate the
    context's "18 teachers", so each number still meets the other in its slot."""
    found = contradicted(score(claims_check, answer, SCHOOL))
    assert sorted(found) == [
        "contradicted number: 18: the context says 420",
        "contradicted number: 420: the context says 18",
    ]


def test_an_exchange_in_a_copied_sentence_is_one_finding_per_value(claims_check: ClaimsCheck) -> None:
    """The copy check reads "2 floors and 3 cafes" as two stretches exchanged; the slot check already
    contradicts each value, so the exchange adds no polarity finding of its own."""
    signal = score(
        claims_check, "The museum has 2 floors and 3 cafes.", "The museum has 3 floors and 2 cafes."
    )
    assert sorted(contradicted(signal)) == [
        "contradicted number: 2: the context says 3",
        "contradicted number: 3: the context says 2",
    ]
    assert isinstance(signal.raw, dict)
    assert (signal.raw["contradicted_facts"], signal.raw["contradicted_polarity"]) == (2, 0)


def test_a_name_swapped_for_one_the_context_names_elsewhere_is_contradicted(
    claims_check: ClaimsCheck,
) -> None:
    """ "Berriedale in Caithness" stands in the context, but not in the slot of "Police Scotland said"."""
    signal = score(
        claims_check, "Police Berriedale in Caithness said inquiries into the incident were ongoing.", GRILL
    )
    assert contradicted(signal) == ["contradicted name: Berriedale in Caithness: the context says Scotland"]


@pytest.mark.parametrize(
    ("context", "answer", "label"),
    [
        (
            "Hope says that Deacon Sharpe is in love with Sheila Carter. B&B spoilers say that Ridge isn't "
            "surprised by the revelation.",
            "Deacon Sharpe spoilers say that Ridge isn't surprised by the revelation.",
            "contradicted name: Deacon Sharpe: the context says B&B",
        ),
        (
            "This is not the first time the U.S. has complained about an incident involving a RC-135U.",
            "This is not the first time Poland has complained about an incident involving a RC-135U.",
            "contradicted name: Poland: the context says U.S",
        ),
    ],
)
def test_a_name_written_with_marks_is_its_own_initials_not_the_others(
    claims_check: ClaimsCheck, context: str, answer: str, label: str
) -> None:
    """Initials are read across the two names ("US" for "United States"), never of one name against
    itself: "B&B" and "U.S." spell their own initials, which makes no other name the same thing."""
    assert contradicted(score(claims_check, answer, context)) == [label]


def test_the_copied_sentence_is_found_when_a_swapped_name_draws_the_alignment_elsewhere(
    claims_check: ClaimsCheck,
) -> None:
    context = (
        "The pitches the Rhinos share with Yorkshire Carnegie were flooded. \"We couldn't get anywhere "
        'near the site," said Hetherington.'
    )
    signal = score(
        claims_check, '"We couldn\'t get anywhere near the site," said Yorkshire Carnegie.', context
    )
    assert contradicted(signal) == ["contradicted name: Yorkshire Carnegie: the context says Hetherington"]


def test_an_amount_in_a_copied_name_slot_is_contradicted(claims_check: ClaimsCheck) -> None:
    context = (
        "McDonald's received $9.27bn in revenues in 2014. Franchisees cannot switch to competitors because "
        "McDonald's makes them sign longer-than-average contracts."
    )
    answer = "Franchisees cannot switch to competitors because $9.27bn makes them sign long contracts."
    context = context.replace("longer-than-average", "long")
    assert contradicted(score(claims_check, answer, context)) == [
        "contradicted name: 9.27bn: the context says McDonald's"
    ]


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        # the same number written otherwise, and a range read otherwise
        (
            "Expect 10 mph winds from the south on Monday afternoon.",
            "Expect 10mph winds from the south on Monday.",
        ),
        # one entity's variants: a shared surname, initials written with stops
        (
            "Kim Clark, from Kinross, died on Tuesday. Police said Mrs Clark's family were upset at their "
            "loss and that she would be greatly missed.",
            "Police said Kim Clark family were upset at their loss and that she would be greatly missed.",
        ),
        (
            "Officials in the U.S. said the talks would resume on Monday.",
            "Officials in the US said the talks would resume.",
        ),
        # the response states both sides ("left" and "right" steps), and the context says it elsewhere
        (
            "Fold the top left corner down towards the center of the quilt. Then press the fold flat.",
            "Fold the top left corner down towards the center. Fold the top right corner down towards it.",
        ),
        (
            "The shop is open on Sunday. Call ahead: the shop is not open on Sunday in winter.",
            "Call ahead: the shop is not open on Sunday.",
        ),
        # a negation moved within the sentence, not added or removed
        (
            "The bridge is not open to cars. It is open to walkers and cyclists.",
            "The bridge is open to walkers and cyclists but not to cars.",
        ),
        (
            "Glass is accepted in blue bins, but plastic bags, textiles and batteries are not.",
            "Glass can go in, but not plastic bags, textiles or batteries.",
        ),
        # a paraphrase around the copied phrase, nothing changed in a slot
        (GRILL, "Keep cooking until the sauce has thickened and the ribs are heated through."),
        (SCHOOL, "Westfield has 420 pupils and 18 teachers, and no swimming pool."),
    ],
)
def test_what_is_no_changed_slot_is_not_contradicted(
    claims_check: ClaimsCheck, context: str, answer: str
) -> None:
    assert contradicted(score(claims_check, answer, context)) == []


def test_one_negation_read_by_two_checks_counts_once(claims_check: ClaimsCheck) -> None:
    """The clause check and the partial copy both read "was not incorporated": one contradiction."""
    signal = score(
        claims_check, "In 1977, Apple was not incorporated.", "Apple was incorporated January 3, 1977."
    )
    assert len(contradicted(signal)) == 1


def test_a_sentence_most_like_the_answer_is_no_copy_where_the_context_states_the_answer_elsewhere(
    claims_check: ClaimsCheck,
) -> None:
    """ "He was a member of the Council of State" is the sentence most like the answer word for word,
    but the context states "a member of the Volkskammer" in another sentence: no contradiction."""
    context = (
        "He was a member of the Council of State. He was also a member of the Volkskammer (East "
        "Germany's legislature) from 1971 to 1990."
    )
    assert contradicted(score(claims_check, "He was a member of the Volkskammer.", context)) == []


def test_a_general_verb_pair_is_no_antonym_in_a_partly_copied_sentence(claims_check: ClaimsCheck) -> None:
    """WordNet pairs "sit" and "stand", but "letting it sit in the glass" says what "let it stand in the
    glass" says."""
    context = (
        "Dissolve a small amount of soda with hot water and let it stand in the glass for a few minutes."
    )
    answer = "Use soda, mixing a small amount with hot water and letting it sit in the glass for a while."
    assert contradicted(score(claims_check, answer, context)) == []


def test_a_removed_negation_is_read_though_the_answer_negates_something_else(
    claims_check: ClaimsCheck,
) -> None:
    context = "The ACLU isn't satisfied with the new policy, its director said on Monday."
    answer = "While the ACLU is satisfied with the new policy, it says the old rules did not work."
    assert len(contradicted(score(claims_check, answer, context))) == 1


FERRY = (
    "The Harlow river ferry carries up to 80 passengers. It runs every 20 minutes between 6 am and 11 pm. "
    "Ferries run from 6 am to 11 pm, every 20 minutes, all year. "
    "A single ticket costs 3.50 euros; children under 12 travel free. The chief executive, Lena Park, said "
    "fares would be frozen until March. The ferry does not run on public holidays. The trail above the "
    "landing is closed from November to April."
)


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        # a negation that brings "do" to a verb that had none, added or removed
        (
            "Children under 12 do not travel free.",
            "contradicted negation: Children under 12 do not travel free: the context says children under "
            "12 travel free",
        ),
        # an opposite of order or amount that WordNet does not pair
        ("Children over 12 travel free.", "contradicted predicate: over: the context says under"),
        # a changed value that ends the sentence, where the context's sentence ends or goes on
        (
            "Lena Park said fares would be frozen until June.",
            "contradicted date: June: the context says March",
        ),
        ("It runs every 20 hours.", "contradicted number: every 20 hours: the context says every 20 minutes"),
        # the end of a range whose start is the same on both sides
        (
            "It runs every 20 minutes between 6 am and 10 pm.",
            "contradicted number: 10: the context says 11",
        ),
        (
            "Ferries run from 6 am to 10 pm, every 20 minutes.",
            "contradicted number: 10: the context says 11",
        ),
        # a range of months read end by end
        (
            "The trail above the landing is closed from December to April.",
            "contradicted date: December: the context says November",
        ),
    ],
)
def test_a_partly_copied_sentence_is_contradicted_where_its_slot_or_polarity_changes(
    claims_check: ClaimsCheck, answer: str, label: str
) -> None:
    signal = score(claims_check, answer, FERRY)
    assert contradicted(signal) == [label]
    assert signal.value is not None and signal.value < 0.5


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        (
            "It lives in cloud forests of Costa Rica and eastern Panama, between 800 and 2,200 metres up.",
            "contradicted predicate: eastern: the context says western",
        ),
        # the negation beside the opposite agrees with it
        ("It is found in the cloud forests of Costa Rica but not eastern Panama.", None),
    ],
)
def test_an_opposite_beside_a_rewording_that_turns_nothing_is_contradicted(
    claims_check: ClaimsCheck, answer: str, label: str | None
) -> None:
    """Rewording beside an opposite ("eastern Panama, between" for "western Panama at altitudes
    between") leaves it standing; only a change that may itself turn the statement cancels it."""
    context = (
        "The pale glasswing is a butterfly found in the cloud forests of Costa Rica and western Panama at "
        "altitudes between 800 and 2,200 metres."
    )
    assert contradicted(score(claims_check, answer, context)) == ([] if label is None else [label])


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        (
            "Revenue was £31 million, down 12 percent from 2021, and it does not sell tea bags with plastic.",
            "contradicted predicate: down: the context says up",
        ),
        ("It does not sell tea bags with plastic; revenue was £31 million, up 12 percent from 2021.", None),
    ],
)
def test_a_sentence_that_merges_two_of_the_context_s_is_read_against_each(
    claims_check: ClaimsCheck, answer: str, label: str | None
) -> None:
    """Each clause a sentence joins with ", and", ", but" or ";" brings the context sentence most like it:
    the merged sentence is most like neither of the two it copies."""
    context = (
        "The company buys tea directly from 38 farms in Kenya, India and Sri Lanka, and it does not sell "
        "tea bags with plastic. In 2022 its revenue was £31 million, up 12 percent from 2021."
    )
    assert contradicted(score(claims_check, answer, context)) == ([] if label is None else [label])


FINES = "A municipality that fails an inspection can be fined up to 150,000 velars."
BANS = "A vessel that fails an inspection cannot be fined, and one that passes won't be fined either."


@pytest.mark.parametrize(
    ("context", "answer", "said"),
    [
        (FINES, "A municipality that fails an inspection cannot be fined.", "cannot"),
        (FINES, "A municipality that fails an inspection can't be fined.", "can't"),
        (FINES, "A municipality that fails an inspection can not be fined.", "can not"),
        (BANS, "A vessel that fails an inspection can be fined.", "can"),
        (BANS, "A vessel that fails an inspection will be fined.", "will"),
    ],
)
def test_a_modal_negated_in_one_word_is_a_negation(
    claims_check: ClaimsCheck, context: str, answer: str, said: str
) -> None:
    """ "cannot" and "can't" are "can" negated: a partly copied sentence that turns "can be fined" into
    "cannot be fined", or back, says the opposite of its context."""
    found = contradicted(score(claims_check, answer, context))
    assert (
        len(found) == 1 and found[0].startswith("contradicted negation:") and f" {said} be fined:" in found[0]
    )


@pytest.mark.parametrize(
    "answer",
    [
        "Children under 12 do travel free.",  # "do" without a negation stresses, it does not negate
        "The ferry carries up to 80 people.",  # a paraphrased noun after the number is no unit
        "Lena Park said fares would be frozen until the spring.",  # no month in the slot: not read here
        "It runs every 20 minutes.",  # the context goes on; the response stops
        "Lena Park said fares would be frozen until Friday.",  # a weekday may fall in March
    ],
)
def test_what_ends_a_partly_copied_sentence_otherwise_is_not_contradicted(
    claims_check: ClaimsCheck, answer: str
) -> None:
    assert contradicted(score(claims_check, answer, FERRY)) == []


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        # a second change beside the negation or opposite restates the context the other way
        (
            "Children under 12 travel free on all routes. Older children pay full fare.",
            "Children over 12 do not travel free on all routes.",
        ),
        ("Members get free entry on Sundays.", "Non-members do not get free entry on Sundays."),
        (
            "Eventually he was able to rig a makeshift mast and sail, but he could make little headway "
            "against the currents.",
            "He was able to rig a makeshift mast and sail, but he was unable to make much headway against "
            "the currents.",
        ),
        (
            "Guests under 18 need a parent's consent to enter.",
            "Guests over 18 do not need a parent's consent.",
        ),
    ],
)
def test_a_polarity_change_beside_another_change_is_not_contradicted(
    claims_check: ClaimsCheck, context: str, answer: str
) -> None:
    assert contradicted(score(claims_check, answer, context)) == []


@pytest.mark.parametrize(
    ("context", "answer", "said"),
    [
        # the aligned sentence writes the name too: moved, not changed
        (
            "Since late January, their work in the Massachusetts murder trial of former NFL star Aaron"
            " Hernandez had consumed their lives.",
            "After 35 hours of deliberation, the jury in the Aaron Hernandez murder trial reached a verdict,"
            " finding the former NFL star guilty.",
            [],
        ),
        # the context writes the two side by side: one thing named two ways
        (
            "She spoke to the Egyptian television network CBC. After her interview on CBC television, the"
            " governor offered her a kiosk.",
            "Following an interview on Egyptian television, the governor offered her a kiosk.",
            [],
        ),
        # two names that exchange places in the sentence are each another
        (
            "Spain's Lucia Ferrer won the title, beating top seed Anna Kovalenko of Ukraine in the final.",
            "Ukraine's Lucia Ferrer won her first title by beating top seed Anna Kovalenko of Spain in the"
            " final.",
            ["contradicted name: Spain: the context says Ukraine"],
        ),
        # the answer names the context's name beside its own, and the context's sentence not the
        # answer's: a list told otherwise, not a name changed
        (
            "The Pacers released a statement. The NBA and the Hawks front office said they were looking"
            " into the incident.",
            "The Pacers and the NBA said they were looking into the incident.",
            [],
        ),
        # initials of a name the context gives, and a part of that name: one thing named two ways
        (
            "Coming from Arkansas State University, Leetch joined ISU in 2005 as an athletic director. In a"
            " statement, Illinois State University President Larry Dietz remembered him.",
            "Leetch came from Arkansas State University and joined Illinois State in 2005.",
            [],
        ),
        (
            "Coming from Arkansas State University, Leetch joined ISU in 2005 as an athletic director. In a"
            " statement, Illinois State University President Larry Dietz remembered him.",
            "Leetch came from Arkansas State University and joined Ohio State in 2005.",
            ["contradicted name: Ohio State: the context says ISU"],
        ),
        # a country or a state is not the party or office named after it
        (
            "The United Kingdom Independence Party won the seat. UKIP leader Nigel Farage celebrated the"
            " result.",
            "United Kingdom leader Nigel Farage celebrated the result.",
            ["contradicted name: United Kingdom: the context says UKIP"],
        ),
        # the context's name written in another slot, not listed beside the answer's: a change
        (
            "The award went to Ann Lee, who was presented with it by Bob Marsh.",
            "The award went to Carl Smith, who was presented with it by Ann Lee.",
            ["contradicted name: Carl Smith: the context says Ann Lee"],
        ),
        # one word of the name is not the name: "Welsh coaches" are not the Welsh Rugby Union's
        (
            'The Welsh Rugby Union (WRU) will appoint assistant coaches for the summer tour. "2017 is a real'
            ' summer of opportunity for Welsh coaches and should benefit the whole of Welsh rugby," he said.',
            '"2017 is a real summer of opportunity for WRU coaches and should benefit the whole of WRU'
            ' rugby," he said.',
            ["contradicted name: WRU: the context says Welsh"],
        ),
        # a name the context writes apart from the slot's is still another
        (
            "She spoke to the Egyptian press. After her interview on CBC television, the governor offered"
            " her a kiosk.",
            "Following an interview on Egyptian television, the governor offered her a kiosk.",
            ["contradicted name: Egyptian: the context says CBC"],
        ),
    ],
)
def test_a_name_the_context_writes_with_the_slots_own_is_no_change(
    claims_check: ClaimsCheck, context: str, answer: str, said: list[str]
) -> None:
    assert contradicted(score(claims_check, answer, context)) == said


SHOPS = "The retailer said it would close 27 shops, 23 shops in the United Kingdom and 4 in Ireland, by May."


@pytest.mark.parametrize(
    ("answer", "context", "said"),
    [
        # the code for the context's place name: still a copy, whose exchanged counts are read
        (
            "It will close 4 shops in the UK and 23 in Ireland.",
            SHOPS,
            ["contradicted number: 23: the context says 4"],
        ),
        ("4 in the UK and 23 in Ireland.", SHOPS, ["contradicted number: 23: the context says 4"]),
        ("It will close 23 shops in the UK and 4 in Ireland.", SHOPS, []),
        (
            "The US economy grew 3 percent in 2019, officials said.",
            "The United States economy grew 2 percent in 2019, officials said.",
            ["contradicted percent: 3 percent: the context says 2 percent"],
        ),
        ("The US economy grew 2 percent in 2019.", "The United States economy grew 2 percent in 2019.", []),
        # a code the context writes itself stays as written: the answer copies the sentence that has it
        (
            "Average weather Tallahassee, FL - 32310 - 1981-2010 normals.",
            "Average weather Tallahassee, FL - 32310 - 1981-2010 normals. Tallahassee is the capital of"
            " Florida.",
            [],
        ),
        # a word in a run of capitals copied: no "Indiana: the context says in"
        ("THE SHOP IS LOCATED IN INDIANA.", "The shop is located in Indiana.", []),
        # a place named inside a longer name is not the place: "UK" is no copy of it
        (
            "the leader of the UK, spoke in Kent.",
            "Nigel Farage, the leader of the United Kingdom Independence Party, spoke in Kent.",
            ["contradicted name: UK: the context says United Kingdom Independence Party"],
        ),
    ],
)
def test_a_place_s_code_copies_the_name_the_context_gives_it(
    claims_check: ClaimsCheck, answer: str, context: str, said: list[str]
) -> None:
    assert contradicted(score(claims_check, answer, context)) == said
