"""Which clauses the polarity check reads, and what it reads them as being about: a predicate that shares
its subject with the one it is coordinated with, a reported clause's content, a count, and "not ...
until"."""

from __future__ import annotations

import pytest

from tests.grounding.claims.test_precision import contradictions, count, kinds, score
from trustscore.grounding.claims._signal import ClaimsCheck

GRAVY = (
    "Gravy is a sauce made from the juices that run from meat during cooking. It is always served hot. "
    "Sauce is a broader word for any liquid served with food."
)
DRUG = (
    "Zentra is approved for adults with type 2 diabetes. It is taken once a day with food. It is not "
    "approved for children."
)
REPORT = "The district said it would repaint the gym. The mayor said the budget was tight."


def test_a_coordinated_predicate_is_read_as_said_of_the_subject_it_shares(claims_check: ClaimsCheck) -> None:
    """ "is not served hot" after "Gravy is made from the juices and" is said of gravy."""
    denied = score(claims_check, "Gravy is made from the meat juices and is not served hot.", GRAVY, "")
    assert kinds(denied) == ["negation"] and "served hot" in contradictions(denied)[0]
    stated = score(claims_check, "Gravy is made from the meat juices and is served hot.", GRAVY, "")
    assert count(stated, "contradicted") == 0


def test_a_coordinated_predicate_under_a_modal_or_in_a_relative_clause_states_nothing(
    claims_check: ClaimsCheck,
) -> None:
    """A modal governs both predicates ("should shut and lock"), and a relative clause describes its noun
    ("a door that won't shut or lock" names a fault): neither says the door locks or does not."""
    context = "The door locks automatically at night."
    for answer in (
        "After the repair the door should now shut and not lock at night.",
        "Residents reported a door that sticks and won't lock at night.",
    ):
        assert count(score(claims_check, answer, context, ""), "contradicted") == 0, answer


def test_a_clause_counting_otherwise_is_about_another_amount(claims_check: ClaimsCheck) -> None:
    """ "not taken twice a day" does not deny "taken once a day", nor "does not have 240 pupils" the
    context's 420; the same count denied still contradicts."""
    for answer in (
        "Zentra is not taken twice a day.",
        "Zentra is taken daily with food and is not taken twice a day.",
    ):
        assert count(score(claims_check, answer, DRUG, ""), "contradicted") == 0, answer
    assert kinds(score(claims_check, "Zentra is not taken once a day.", DRUG, "")) == ["negation"]


def test_a_reported_clause_is_what_the_report_is_about(claims_check: ClaimsCheck) -> None:
    """Not saying one thing does not deny saying another; not saying what was said does."""
    for answer in (
        "The district did not say it would do major repairs.",
        "The mayor called the budget tight and did not say it would grow.",
    ):
        assert count(score(claims_check, answer, REPORT, ""), "contradicted") == 0, answer
    denied = score(claims_check, "The district did not say it would repaint the gym.", REPORT, "")
    assert kinds(denied) == ["negation"]
    # the report's values are read with the report: the denial of saying them is still read
    principal = "The principal said classes would resume on Monday."
    denied = score(claims_check, "The principal did not say classes would resume on Monday.", principal, "")
    assert kinds(denied) == ["negation"]
    # nor is a change inside the report it denies read as a copy's change
    budget = score(
        claims_check,
        "The mayor did not say the budget was loose.",
        "The mayor said the budget was tight.",
        "",
    )
    assert count(budget, "contradicted") == 0
    lopez = "Lopez said she would cut bus fares and did not mention taxes."
    assert kinds(score(claims_check, "Lopez did not say she would cut bus fares.", lopez, "")) == ["negation"]
    # what a report denies saying is not asserted, nor read as a copy of the report with "not" added
    mayor = "The mayor said the council would repaint the school gym in May."
    for answer in (
        "The mayor did not say the council would do major repairs.",
        "The mayor did not say the council would raise taxes.",
    ):
        assert count(score(claims_check, answer, mayor, ""), "contradicted") == 0, answer
    park = "Chief executive Lena Park said Acme would not cut jobs this year."
    for answer in (
        "Lena Park did not say Acme would cut jobs.",
        "Lena Park did not say that Acme would cut jobs.",
    ):
        assert count(score(claims_check, answer, park, ""), "contradicted") == 0, answer
    assert kinds(
        score(
            claims_check, "The mayor did not say the council would repaint the school gym in May.", mayor, ""
        )
    ) == ["negation"]


