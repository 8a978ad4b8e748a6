"""A response sentence that copies a context sentence with one month, weekday, number, unit, name,
antonym or negation changed, or two stretches exchanged, is contradicted there, whatever the parse
makes of the slot; any other one-word change (a paraphrased word) is left to the other checks."""

from __future__ import annotations

import pytest

from trustscore import Sample, Signal
from trustscore.grounding.claims._copies import Side, negated_verb
from trustscore.grounding.claims._signal import ClaimsCheck
from trustscore.grounding.claims._tokens import tokenize, unnumbered

REPORT = (
    "The state trooper stopped the bus carrying Nelly and five other people on Interstate 40 in Putnam "
    "County on Saturday because it was not displaying plates. Milano, who was on a trip with her husband "
    "that she described as a romantic getaway, was furious. A P60 is a summary document given to "
    "employees by their employer at the end of the tax year (5th April). The hearing was set for April "
    "14 at the county court. Sgt Rob Taylor, of the rural crime team, said the sheep were found nearby."
)


def score(check: ClaimsCheck, response: str, context: str = REPORT) -> Signal:
    return check.score(Sample(question="What happened?", context=[context], response=response))


def contradicted(signal: Signal) -> list[str]:
    return [str(s.label) for s in signal.spans if str(s.label).startswith("contradicted")]


def assert_decided_by(signal: Signal, label: str) -> None:
    """The one contradiction found is ``label``, and it puts the signal under 0.5."""
    assert contradicted(signal) == [label]
    assert signal.value is not None and signal.value < 0.5


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        (
            "The state trooper stopped the bus carrying Nelly and five other people on Interstate 40 in "
            "Putnam County on Sunday because it was not displaying plates.",
            "contradicted date: Sunday: the context says Saturday",
        ),
        (
            "A P60 is a summary document given to employees by their employer at the end of the tax year "
            "(5th February).",
            "contradicted date: 5th February: the context says 5th April",
        ),
        (
            "The hearing was set for August 14 at the county court.",
            "contradicted date: August 14: the context says April 14",  # read as a date, whole
        ),
        (
            "Sgt Angela Moore, of the rural crime team, said the sheep were found nearby.",
            "contradicted name: Angela Moore: the context says Rob Taylor",
        ),
        (
            "Milano, who was not on a trip with her husband that she described as a romantic getaway, was "
            "furious.",
            "contradicted negation: who was not on a trip: the context says who was on a trip",
        ),
        (
            "The state trooper stopped the bus carrying Nelly and five other people on Interstate 40 in "
            "Putnam County on Saturday because it was displaying plates.",
            "contradicted negation: because it was displaying plates: the context says because it was not "
            "displaying plates",
        ),
    ],
)
def test_a_copied_sentence_with_one_value_or_negation_changed_is_contradicted(
    claims_check: ClaimsCheck, answer: str, label: str
) -> None:
    signal = score(claims_check, answer)
    assert_decided_by(signal, label)


@pytest.mark.parametrize(
    "answer",
    [
        "Milano, who was on a trip with her husband that she described as a lovely getaway, was furious.",
        "Milano, who was on a trip with her husband that she described as a romantic getaway, was furious.",
        "The hearing was set for April 14 at the county court.",
    ],
)
def test_a_copy_with_a_paraphrased_word_or_none_changed_is_not_contradicted(
    claims_check: ClaimsCheck, answer: str
) -> None:
    signal = score(claims_check, answer)
    assert not contradicted(signal)


def test_a_short_sentence_is_no_copy(claims_check: ClaimsCheck) -> None:
    """Too few words in common to be sure the rest is the same statement: nothing is read as a copy."""
    signal = score(claims_check, "The hearing was set for Friday.")
    assert not contradicted(signal)


