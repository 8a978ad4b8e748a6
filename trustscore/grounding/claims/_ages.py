"""A named person's age, compared with the age the context gives the same person: "23-year-old Martin
Richard" against "Martin Richard, 8".

A number is checked on its own against the context's numbers, so an age that the context states of
someone else ("Lingzi Lu, 23") supported any person's age. Here the age is read with the person it is
bound to, in the ways news text binds them:

- after the name: "Lingzi Lu, 23," (a number alone between commas, or closing the sentence), "Jane
  Doe, aged 31", "John Smith, a 45-year-old teacher"; not a list of ages ("Tom and Henry Smith, 8 and
  10") nor a numbered list ("1. John Smith, 2. Jane Doe"); not "John Smith (45)", which as often
  writes a goal's minute, a shirt's number or a citation;
- before it: "23-year-old Martin Richard", "the 8-year-old pupil Mariamne Dickson" (at most four
  nouns and adjectives between: "the 12-year-old son of John Smith" is not John Smith's age);
- in a clause of which the person is the subject: "Jane Doe died at the age of 81", "Jane Doe retired
  in 2010 aged 70".

Two mentions name the same person by :mod:`._people` ("Richard" and "Martin Richard"). A response's
age is supported when the context gives that age to the person. It is contradicted when the context
gives the person, named at least as fully, only other ages, one side says it is an age
("23-year-old", "aged 23": "LeBron James, 30," may be his points, "Carlos Alcaraz, 1," a seed),
the two sentences name the same calendar years (a person's age at another time, "Jane Doe, 35, won
re-election in 2017" against "Jane Doe, 31, was elected in 2013", is none), and the number stands
nowhere else in the context but as someone else's age ("he died in 2012, aged 60"). A line with no verb
("Magnus Carlsen, 3, Hikaru Nakamura, 1.") is a tally, not ages. A person the context gives no age, or
a name that could be two of the context's people ("Richard" beside "Martin Richard" and "Bill
Richard"), is left to the number check, which no longer contradicts an age with someone else's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from trustscore.grounding.claims._people import one_of, one_person, person_words
from trustscore.grounding.claims._verdict import Outcome, Verdict

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span

__all__ = ["Age", "PersonAges", "age_verdicts", "person_ages"]

_OLDEST = 120
_AN_AGE = re.compile(r"\s?-?\s?years?\s?-?\s?old\b", re.IGNORECASE)
"""What makes a number an age ("-year-old", " years old")."""
_YEAR = re.compile(r"(?<!\d)(?:18|19|20)\d\d(?!\d)")
_YEAR_WORDS = frozenset({"year", "years"})
_CLOSERS = frozenset({",", ".", ")", "and"})
"""What may follow an age written after a name ("Lu, 23, a student"; "Lu, 23."): not "Lu, 23 points",
not "8 and 10" (a list of ages, each of whose names is unclear)."""
_AGED = frozenset({"aged", "age"})
_ARTICLES = frozenset({"a", "an", "the"})
_BETWEEN = 4
"""How many words may stand between "N-year-old" and the name it describes."""
_DESCRIBING = frozenset({"NOUN", "ADJ"})
"""What may stand between "N-year-old" and its name ("the 8-year-old pupil Martin Richard")."""
_VERBS = frozenset({"VERB", "AUX"})
_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
_OBJECTS = frozenset({"dobj", "attr", "oprd"})
_AT_THE_AGE_OF = ("at", "the", "age", "of")


@dataclass(frozen=True)
class Age:
    """One person's age as a text states it."""

    person: frozenset[str]
    """The words of the person's name, a title before it included, casefolded ("mr", "smith")."""
    name: str
    years: int
    text: str
    """The age as written ("23", "23-year-old")."""
    start: int
    end: int
    explicit: bool
    """Said to be an age ("23-year-old", "aged 23"), not only a number beside the name ("Lu, 23,"), which
    may be a score, a shirt's number or a seed."""
    event: str
    """The lemmas of the verb the person's clause states and of its object ("died at the age of 81" and
    "Jane Doe, 81, died": "die"; "won the election": "win election")."""
    of_event: bool
    """Read from the clause ("at the age of 81"): the age at that event, not the person's age."""


@dataclass(frozen=True)
class PersonAges:
    """The ages a text states, and every person it names (to tell which of them a short name can be)."""

    ages: tuple[Age, ...]
    people: frozenset[frozenset[str]]