def test_a_negation_bounding_when_or_where_denies_nothing_the_context_states(
    claims_check: ClaimsCheck,
) -> None:
    """ "does not open until noon" and "does not open before noon" open at noon; "is not sold outside
    Europe" is sold in Europe; "until" marking a clause bounds too. Such a denial has no polarity on
    either side ("not sliced until it is cold" is not read as "sliced"). An adverb "before" bounds
    nothing."""
    context = (
        "The museum opens to visitors at noon on weekdays. The wine is sold only in Europe. The loaf is "
        "cooled on a rack and is not sliced until it is cold."
    )
    for answer in (
        "On weekdays the museum does not open to visitors until noon.",
        "On weekdays the museum does not open to visitors before noon.",
        "The wine is not sold outside Europe.",
        "The loaf is cooled on a rack and is sliced once it is cold.",
        "The loaf is not sliced while it is hot.",
    ):
        assert count(score(claims_check, answer, context, ""), "contradicted") == 0, answer
    for answer in ("The museum does not open to visitors on weekdays.", "The wine is not sold in Europe."):
        assert kinds(score(claims_check, answer, context, "")) == ["negation"], answer
    # in a sentence copied in part too: the negation's "until" says when
    train = "The train leaves Boston at 8:15 am and arrives in New York at 12:05 pm."
    late = "The train leaves Boston at 8:15 am and does not arrive in New York until after noon."
    assert count(score(claims_check, late, train, ""), "contradicted") == 0
    never = "The train leaves Boston at 8:15 am and does not arrive in New York."
    assert kinds(score(claims_check, never, train, "")) == ["negation"]
    # the context's "until" bounds no negation of the answer's
    frozen = "Lena Park said hiring would be frozen until June."
    assert kinds(score(claims_check, "Lena Park said hiring would not be frozen.", frozen, "")) == [
        "negation"
    ]
    horse = "The horse had collapsed before the race."
    assert kinds(score(claims_check, "The horse had not collapsed before.", horse, "")) == ["negation"]


def test_a_denied_value_other_than_the_contexts_is_no_contradiction(claims_check: ClaimsCheck) -> None:
    """ "is not baked for 40 minutes" where the context bakes it for 25 says what the context says; the
    value asserted, or the context's value denied, still contradicts."""
    pie = "The pie is baked for 25 minutes at 200 degrees and is served with peas."
    for answer, context in (
        ("The pie is not baked for 40 minutes.", pie),
        ("The school does not have 240 pupils.", "Westfield primary school has 420 pupils."),
        ("Turnout was not 70%.", "Turnout was 64% in the 2023 election."),
        ("The bridge was not completed in 1890.", "The bridge was completed in 1903."),
    ):
        assert count(score(claims_check, answer, context, ""), "contradicted") == 0, answer
    assert kinds(score(claims_check, "The pie is baked for 40 minutes.", pie, "")) == ["number"]
    assert kinds(score(claims_check, "The pie is not baked for 25 minutes.", pie, "")) == ["negation"]
    # where the context denies a value of that kind, a denied value is read against it
    drug = (
        "Metoprolol succinate will stay in the bloodstream for 24 complete hours. However, the tartrate "
        "form does not appear in the blood stream for 24 hours."
    )
    answer = "The tartrate form does not stay in the bloodstream for 24 minutes."
    assert kinds(score(claims_check, answer, drug, "")) == ["number"]


def test_a_subject_with_no_denies_its_clause(claims_check: ClaimsCheck) -> None:
    """ "No trains run on Christmas Day" says trains do not run then, on either side."""
    for context, answer in (
        ("Trains do not run on Christmas Day.", "No trains run on Christmas Day."),
        ("No trains run on Christmas Day.", "Trains do not run on Christmas Day."),
        ("No dogs are allowed in the park after dark.", "Dogs are not allowed in the park after dark."),
        ("No elections were held in 2020.", "Elections were not held in 2020."),  # the year's relation
    ):
        assert count(score(claims_check, answer, context, ""), "contradicted") == 0, answer
    for context, answer in (
        ("No trains run on Christmas Day.", "Trains run on Christmas Day."),
        ("Trains run on Christmas Day.", "No trains run on Christmas Day."),
        ("No dogs are allowed in the park after dark.", "Dogs are allowed in the park after dark."),
        ("No elections were held in 2020.", "Elections were held in 2020."),
    ):
        assert count(score(claims_check, answer, context, ""), "contradicted") == 1, answer