def test_a_sentence_the_context_states_word_for_word_is_no_changed_copy(claims_check: ClaimsCheck) -> None:
    """Numbered steps split into other sentences than the context's: the aligned sentence differs by
    its step number, but the response's words stand in the context as they are."""
    steps = "1 Heat the oven. 2 Cook the fish for 6 to 9 minutes until it flakes. 3 Reduce heat and simmer."
    answer = "2 Cook the fish for 6 to 9 minutes until it flakes."
    signal = claims_check.score(Sample(question="How?", context=[steps], response=answer))
    assert not contradicted(signal)


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (
            "Richie Benaud was a cricket commentator. He died in Sydney at the age of 84 on Friday morning.",
            "Benaud died in Sydney at the age of 84 on Friday morning.",
        ),
        (
            "Step 2: Remove the door stop on the striker side of the jamb and refit it.",
            "4. Remove the door stop on the striker side of the jamb and refit it.",
        ),
    ],
)
def test_a_pronoun_named_or_a_list_item_renumbered_is_no_change(
    claims_check: ClaimsCheck, context: str, answer: str
) -> None:
    signal = claims_check.score(Sample(question="What happened?", context=[context], response=answer))
    assert not contradicted(signal)


AGENCY = (
    "Weatherhogg, formerly of Guthrie, was found guilty of coercing the woman at his home in Forfar. "
    "Perfect for a busy weeknight, these tasty chops are ready in just 30 minutes. "
    "Almost 25% of the world's food is traded on international markets. "
    "The Environment Agency suspended Recovered Fuels Shipping Limited from accepting waste after the fire. "
    "Greater Manchester Fire and Rescue Service said the blaze was under control by the evening. "
    "The council sued the developer over the unfinished bridge in the town centre last year. "
    "The company employs 5 million people across the country, officials said on Monday. "
    'Italy needs change. "Critics have accused the former mayor of Florence who became prime minister '
    'last year of trying to consolidate his grip on power." '
    "Later that week, the town council approved the plans for the new footbridge."
)


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        (
            "Weatherhogg, formerly of Guthrie, was found innocent of coercing the woman at his home in "
            "Forfar.",
            "contradicted predicate: innocent: the context says guilty",
        ),
        (
            "Perfect for a busy weeknight, these tasty chops are ready in just 30 hours.",
            "contradicted number: just 30 hours: the context says just 30 minutes",
        ),
        (
            "Almost 25 points of the world's food is traded on international markets.",
            "contradicted number: 25 points: the context says 25%",
        ),
        (
            "The company employs 5 billion people across the country, officials said on Monday.",
            "contradicted number: 5 billion: the context says 5 million",
        ),
        (
            "Greater Manchester Fire and Rescue Service suspended Recovered Fuels Shipping Limited from "
            "accepting waste after the fire.",
            "contradicted name: Greater Manchester Fire and Rescue Service: the context says Environment "
            "Agency",
        ),
        (
            "The developer sued the council over the unfinished bridge in the town centre last year.",
            "contradicted predicate: developer: the context says council",
        ),
        (
            "Earlier that week, the town council approved the plans for the new footbridge.",
            "contradicted predicate: Earlier: the context says Later",
        ),
        (
            "Critics have accused the former mayor of Florence who became prime minister first year of "
            "trying to consolidate his grip on power.",
            "contradicted predicate: first: the context says last",
        ),
    ],
)
def test_a_copy_with_an_antonym_a_unit_or_an_entity_changed_is_contradicted(
    claims_check: ClaimsCheck, answer: str, label: str
) -> None:
    """A WordNet antonym, another unit of the same number, another of the context's names in the
    slot (however long), two stretches exchanged with their slots reversed; also where the response
    copies only part of the context's sentence."""
    signal = score(claims_check, answer, AGENCY)
    assert_decided_by(signal, label)


@pytest.mark.parametrize(
    "answer",
    [
        "Perfect for a busy weeknight, these tasty chops are ready in just 30 min.",
        "Perfect for a busy weeknight, these tasty chops are ready in just thirty minutes.",
        "Weatherhogg, formerly of Guthrie, was found guilty of coercing the woman at her home in Forfar.",
        "The council sued the developer over the unfinished bridge in the city centre last year.",
    ],
)
def test_a_unit_spelled_otherwise_or_a_word_that_is_no_antonym_is_not_contradicted(
    claims_check: ClaimsCheck, answer: str
) -> None:
    assert not contradicted(score(claims_check, answer, AGENCY))