def person_ages(doc: Doc) -> PersonAges:
    """The ages bound to the persons a parsed text names."""
    found: list[Age] = []
    people: set[frozenset[str]] = set()
    for ent in doc.ents:
        if ent.label_ != "PERSON" or not (person := person_words(doc, ent)):
            continue
        people.add(person)
        beside = _after(doc, ent) or _before(doc, ent)
        bound = beside or _in_clause(doc, ent)
        # a line with no verb is a tally, "Magnus Carlsen, 3, Hikaru Nakamura, 1.", and states no age
        if bound is not None and any(t.pos_ in _VERBS for t in ent.sent):
            years, first, last = bound
            start, end = doc[first].idx, doc[last].idx + len(doc[last])
            explicit = (
                doc[last].lower_ == "old"
                or (first > 0 and doc[first - 1].lower_ in _AGED)
                or doc[max(0, first - 2) : first].text.lower() == "age of"
            )
            at_event = beside is None
            found.append(
                Age(person, ent.text, years, doc.text[start:end], start, end, explicit, _event(ent), at_event)
            )
    return PersonAges(tuple(found), frozenset(people))


Text = tuple[str, list[tuple[int, int]], PersonAges]
"""A text, its sentences' character offsets and the ages it states."""


def age_verdicts(verdicts: list[Verdict], response: Text, context: Text) -> list[Verdict]:
    """``verdicts`` with each response age the context speaks of judged by the person's age there (it
    replaces what the number check said of the same words)."""
    said, stated = response[2], context[2]
    out = list(verdicts)
    for age in said.ages:
        candidates = [p for p in stated.people if one_of(p, age.person)]
        same = [a for a in stated.ages if one_of(a.person, age.person) and _same_time(age, a)]
        named = [a for a in same if _rival(age, a, response, context)]
        # ages at two events of one verb ("named CEO at 40", "named chair at 50") cannot say which is which
        if not one_person(candidates) or (age.of_event and len({a.years for a in same}) > 1):
            out = [_not_anothers(v, age, stated) for v in out]
        elif any(a.years == age.years for a in same + _at_event(age, stated.ages)):
            out = _judged(out, age, "supported", None)
        elif named and _free(age, [a for a in stated.ages if a not in same], context[0]):
            out = _judged(out, age, "contradicted", f"{named[0].name} is {named[0].years}")
        else:
            out = [_not_anothers(v, age, stated) for v in out]
    return out


def _same_time(age: Age, stated: Age) -> bool:
    """Two ages at events ("at the age of 81") speak of one time where their verbs are the same ("died at
    the age of 81", "died aged 81"); two ages beside names do (their calendar years decide,
    :func:`_rival`); an age beside a name and one at an event do not ("Jane Doe, 70, retired last year"
    gives her age now, not at retiring)."""
    return age.of_event == stated.of_event and (not age.of_event or age.event == stated.event)


def _at_event(age: Age, stated: tuple[Age, ...]) -> list[Age]:
    """The context's ages of the person that an age beside the name and an age at an event share an
    event with ("81-year-old Jane Doe died" and "Jane Doe died at the age of 81"): the same number there
    supports the age, another does not contradict it (the age beside the name may be hers now)."""
    return [
        a
        for a in stated
        if one_of(a.person, age.person) and a.of_event != age.of_event and a.event == age.event
    ]


def _rival(age: Age, stated: Age, response: Text, context: Text) -> bool:
    """Whether the context's age of the person can contradict the response's: the person named at least
    as fully, one of the two said to be an age, in sentences of the same calendar years (at one event:
    the response's sentence names no year the context's does not)."""
    mine, theirs = _years_of(age, response), _years_of(stated, context)
    at_event = age.of_event or stated.of_event
    return (
        age.person <= stated.person
        and (age.explicit or stated.explicit)
        and (mine <= theirs if at_event else mine == theirs)
    )


def _years_of(age: Age, text: Text) -> frozenset[str]:
    """The calendar years the sentence of an age names: "Jane Doe, 35, won re-election in 2017" speaks of
    another year than "Jane Doe, 31, was elected in 2013", and is no contradiction of it."""
    start, end = next(((s, e) for s, e in text[1] if s <= age.start < e), (0, len(text[0])))
    return frozenset(_YEAR.findall(text[0][start:end]))


def _judged(verdicts: list[Verdict], age: Age, outcome: Outcome, said: str | None) -> list[Verdict]:
    """The verdicts less what they said of the age's value (a clause's polarity around it stays), and
    the age's own verdict."""
    kept = [v for v in verdicts if v.of_polarity or v.end <= age.start or v.start >= age.end]
    return [
        *kept,
        Verdict(kind="age", outcome=outcome, text=age.text, start=age.start, end=age.end, context=said),
    ]


def _free(age: Age, others: list[Age], context: str) -> bool:
    """The context writes the age's number nowhere but as another age (``others``: someone else's, or
    the person's at another event), or an age said of no name ("a 23-year-old graduate student"), which
    cannot be the person's, whose age the context gives otherwise."""
    for match in re.finditer(rf"(?<![\d.,]){age.years}(?![\d]|[.,]\d)", context):
        named = any(a.start <= match.start() < a.end for a in others)
        if not named and not _AN_AGE.match(context, match.end()):
            return False
    return True