def test_what_is_asked_for_is_not_asserted(claims_check: ClaimsCheck) -> None:
    """ "requests that the court allow Loeb to implant the embryos" says nothing the court allows."""
    context = "No court in California will allow the destruction of the embryos."
    for answer in (
        "The lawsuit requests that the court allow Loeb to implant the embryos.",
        "Loeb asked the court to allow the destruction of the embryos.",
    ):
        assert count(score(claims_check, answer, context, ""), "contradicted") == 0, answer
    stated = score(
        claims_check, "A court in California will allow the destruction of the embryos.", context, ""
    )
    assert count(stated, "contradicted") == 1


HOUSING = "Home prices fell 3.8% in the second quarter. The median rent rose 5% to $1,890 a month."
TUNNEL = "Tunnelling was finished in April, and track installation will take another year."


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        ("Home prices fell 3.8%, and rents fell too.", HOUSING),
        (
            "The restoration has halved the number of nesting waterbirds.",
            "The restoration has doubled the number of nesting waterbirds.",
        ),
        ("Tunnelling began in April.", TUNNEL),
        (
            "The flight departed from Calder International on March 2.",
            "The flight arrived at Calder International on March 2.",
        ),
        ("The council rejected the plan.", "The council approved the plan."),
    ],
)
def test_the_opposite_predicate_is_contradicted(claims_check: ClaimsCheck, answer: str, context: str) -> None:
    """Which way an amount moved ("fell" against "rose 5%") holds however far or since when the other side
    says it moved; a start is no end, an arrival no departure, a rejection no approval."""
    assert kinds(score(claims_check, answer, context, "")) == ["predicate"], answer


@pytest.mark.parametrize(
    "answer",
    ["The bridge is open.", "The median rent rose.", "Home prices fell in the second quarter."],
)
def test_a_predicate_said_without_its_arguments_meets_only_what_says_which_way_an_amount_moved(
    claims_check: ClaimsCheck, answer: str
) -> None:
    """ "is open" says nothing of "was closed to traffic for repairs in 2019": only a change of amount is
    read without what it is said of; and the way the context states stands."""
    context = "The bridge was closed to traffic for repairs in 2019. " + HOUSING
    assert count(score(claims_check, answer, context, ""), "contradicted") == 0, answer


@pytest.mark.parametrize(
    ("answer", "context", "said"),
    [
        (
            "The plan includes a property tax increase.",
            "No property tax increase is included in the plan.",
            ["negation"],
        ),
        (
            "The province declared a state of emergency.",
            "No state of emergency has been declared.",
            ["negation"],
        ),
        ("The plan was not approved by the council.", "The council approved the plan.", ["negation"]),
        ("The plan was approved by the council.", "The council approved the plan.", []),
        ("The committee approved the budget.", "The plan was not approved by the council.", []),
        ("The plan was not approved by the council.", "The mayor approved the plan.", []),
    ],
)
def test_a_passive_clause_is_read_as_its_active(
    claims_check: ClaimsCheck, answer: str, context: str, said: list[str]
) -> None:
    """ "No property tax increase is included in the plan" says the plan includes none: the passive's
    subject is what the active acts on, its "by" phrase who acts (unknown without one)."""
    assert kinds(score(claims_check, answer, context, "")) == said, answer


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("UVA has never expelled a student for sexual assault.", []),
        ("A student at UVA was expelled for sexual assault.", ["negation"]),
    ],
)
def test_not_a_single_one_denies_the_subject(claims_check: ClaimsCheck, answer: str, said: list[str]) -> None:
    """ "not a single student ... has been expelled" denies, as "no student" does."""
    context = "Not a single student at UVA has ever been expelled for sexual assault."
    assert kinds(score(claims_check, answer, context, "")) == said, answer


def test_not_all_denies_only_some_and_not_only_none(claims_check: ClaimsCheck) -> None:
    context = "Some trains ran on the strike day. The students were expelled last year."
    for answer in (
        "Not all trains ran on the strike day.",
        "Not only the students were expelled last year, but also a teacher.",
        "Not only students but teachers were expelled last year.",
    ):
        assert count(score(claims_check, answer, context, ""), "contradicted") == 0, answer


def test_a_quoted_question_asserts_nothing(claims_check: ClaimsCheck) -> None:
    """The prosecutor's "can you really blame it on your brother?" states no blame either way, though a
    closing quote ends the sentence after the question mark."""
    context = 'The prosecutor said: "If you can do that, can you really blame it on your brother?"'
    answer = "The prosecution argued that his actions could not be blamed on his brother."
    assert count(score(claims_check, answer, context, ""), "contradicted") == 0