TIMING = "The cache answers a repeated query in 30 milliseconds, against 2 seconds for a cold one."


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        ("The cache answers a repeated query in 30 ms, against 2 seconds for a cold one.", None),
        (
            "The cache answers a repeated query in 30 seconds, against 2 seconds for a cold one.",
            "contradicted number: 30 seconds: the context says 30 milliseconds",
        ),
        (
            "The cache answers a repeated query in 30 ns, against 2 seconds for a cold one.",
            "contradicted number: 30 ns: the context says 30 milliseconds",
        ),
    ],
)
def test_an_abbreviated_unit_is_read_as_pint_reads_it(
    claims_check: ClaimsCheck, answer: str, label: str | None
) -> None:
    """ "30 ms" copies "30 milliseconds" (pint's milli + second, no plural of "m" the metre)."""
    signal = claims_check.score(Sample(question="How fast?", context=[TIMING], response=answer))
    assert contradicted(signal) == ([label] if label else [])


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (
            "The council and the developer signed the agreement over the unfinished bridge last year.",
            "The developer and the council signed the agreement over the unfinished bridge last year.",
        ),
        # the parse gives the first item the verb's object and the second "conj": the order is no slot
        (
            "The chain operates 2 Walmarts and 4 Targets in the county.",
            "The chain operates 4 Targets and 2 Walmarts in the county.",
        ),
        (
            "The menu offers pizza, pasta and salads every day.",
            "The menu offers salads, pasta and pizza every day.",
        ),
    ],
)
def test_a_lists_items_that_change_order_keep_their_slots(
    claims_check: ClaimsCheck, context: str, answer: str
) -> None:
    signal = claims_check.score(Sample(question="What happened?", context=[context], response=answer))
    assert not contradicted(signal)


def test_two_names_exchanged_around_a_verb_are_still_contradicted(claims_check: ClaimsCheck) -> None:
    context = "Ann Lee sued Bob Marsh in 2019 over the fence between their two gardens."
    answer = "Bob Marsh sued Ann Lee in 2019 over the fence between their two gardens."
    signal = claims_check.score(Sample(question="What happened?", context=[context], response=answer))
    assert contradicted(signal) == ["contradicted name: Bob Marsh: the context says Ann Lee"]


def test_a_capitalised_opening_word_is_no_name_however_the_context_writes_it(
    claims_check: ClaimsCheck,
) -> None:
    """ "Place" for "Put" opening an instruction: the context writes both capitalised inside a sentence
    ("step two: Put", "The Place Royale"), but also in lower case: a paraphrased verb, no name."""
    context = (
        "Put the tray in the hot oven for ten minutes and wait. Then, as step two: Put it on the rack. "
        "The Place Royale hotel is nearby, a place to put your feet up."
    )
    answer = "Place the tray in the hot oven for ten minutes and wait."
    signal = claims_check.score(Sample(question="How?", context=[context], response=answer))
    assert not contradicted(signal)


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        (
            "A P60 is a summary document given to employees by their employer at the start of the tax year "
            "(5th April).",
            "contradicted predicate: start: the context says end",
        ),
        (
            "Milano, who was on a trip with her husband that she described as a romantic getaway, was "
            "furious. The hearing was set for April 14 at the county court before the sheep were found.",
            None,
        ),
    ],
)
def test_a_copy_that_moves_a_time_order_word_is_contradicted(
    claims_check: ClaimsCheck, answer: str, label: str | None
) -> None:
    """ "start" for "end" and "before" for "after" contradict though WordNet does not pair them; a
    sentence the context does not copy is not read so."""
    signal = score(claims_check, answer)
    if label is None:
        assert not contradicted(signal)
    else:
        assert_decided_by(signal, label)


def test_a_copy_with_before_for_after_is_contradicted(claims_check: ClaimsCheck) -> None:
    context = "Chill the custard thoroughly for at least two hours after cooking it, then serve it cold."
    signal = score(
        claims_check,
        "Chill the custard thoroughly for at least two hours before cooking it, then serve it cold.",
        context,
    )
    assert_decided_by(signal, "contradicted predicate: before: the context says after")
    assert not contradicted(score(claims_check, context, context))