def _not_anothers(verdict: Verdict, age: Age, stated: PersonAges) -> Verdict:
    """A contradiction of the age by the age the context gives someone else ("45: the context says 8",
    where 8 is Martin Richard's age and 45 Bill Richard's) is no contradiction: the age is unsupported."""
    if verdict.outcome != "contradicted" or verdict.end <= age.start or verdict.start >= age.end:
        return verdict
    others = {str(a.years) for a in stated.ages if not one_of(a.person, age.person)}
    return replace(verdict, outcome="unsupported", context=None) if verdict.context in others else verdict


def _after(doc: Doc, ent: Span) -> tuple[int, int, int] | None:
    """An age written after the name: its years and its first and last token."""
    i = ent.end
    if i >= len(doc) or doc[i].text != ",":
        return None
    i += 1
    if i < len(doc) and doc[i].lower_ in _AGED:
        i += 1
    elif i < len(doc) and doc[i].lower_ in _ARTICLES:
        i += 1
        hyphenated = _year_old(doc, i)
        return None if hyphenated is None else (hyphenated[0], i, hyphenated[1])
    if (hyphenated := _year_old(doc, i)) is not None:
        return hyphenated[0], i, hyphenated[1]
    years = _years(doc, i)
    if years is None:
        return None
    if i + 1 >= len(doc) or doc[i + 1].is_sent_start:
        return years, i, i
    closer = doc[i + 1].lower_
    listed = closer == "and" and _years(doc, i + 2) is not None  # "8 and 10"
    # "1. John Smith, 2. Jane Doe": the number opens the next item
    numbered = closer == "." and i + 2 < len(doc) and doc[i + 2].ent_type_ == "PERSON"
    return (years, i, i) if closer in _CLOSERS and not (listed or numbered) else None


def _before(doc: Doc, ent: Span) -> tuple[int, int, int] | None:
    """An "N-year-old" before the name, with at most a few nouns and adjectives between."""
    for last in range(ent.start - 1, max(ent.start - 2 - _BETWEEN, -1), -1):
        if doc[last].lower_ == "old":
            for first in range(last - 1, max(last - 5, -1), -1):
                hyphenated = _year_old(doc, first)
                if hyphenated is not None and hyphenated[1] == last:
                    return hyphenated[0], first, last
            return None
        if doc[last].pos_ not in _DESCRIBING or doc[last].ent_type_:
            return None
    return None


def _in_clause(doc: Doc, ent: Span) -> tuple[int, int, int] | None:
    """An age the clause of which the person is the subject gives: "Jane Doe died at the age of 81",
    "Jane Doe retired in 2010 aged 70" (the number's token twice: it is the age's first and last). Not
    where the sentence names another person: "John Smith married Jane Doe at the age of 25" may mean
    hers."""
    if ent.root.dep_ not in _SUBJECTS or any(e.label_ == "PERSON" and e != ent for e in ent.sent.ents):
        return None
    for word in ent.root.head.children:
        i = word.i
        if [t.lower_ for t in doc[i : i + 4]] == list(_AT_THE_AGE_OF) and (years := _years(doc, i + 4)):
            return years, i + 4, i + 4
        if word.lower_ == "aged" and (years := _years(doc, i + 1)):
            return years, i + 1, i + 1
    return None


def _event(ent: Span) -> str:
    """The lemma of the verb that governs the name (else of its sentence's root) and of its object:
    "won the election" and "won the primary" are two events, "joined Google" and "joined Apple" too."""
    token = ent.root
    while token.pos_ not in _VERBS and token.head.i != token.i:
        token = token.head
    verb = token if token.pos_ in _VERBS else ent.sent.root
    objects = [t.lemma_.casefold() for t in verb.children if t.dep_ in _OBJECTS and t.i != ent.root.i]
    return " ".join([verb.lemma_.casefold(), *objects])


def _year_old(doc: Doc, i: int) -> tuple[int, int] | None:
    """ "N-year-old" (or "N year old", "N-years-old") starting at token ``i``: its years and its last
    token."""
    years = _years(doc, i)
    if years is None:
        return None
    words = [t for t in doc[i + 1 : i + 6] if t.text != "-"]
    if len(words) >= 2 and words[0].lower_ in _YEAR_WORDS and words[1].lower_ == "old":
        return years, words[1].i
    return None


def _years(doc: Doc, i: int) -> int | None:
    """The token at ``i`` as an age: a whole number in digits, from 1 to 120."""
    if i >= len(doc) or not doc[i].text.isdigit():
        return None
    years = int(doc[i].text)
    return years if 0 < years <= _OLDEST else None