def test_before_someone_is_in_front_of_them_not_earlier(claims_check: ClaimsCheck) -> None:
    """ "never testified before Congress" is a denial to compare; "does not open before 10:00" bounds when
    it opens, and denies nothing the context states."""
    context = (
        "She never held elected office but testified before Congress four times. The archive opens at 10:00."
    )
    denied = score(claims_check, "Whitfield, who never testified before Congress, has died.", context, "")
    assert kinds(denied) == ["negation"]
    assert (
        count(score(claims_check, "The archive does not open before 10:00.", context, ""), "contradicted")
        == 0
    )


def test_a_cause_does_not_narrow_what_a_clause_says(claims_check: ClaimsCheck) -> None:
    """ "prohibited because of cold water" says why, not where or when: "Swimming is permitted" states
    the opposite of it."""
    context = (
        "Swimming is prohibited because of cold water and strong currents. "
        + "The road is closed due to flooding."
    )
    for answer in ("Swimming is permitted.", "The road is open."):
        assert kinds(score(claims_check, answer, context, "")) == ["predicate"], answer


def test_a_time_the_parse_took_for_the_root_does_not_hide_the_subject(claims_check: ClaimsCheck) -> None:
    """ "The library is open Monday to Saturday, 9 am to 8 pm, and is closed on Sundays": a small parse
    takes "am" for the root; the sentence is still about the library, not the items of the one before."""
    context = (
        "Lost items must be paid for at replacement cost. "
        + "The library is open Monday to Saturday, 9 am to 8 pm, and is closed on Sundays."
    )
    assert contradictions(score(claims_check, "The library is open on Sundays.", context, "")) != []
    assert (
        count(score(claims_check, "The library is open Monday to Saturday.", context, ""), "contradicted")
        == 0
    )


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("Home prices went down in the second quarter.", []),
        ("Home prices went up in the second quarter.", ["predicate"]),
        ("The median rent came down.", ["predicate"]),
    ],
)
def test_a_phrasal_verb_says_which_way_an_amount_moved(
    claims_check: ClaimsCheck, answer: str, said: list[str]
) -> None:
    """ "went down" is a fall and "went up" a rise: each meets the context's "fell" and "rose"."""
    assert kinds(score(claims_check, answer, HOUSING, "")) == said, answer


def test_kept_working_states_that_it_worked(claims_check: ClaimsCheck) -> None:
    """ "kept working at the mill" and "continued to work at the mill" state what "did not work at the
    mill" denies; a complement with its own negation ("continued not to pay") is not read as asserting."""
    context = "Hollis did not work at the mill. The Vance family paid the rent."
    for answer in ("Hollis kept working at the mill.", "Hollis continued to work at the mill."):
        assert kinds(score(claims_check, answer, context, "")) == ["negation"], answer
    held = score(claims_check, "The Vance family continued not to pay the rent.", context, "")
    assert isinstance(held.raw, dict)
    assert held.raw["kinds"] == ["name"]  # the family's name, and no polarity
    assert kinds(held) == []


def test_who_after_an_institution_describes_the_person_it_belongs_to(claims_check: ClaimsCheck) -> None:
    """In "director of the Pacific Marine Institute who never testified" the parse hangs "who" on the
    institute; a "who" clause describes a person, here the director, whose denial is then compared."""
    context = "The marine biologist Tom Reyes testified before Congress four times."
    answer = (
        "Tom Reyes, director of the Pacific Marine Institute who never testified before Congress, has died."
    )
    assert kinds(score(claims_check, answer, context, "")) == ["negation"]


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("The transit authority warned the contractor about the delays.", ["exchange"]),
        ("The contractor was warned by the transit authority.", ["exchange"]),
        ("The transit authority was warned by the contractor.", []),
        ("The contractor warned the transit authority.", []),
    ],
)
def test_a_clause_with_its_subject_and_argument_exchanged_is_contradicted(
    claims_check: ClaimsCheck, answer: str, said: list[str]
) -> None:
    """ "the authority warned the contractor" against "the contractor warned the authority", in either
    voice; the same statement in the passive agrees."""
    context = "The contractor warned the transit authority about the delays in March."
    assert kinds(score(claims_check, answer, context, "")) == said, answer


def test_a_predicate_that_says_the_same_both_ways_is_no_exchange(claims_check: ClaimsCheck) -> None:
    context = "The mayor met the governor in the capital."
    assert kinds(score(claims_check, "The governor met the mayor in the capital.", context, "")) == []