def test_a_copied_step_numbered_otherwise_is_still_read_as_a_copy(claims_check: ClaimsCheck) -> None:
    """A recipe's step copied under another number ("4  Cook" for "3  Cook") is the same copy: a
    negation added in it contradicts; the renumbering alone does not."""
    context = (
        "1 Add the tuna steaks. 2  The steaks should sizzle when added. 3  Cook, uncovered, for 6 to 9 "
        "minutes or until the fish flakes but is still pink in the center."
    )
    step = "Cook, uncovered, for 6 to 9 minutes or until the fish flakes but is {}still pink in the center."
    said = "4  " + step.format("not ")
    signal = score(claims_check, said, context)
    assert [k.split(":")[0] for k in contradicted(signal)] == ["contradicted negation"]
    renumbered = "4  " + step.format("")
    assert not contradicted(score(claims_check, renumbered, context))


def _side(text: str, lemmas: dict[str, str]) -> Side:
    tokens = tokenize(text, 0, len(text))
    return Side(
        text=text,
        bounds=[(0, len(text))],
        names=[],
        tokens={t.start: (lemmas.get(t.key, t.key), None) for t in tokens},
    )


@pytest.mark.parametrize(
    ("said", "stated", "lemmas", "negated"),
    [
        ("does not run", "runs", {"runs": "run"}, True),
        ("runs", "doesn't run", {"runs": "run", "does": "do"}, True),
        ("did not open", "opened", {"opened": "open"}, True),
        ("does not run", "walks", {"walks": "walk"}, False),  # another verb: not its negation
        ("does run", "runs", {"runs": "run"}, False),  # "do" alone stresses
    ],
)
def test_a_verb_negated_with_do_is_read_as_its_negation(
    said: str, stated: str, lemmas: dict[str, str], negated: bool
) -> None:
    mine, theirs = _side(said, lemmas), _side(stated, lemmas)
    words = tokenize(said, 0, len(said)), tokenize(stated, 0, len(stated))
    assert negated_verb(*words, (mine, theirs)) is negated


PEAKS = (
    "Mount Kerel is 3,412 metres high, the second highest peak in the range after Mount Idris. Lyon is "
    "the largest city in the region and its capital. The request was denied by the court on Monday. K2 is "
    "the second-highest mountain on Earth."
)


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        (
            "Mount Kerel is the highest peak in the range.",
            "contradicted number: highest: the context says second highest",
        ),
        (
            "Lyon is the third largest city in the region and its capital.",
            "contradicted number: third largest: the context says largest",
        ),
        (
            "K2 is the highest mountain on Earth.",
            "contradicted number: highest: the context says second highest",
        ),
    ],
)
def test_a_rank_dropped_or_added_before_a_superlative_is_contradicted(
    claims_check: ClaimsCheck, answer: str, label: str
) -> None:
    assert_decided_by(score(claims_check, answer, PEAKS), label)


@pytest.mark.parametrize(
    "answer",
    [
        "Mount Kerel is the second highest peak in the range.",
        "Lyon is the largest city in the region and its capital.",
        "The second request was denied by the court on Monday.",  # no superlative: another request
    ],
)
def test_a_rank_kept_or_an_ordinal_before_no_superlative_is_no_rank_change(
    claims_check: ClaimsCheck, answer: str
) -> None:
    assert not [c for c in contradicted(score(claims_check, answer, PEAKS)) if "est" in c]


FUNDING = (
    "The survey was funded by the Marine Trust, not by the government, according to the report. The "
    "meeting was held on Tuesday in the main hall, not in the annex."
)


@pytest.mark.parametrize(
    "answer",
    [
        "The survey was funded by the government, according to the report.",
        "The meeting was held on Tuesday in the annex.",
    ],
)
def test_a_copy_that_asserts_what_the_context_denies_in_a_contrast_is_contradicted(
    claims_check: ClaimsCheck, answer: str
) -> None:
    found = contradicted(score(claims_check, answer, FUNDING))
    assert len(found) == 1 and found[0].startswith("contradicted negation:") and ", not " in found[0], found