def test_a_reported_clauses_pronoun_is_the_reporter(claims_check: ClaimsCheck) -> None:
    """ "the authority says it warned Raltech" against "Raltech said it had warned the authority": each
    "it" is its reporter, so the two exchange who warned whom, though the year they share agrees."""
    context = "Raltech said in a statement that it had warned the authority about supply problems in 2023."
    answer = "The authority says it warned Raltech of supply problems in 2023."
    assert kinds(score(claims_check, answer, context, "")) == ["exchange"]
    same = "Raltech says it warned the authority of supply problems in 2023."
    assert kinds(score(claims_check, same, context, "")) == []
    for quoted in (
        '"It warned Raltech of supply problems in 2023," the authority said.',
        'The authority said: "It warned Raltech of supply problems in 2023."',
    ):  # in a quotation "it" is whoever the speaker speaks of
        assert kinds(score(claims_check, quoted, context, "")) == [], quoted


def test_a_while_clause_about_another_noun_is_read(claims_check: ClaimsCheck) -> None:
    """ "while the driver was not hospitalised" states something of the driver, whatever the passenger
    did; a "while" setting two like things side by side (two kinds of deer) is not read apart."""
    context = (
        "The passenger, Gary Terry, 36, died at the scene. The driver, Tavon Watson, 24, lost control of the"
        " car. He was hospitalized with minor injuries."
    )
    denied = "The passenger died at the scene, while the driver was not hospitalized with minor injuries."
    assert kinds(score(claims_check, denied, context, "")) == ["negation"]
    said = "The passenger died at the scene, while the driver was hospitalized with minor injuries."
    assert kinds(score(claims_check, said, context, "")) == []
    # a "while" of time says when, not that it happens
    storm = "The storm has not passed yet. Residents must stay indoors."
    assert kinds(score(claims_check, "Residents must stay indoors while the storm passes.", storm, "")) == []


def test_a_not_after_the_subject_denies_the_noun_it_sets_against_it(claims_check: ClaimsCheck) -> None:
    """ "al Qaeda -- not the Houthis -- holds sway" says al Qaeda holds sway; "not a single student"
    before the subject still denies the clause."""
    context = (
        "The trouble in Yemen is that al Qaeda in the Arabian Peninsula -- not the Houthis or the government"
        " forces -- holds sway in the east."
    )
    answer = "Al Qaeda in the Arabian Peninsula holds sway in the east of Yemen."
    assert kinds(score(claims_check, answer, context, "")) == []
    denied = "Not a single student has been expelled from the school."
    said = "A student has been expelled from the school."
    assert kinds(score(claims_check, said, denied, "")) == ["negation"]


def test_a_denial_of_manner_or_of_a_modifier_denies_no_predicate(claims_check: ClaimsCheck) -> None:
    """ "not serving properly" may serve, "has no fixed composition" says nothing against "a variable
    composition", "has no indoor pool" nothing against a pool; the same modifier denied contradicts."""
    for answer, context in (
        (
            "We serve others.",
            "If we are serving others for those reasons, we are not serving or loving properly.",
        ),
        ("The door shuts.", "The door won't shut properly."),
        ("Mixtures do not have a fixed composition.", "A mixture has a variable composition."),
        ("The school has a pool.", "The school has no indoor pool."),
    ):
        assert count(score(claims_check, answer, context, ""), "contradicted") == 0, answer
    fixed = score(
        claims_check, "Mixtures do not have a fixed composition.", "A mixture has a fixed composition.", ""
    )
    assert kinds(fixed) == ["negation"]
    # a modifier of another argument ("last year": when) is no modifier of what is denied, nor one of a
    # noun further down ("the school that has a big pool"), nor a manner of a predicate joined by "but"
    built = score(claims_check, "The town built a bridge.", "The town built no bridge last year.", "")
    assert kinds(built) == ["negation"]
    visit = "Sadly the firm never visited that school, which has a big pool."
    assert kinds(score(claims_check, visit, "The firm visited the school in May.", "")) == ["negation"]
    won = "In the end the team did not win the final but played well."
    assert kinds(score(claims_check, won, "The team won the final against Leeds.", "")) == ["negation"]


def test_what_ought_to_be_is_not_compared_with_what_is(claims_check: ClaimsCheck) -> None:
    """ "should be paid overtime" (or "must be") states no payment and no failure to pay; "should not"
    against "should" or "can" still contradicts, and a modal governs the predicate coordinated with its
    own ("can sign in and pay")."""
    context = (
        "Staff are not paid overtime. Visitors should sign in at the desk. Iron should not be taken with tea."
    )
    for answer in ("Staff should be paid overtime.", "Staff must be paid overtime."):
        assert count(score(claims_check, answer, context, ""), "contradicted") == 0, answer
    assert kinds(score(claims_check, "Visitors should not sign in at the desk.", context, "")) == ["negation"]
    # what may be against what ought to be: "can be taken with tea" where it should not be
    assert kinds(score(claims_check, "Iron can be taken with tea.", context, "")) == ["negation"]
    desk = "Visitors should not pay at the desk."
    assert kinds(score(claims_check, "Visitors can sign in and pay at the desk.", desk, "")) == ["negation"]
    rule = "Visitors shall sign in and pay at the desk."
    assert count(score(claims_check, rule, "Visitors do not pay at the desk.", ""), "contradicted") == 0


def test_a_denial_over_two_predicates_joined_by_or_denies_both(claims_check: ClaimsCheck) -> None:
    """ "did not approve or fund the plan" denies funding, "did not approve, fund or build" building too;
    "did not win but placed" places."""
    context = "The council did not approve or fund the plan. The team did not win but placed second."
    assert kinds(score(claims_check, "The council funded the plan.", context, "")) == ["negation"]
    three = "The council did not approve, fund or build the bridge."
    assert kinds(score(claims_check, three, "The council built the bridge.", "")) == ["negation"]
    assert count(score(claims_check, "The team placed second.", context, ""), "contradicted") == 0


def test_a_relative_clause_with_a_subject_of_its_own_is_about_that_subject(claims_check: ClaimsCheck) -> None:
    """ "a combination of elements where the parts of the mixture are not bonded" says the parts are not
    bonded, not the elements."""
    mixture = (
        "A mixture is a physical combination of elements or compounds where the parts of the mixture are "
        "not chemically bonded."
    )
    answer = "Compounds are substances made of two or more elements that are chemically bonded together."
    assert count(score(claims_check, answer, mixture, ""), "contradicted") == 0


def test_no_one_no_longer_and_a_for_clause_are_read_right(claims_check: ClaimsCheck) -> None:
    """ "no one was transported" denies as "none were" does, "can no longer sit out" or "cannot sit out
    any longer" (it could before) is not compared, and "for a statement to be defamatory, it must be
    false" states no defamation; "for the driver was tired" is a cause, and read."""
    hospital = "No one was transported to the hospital."
    none = score(claims_check, "However, none were transported to the hospital.", hospital, "")
    assert count(none, "contradicted") == 0 and count(none, "supported") == 1
    assert kinds(score(claims_check, "Two people were transported to the hospital.", hospital, "")) == [
        "negation"
    ]
    rule = "As Jeff Probst explained before, castaways could not sit out consecutive challenges."
    answer = "The show said that castaways can no longer sit out consecutive challenges."
    assert count(score(claims_check, answer, rule, ""), "contradicted") == 0
    answer = "The show said that castaways cannot sit out consecutive challenges any longer."
    assert (
        count(score(claims_check, answer, "Castaways sit out consecutive challenges.", ""), "contradicted")
        == 0
    )
    route = "Alpenglow Expeditions has used the Nepal route for years."
    answer = "Alpenglow Expeditions will no longer use the Nepal route."
    assert count(score(claims_check, answer, route, ""), "contradicted") == 0
    assert kinds(score(claims_check, "Castaways can sit out consecutive challenges.", rule, "")) == [
        "negation"
    ]
    law = "True statements cannot be defamatory."
    answer = "The court has stated that for a statement to be defamatory, it must be both false and harmful."
    assert count(score(claims_check, answer, law, ""), "contradicted") == 0
    tired = "The driver stopped early, for the driver was tired."
    assert kinds(score(claims_check, tired, "The driver was not tired.", "")) == ["negation"]


def test_an_exchange_is_read_on_the_words_that_name_the_object(claims_check: ClaimsCheck) -> None:
    """ "The trap has two ends with lead-ins that angle into the trap" has ends, not a trap: no exchange
    with "Two ends have lead-ins"."""
    context = "Two ends have lead-ins that angle into the trap from the sides and bottom."
    answer = "The trap has two ends with lead-ins that angle into the trap from the sides."
    assert "exchange" not in kinds(score(claims_check, answer, context, ""))