@pytest.mark.parametrize(
    "answer",
    [
        "The survey was funded by the Marine Trust, according to the report.",
        "The meeting was held on Tuesday in the main hall.",  # the denied alternative left out
        "The survey was funded by the Marine Trust, not by the government, according to the report.",
    ],
)
def test_a_contrast_copied_or_its_denied_half_left_out_is_no_contradiction(
    claims_check: ClaimsCheck, answer: str
) -> None:
    assert contradicted(score(claims_check, answer, FUNDING)) == []


def test_a_contrast_the_response_adds_denies_what_the_context_asserts(claims_check: ClaimsCheck) -> None:
    context = "The survey was funded by the government, according to the report."
    answer = "The survey was funded by the Marine Trust, not by the government, according to the report."
    found = contradicted(score(claims_check, answer, context))
    assert [c for c in found if c.startswith("contradicted negation:")], found


BRIDGE = (
    "It was made of iron and stood for 61 years before a flood destroyed it in 1948. The current concrete "
    "bridge opened in 1952. Its railings are painted red and its lamps are green. The fair is held every "
    "summer. The Boston Red Sox played there in 1950."
)


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        ("It was made of wood and stood for 61 years.", "contradicted material: wood: the context says iron"),
        (
            "The current steel bridge opened in 1952.",
            "contradicted material: steel: the context says concrete",
        ),
        (
            "Its railings are painted blue and its lamps are green.",
            "contradicted colour: blue: the context says red",
        ),
        ("The fair is held every winter.", "contradicted season: winter: the context says summer"),
    ],
)
def test_a_material_colour_or_season_in_anothers_place_is_contradicted(
    claims_check: ClaimsCheck, answer: str, label: str
) -> None:
    assert label in contradicted(score(claims_check, answer, BRIDGE))


@pytest.mark.parametrize(
    "answer",
    [
        "It was made of wrought iron and stood for 61 years.",  # a word added, not one in another's place
        "The current concrete bridge opened in 1952.",
        "The fair is held every fall.",  # "fall" names the autumn
        # the context names the word elsewhere: a list in another order, the other bridge
        "The current iron bridge opened in 1952.",
        "Its railings are painted green and its lamps are red.",
    ],
)
def test_a_sort_word_kept_or_written_as_a_form_of_itself_is_no_swap(
    claims_check: ClaimsCheck, answer: str
) -> None:
    context = BRIDGE.replace("every summer", "every autumn")
    found = contradicted(score(claims_check, answer, context))
    assert not [c for c in found if c.split(":")[0].split()[-1] in ("material", "colour", "season")], found


def test_a_colour_word_inside_a_name_is_read_as_the_name(claims_check: ClaimsCheck) -> None:
    found = contradicted(score(claims_check, "The Boston White Sox played there in 1950.", BRIDGE))
    assert not [c for c in found if c.startswith("contradicted colour")], found


@pytest.mark.parametrize(
    ("sentence", "words"),
    [
        ("Move the dryer back against the wall. 1", "Move the dryer back against the wall ."),
        ("Move the dryer back against the wall.\n6.", "Move the dryer back against the wall ."),
        ("4. Move the dryer back.", "Move the dryer back ."),
        # a number the stop belongs to, one with more digits, one after an abbreviation's stop, or one
        # the sentence ends on in its own line, is no item's
        ("The rate rose to 2.5", "The rate rose to 2 . 5"),
        ("It opened in the year. 1998", "It opened in the year . 1998"),
        ("She was ranked No. 2.", "She was ranked No . 2 ."),
        ("The attacks of Sept. 11.", "The attacks of Sept . 11 ."),
        ("It costs about 5 min. 2.", "It costs about 5 min . 2 ."),
    ],
)
def test_a_list_items_number_opening_or_closing_a_sentence_is_no_part_of_it(
    sentence: str, words: str
) -> None:
    assert " ".join(t.text for t in unnumbered(tokenize(sentence, 0, len(sentence)), sentence)) == words
