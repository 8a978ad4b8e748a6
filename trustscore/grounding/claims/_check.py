"""Checks a response's atoms and the polarity of its clauses against the facts of its context.

A response sentence is *aligned* with the context sentence that shares the most of its content words
(:func:`._aligned.aligned_sentence`). Then, for each atom of the response:

- **supported**: the context or question states the same value (a date agreeing in every part both
  give, the same number, the capitalised words of a name: "von Tomas Reyes" is "Tomas Reyes"; a
  place's code for its name and its name for its code, "California" for a record's ``"CA"``,
  "CA" written in capitals for "California": :mod:`.._places`);
- **contradicted**: not supported, and the context states another value *in the same slot*
  (:func:`_rival`, :mod:`._slots`): "2001: the context says 14 March 2011";
- **unsupported**: neither. A value with no statement of the same slot to compare with is
  unsupported, never contradicted. A number written inside a context's name ("1111 E Cabrillo Blvd",
  "805 Deli") supports the same number written with no unit or one of the name's words, never a count
  of something else ("101 people" against "Highway 101"); the word "one" with no value of its slot to
  compare is left unchecked ("One customer mentioned..." counts nothing the context must state).

Same slot: a value of the same kind, of the same unit ("240 pupils" with "420 pupils", never with "18
teachers"; a year only with a year), said of a subject that may be the same one (:mod:`._syntax`;
"It" is the sentence before's subject), and, for names, dates and numbers without a unit, in the same
relation (the same predicate, or the aligned sentence) and role ("founded by <name>"). Names are of
the same group and not spellings of each other. In a record context (:mod:`._records`), a field's value
is compared only with a value whose unit names the field.

A sentence that copies a context sentence (the aligned one, or the one most like it word for word)
except one month, weekday, number, unit, name, antonym or negation, or with two stretches exchanged, is
contradicted there, whatever the parse makes of the slot (:mod:`._copies`); a sentence that copies one
only in part is read so one anchored change at a time (:mod:`._aligned`).

A change said to go one way between two values of the context that go the other ("fell from 22 to 38
percent") is contradicted in its direction (:mod:`._direction`). A person's age and role are compared
with the age and role the context gives that person (:mod:`._ages`, :mod:`._titles`). A count, amount
or share written as a bound or an estimate ("over 200", "about 200") is supported where the context's
number in its slot meets it (:mod:`._bounds`). A temperature is read across scales: the same number on
another scale contradicts, the same heat converted supports (:func:`._numeric.in_scale`); a number the
context gives only in another unit of the same measure ("42 miles" where it says "42 kilometres") is
contradicted by it, wherever either stands, unless the two are of other things ("of salt", "of
water"). A value worked out from the context's ("$200 more than the base model", "2,150 in total") is
unsupported, never contradicted by one of them (:mod:`._derived`); a duration is the context's in any
unit, and a rate is no rival of another rate's value (:mod:`._rates`: "$9,884 per month", "$57 per
hour").

Polarity: an atom the context states under the same predicate with the negation the other way, or
under an antonym ("open on Sundays" where it says "closed on Sundays"), or as an exception ("every day,
Sunday included" where it says "except Sunday") contradicts (:mod:`._relation`); each other sentence's
clauses are compared with the context's clauses about the same thing (:mod:`._polarity`), one verdict a
sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from trustscore.grounding._initials import capital_words
from trustscore.grounding._places import PlaceMention, codes_alike, place_mentions
from trustscore.grounding.claims._ages import PersonAges, age_verdicts, person_ages
from trustscore.grounding.claims._aligned import aligned_sentence, copy_changes, with_changes
from trustscore.grounding.claims._atoms import Atom, atom_verdict, atoms, name_numbers
from trustscore.grounding.claims._bounds import (
    bound_outcome,
    bounds_apart,
    changed_values,
    denied_bounds,
    opposite_bound,
    with_bound,
)
from trustscore.grounding.claims._copies import Side
from trustscore.grounding.claims._derived import derived_verdicts
from trustscore.grounding.claims._direction import direction_verdicts
from trustscore.grounding.claims._durations import joined, same_time
from trustscore.grounding.claims._fields import Mention, field_verdicts, mentions
from trustscore.grounding.claims._frames import framed_rival
from trustscore.grounding.claims._hours import read_as_hours
from trustscore.grounding.claims._initials import stated_by_initials
from trustscore.grounding.claims._numeric import (
    counts_field,
    in_another_unit,
    in_dates,
    in_scale,
    same,
    same_number,
    scaled,
    units_agree,
    with_unit,
    within,
)
from trustscore.grounding.claims._polarity import clause_index, exchange, polarity
from trustscore.grounding.claims._rates import other_rates
from trustscore.grounding.claims._records import Record, read_record
from trustscore.grounding.claims._relation import related_there, relation_verdict
from trustscore.grounding.claims._slots import (
    comparable,
    counted_otherwise,
    example_name,
    restated,
    same_role,
    spelling,
)
from trustscore.grounding.claims._subjects import compatible, sentence_subjects
from trustscore.grounding.claims._syntax import Clause, clauses, shared_role
from trustscore.grounding.claims._titles import PersonTitles, person_titles, title_verdicts
from trustscore.grounding.claims._verdict import POLARITY_KINDS, Verdict

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span

__all__ = ["POLARITY_KINDS", "Facts", "Verdict", "check", "facts"]

_CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM"})
_ANSWER_WORDS = frozenset({"yes", "no", "yeah", "nope"})
_WORD = re.compile(r"\w+")
_LETTERS = re.compile(r"[^\W\d_]+")
_BARE_WORDS = frozenset({"in", "on", "at", "by"})
"""Words a bare answer may hold beside its value ("In 2012.")."""
_HEDGES = frozenset({"about", "around", "approximately", "roughly", "nearly", "almost", "circa", "some"})
"""Words that make a value approximate ("Around 2010."): a bare answer with one is not compared."""
_AUXILIARIES = frozenset({"be", "have", "do"})
"""Lemmas a question holds for its grammar ("When was he president?"), not for what it asks."""


@dataclass(frozen=True)
class Facts:
    """What a parsed text offers for checking: its atoms, its sentences' content words, and its
    clauses by predicate."""

    text: str
    atoms: list[Atom]
    bounds: list[tuple[int, int]]
    """Each sentence's character offsets."""
    content: list[frozenset[str]]
    clauses: list[Clause]
    index: dict[str, list[Clause]]
    """The clauses by predicate lemma."""
    lemmas: frozenset[str]
    words: frozenset[str]
    places: frozenset[str]
    """The words of the names its place codes stand for (``"state": "CA"``: "california")."""
    place_codes: frozenset[str]
    """The codes its place names stand for and those it writes as places, in capitals ("California":
    "CA"; "the U.S.": "US"): they vouch only for a name written as the code."""
    capitals: frozenset[str]
    """Its words of two to five capitals, the initials of names it may state (:mod:`._initials`)."""
    mentions: dict[str, list[Mention]]
    """Each content lemma: where it stands and whether it is negated (:mod:`._fields`); empty for a text
    the response is checked against (a context, a question), where nothing reads them."""
    record: Record | None
    """The record the text is, if it is one."""
    name_numbers: dict[float, frozenset[str]]
    """The numbers written inside its names ("Radio 4", "1111 E Cabrillo Blvd"), each with the words of
    the names it stands in."""
    tokens: dict[int, tuple[str, str | None]]
    """Each word's lemma and slot in its clause (:func:`._syntax.shared_role`), by its first
    character's offset."""
    starts: tuple[int, ...]
    """The words' offsets in text order (the keys of ``tokens``), to read the words around a value."""
    ages: PersonAges
    """The ages it gives the persons it names (:mod:`._ages`)."""
    titles: PersonTitles
    """The roles it binds to the persons it names (:mod:`._titles`)."""

    @property
    def content_all(self) -> frozenset[str]:
        """The content words of every sentence."""
        return frozenset().union(*self.content)


def facts(doc: Doc, *, checked: bool = True) -> Facts:
    """The facts of one parsed text; a record's field values carry their field's key. ``checked``: the
    text is one that is checked (a response, a reply's statement), not one checked against; only such
    a text's words are read as statements of a record's fields."""
    sents = list(doc.sents)
    found = denied_bounds(joined(atoms(doc), doc.text))
    record = read_record(doc.text)
    keep = [True] * len(sents)
    if record is not None:
        found = [_slotted(a, record.slot(a.start, a.end)) for a in found]
        keep = [record.in_prose(s.start_char, s.end_char) for s in sents]
    said = clauses(doc, sentence_subjects(doc), keep)
    places = place_mentions(doc.text)
    return Facts(
        text=doc.text,
        atoms=found,
        bounds=[(s.start_char, s.end_char) for s in sents],
        content=[_content(s) for s in sents],
        clauses=said,
        index=clause_index(said),
        lemmas=frozenset(t.lemma_.casefold() for t in doc if t.is_alpha),
        words=_words(doc),
        places=frozenset(w for place in places if place.is_code for w in place.words),
        place_codes=_place_codes(places, doc.text),
        capitals=capital_words(doc.text),
        mentions=mentions(doc) if checked else {},
        record=record,
        name_numbers=name_numbers(found, record, doc.text),
        tokens={t.idx: (t.lemma_.casefold(), shared_role(t)) for t in doc if not t.is_space},
        starts=tuple(t.idx for t in doc if not t.is_space),
        ages=person_ages(doc),
        titles=person_titles(doc),
    )


def _place_codes(places: tuple[PlaceMention, ...], text: str) -> frozenset[str]:
    """:attr:`Facts.place_codes`; a code written ("U.S.") stands for its place's every code."""
    codes = {c for place in places if not place.is_code for (c,) in place.stands_for}
    codes.update(c for place in places if place.is_code for c in codes_alike(text[place.start : place.end]))
    return frozenset(codes)


def _words(doc: Doc) -> frozenset[str]:
    """Its words in lower case, each run of letters one word wherever the tokenizer splits: a name
    glued to what precedes it ("(CNN)Falih Essawi") still names "Falih"."""
    return frozenset(w.casefold() for t in doc if not t.is_space for w in _LETTERS.findall(t.text))


def _denied_there(rival: Atom, context: Facts) -> bool:
    """The context denies a value like the rival ("should not exceed 2 hours"): a denied value in the
    response is then read against it, not taken for a denial of another value."""
    return any(a.negated and a.kind == rival.kind and a.unit == rival.unit for a in context.atoms)


def _slotted(atom: Atom, slot: str | None) -> Atom:
    return atom if slot is None else replace(atom, slot=slot)


def check(response: Facts, context: Facts, question: Facts | None) -> list[Verdict]:
    """Every atom's verdict and every checked sentence's polarity verdict, in response order."""
    given = [context] if question is None else [context, question]
    asked = None if question is None else question.content_all
    aligned = [aligned_sentence(content, context.content, asked) for content in response.content]
    out: list[Verdict] = []
    related: set[int] = set()
    for atom in response.atoms:
        # The question supports a value but asserts no relation ("is it open on Sundays?"): only the
        # context's statements of the same value are compared for polarity.
        matched = [a for a in context.atoms if _same_value(a, atom)]
        if not matched and (opposed := opposite_bound(atom, context.atoms)) is not None:
            out.append(atom_verdict(with_bound(atom, response.text), "contradicted", opposed))
            continue
        if matched or any(_supports(f, atom) for f in given):
            if related_there(atom, matched):
                related.add(atom.start)
            out.append(relation_verdict(atom, matched))
            continue
        rival, same_relation = _rival(atom, context, aligned[atom.sentence], response, question)
        if rival is not None and atom.negated and not _denied_there(rival, context):
            out.append(atom_verdict(atom, "supported"))  # "not baked for 40 minutes" where it bakes for 25
            continue
        bounded = bound_outcome(atom, rival) if same_relation else None  # "over 200" with 212
        if bounded in ("supported", "unsupported"):
            out.append(atom_verdict(atom, bounded))
        elif rival is not None:
            said = scaled(with_unit(with_bound(rival, context.text), context.text))
            out.append(
                atom_verdict(with_unit(with_bound(atom, response.text), response.text), "contradicted", said)
            )
        elif atom.text.casefold() != "one":
            out.append(atom_verdict(atom, "unsupported"))
    out.extend(_sentence_polarity(response, context, related))
    found = [v for v in out if v.outcome == "contradicted"]
    out += [
        t for t in title_verdicts(response.titles, context.titles) if not any(t.overlaps(v) for v in found)
    ]
    if context.record is not None:
        fields, read = field_verdicts(response.text, response.mentions, response.bounds, context.record)
        out = [v for v in out if not read_as_hours(v, read)] + fields
    changes = copy_changes(_side(response), _side(context), aligned)
    out = with_changes(
        out,
        changed_values(changes, (response.text, response.atoms), (context.text, context.atoms)),
        response.bounds,
    )
    out = direction_verdicts(out, (response.text, response.bounds), (context.text, context.bounds))
    out = age_verdicts(
        out, (response.text, response.bounds, response.ages), (context.text, context.bounds, context.ages)
    )
    out = derived_verdicts(
        out, (response.text, response.bounds, response.atoms), (context.text, context.bounds, context.atoms)
    )
    # who did it to whom, in every clause (a value compared in it says nothing of that), where no other
    # check names the error ("Bob Marsh: the context says Ann Lee" for an exchange in a copied sentence)
    found = [v for v in out if v.outcome == "contradicted"]
    swapped = [exchange(c, context.index, response.text, context.text) for c in response.clauses]
    out += [v for v in swapped if v is not None and not any(v.overlaps(f) for f in found)]
    out.sort(key=lambda v: v.start)
    return out


def _side(f: Facts) -> Side:
    names = [(a.start, a.end) for a in f.atoms if a.kind == "name"]
    return Side(text=f.text, bounds=f.bounds, names=names, tokens=f.tokens)


def _sentence_polarity(response: Facts, context: Facts, skip: set[int]) -> list[Verdict]:
    """One polarity verdict per sentence whose clauses the context speaks of (a contradicted clause
    first), leaving out the clauses whose atoms' relations were compared already (``skip``: where those
    atoms begin): "It opened in May 1998, and the bridge is not lit at night" still has its
    second clause read."""
    best: dict[int, Verdict] = {}
    for clause in response.clauses:
        if clause.offsets & skip:
            continue
        verdict = polarity(clause, context.index, response.text, context.text)
        held = best.get(clause.sentence)
        if verdict is not None and (held is None or held.outcome == "supported"):
            best[clause.sentence] = verdict
    return list(best.values())


def _content(sent: Span) -> frozenset[str]:
    return frozenset(
        t.lemma_.casefold()
        for t in sent
        if t.pos_ in _CONTENT_POS and not t.is_stop and t.is_alpha and t.lower_ not in _ANSWER_WORDS
    )


def _supports(f: Facts, atom: Atom) -> bool:
    if atom.kind == "name":
        codes = {w.casefold() for w in _WORD.findall(atom.text) if w in f.place_codes}  # "LA", not "La"
        stated = all(w in f.words or w in f.places or w in codes for w in atom.words)
        return stated or stated_by_initials(atom, f.capitals, f.atoms)
    if atom.kind == "date" and atom.date is None:
        return all(w in f.lemmas for w in atom.words)
    if atom.kind == "date":
        assert atom.date is not None
        return any(
            (a.date is not None and a.date.states(atom.date))
            or (atom.date.month is None and a.number == atom.date.year)
            or in_dates(a, atom)
            for a in f.atoms
        )
    if atom.kind == "number" and atom.number in f.name_numbers:
        # the name's number, not a count: "805 Deli" with "805 Deli", not "135 reviews" with an address
        return atom.unit is None or atom.unit in f.name_numbers[atom.number]
    return any(
        a.number is not None
        and (units_agree(a, atom) or counts_field(a, atom))
        and (a.kind != "date" or atom.unit is None)  # "March 14" states no count of 14 pupils
        and (same(a.number, atom.number) or within(a, atom))
        and not bounds_apart(a, atom)
        for a in f.atoms
    ) or any(in_scale(a, atom) for a in f.atoms)  # "180 degrees Celsius" states "356°F"


def _rival(
    atom: Atom, context: Facts, sentence: int | None, response: Facts, question: Facts | None
) -> tuple[Atom | None, bool]:
    """What the context states in the atom's slot, if it states something else there: a comparable
    atom under the same predicate (in the aligned sentence first), else one in the aligned sentence,
    in the same role where the kind needs it (a bare answer: under the predicate the question asks
    about, :func:`_bare`), else a number between the same words (:func:`._frames.framed_rival`), else
    the atom's number in another unit of its measure (:func:`._numeric.in_another_unit`: "42 miles" for
    "42 kilometres"); and whether it is the first kind or a framed number, which state the same relation.
    A name given as one example of several has none, nor is one a rival (:func:`._slots.example_name`)."""
    if example_name(atom):
        return None, False
    said: dict[str, set[str | None]] = {}
    for a in response.atoms:
        said.setdefault(a.text.casefold(), set()).add(a.unit)
    names = [a for a in response.atoms if a.kind == "name"]
    rivals = [
        a
        for a in context.atoms
        if not restated(a, said.get(a.text.casefold()))
        and not same_number(a, atom)
        and comparable(atom, a)
        and compatible(atom.subject, a.subject)
        and not (a.kind == "name" and any(spelling(a, n) for n in names))
        and not example_name(a)
        and not other_rates(atom, response.text, a, context.text)  # "$9,884 per month", "$57 per hour"
    ]
    related = [
        a
        for a in rivals
        if a.slot is not None  # a record's field that the atom's unit names
        or (
            atom.predicate is not None
            and a.predicate == atom.predicate
            and (atom.kind == "date" or same_role(atom, a))
        )
    ]
    if related or counted_otherwise(atom, context.atoms):  # else the same relation states its count: none
        return min(related, key=lambda a: a.sentence != sentence, default=None), bool(related)
    asked = question.lemmas - _AUXILIARIES if question is not None and _bare(atom, response) else frozenset()
    near = [
        a
        for a in rivals
        if a.sentence == sentence
        and ((a.predicate is not None and a.predicate in asked) or same_role(atom, a))
        and a.group == atom.group
        and (
            atom.predicate is None
            or a.predicate is None
            or a.predicate == atom.predicate
            or atom.unit is not None  # "is 37 kilometres long", "is 73 kilometres long": one slot
        )
    ]
    if near:
        return near[0], False
    if any(age.start <= atom.start < age.end for age in response.ages.ages):
        return None, False  # a person's age may be the same person's at another time (:mod:`._ages`)
    stated = [a for a in context.atoms if not restated(a, said.get(a.text.casefold()))]
    texts = (response.text, context.text)
    rival = framed_rival(
        atom, stated, ((response.starts, response.tokens), (context.starts, context.tokens)), texts
    )
    if rival is not None:
        return rival, True
    return in_another_unit(atom, context.atoms, sentence, texts, (response.tokens, context.tokens)), False


def _bare(atom: Atom, response: Facts) -> bool:
    """The atom is its sentence's whole statement ("2012." answering "When did it open?"): it fills
    the slot the question asks about ("opened in 2011", not "began in 2009"), whatever role the parse
    gives it. A hedged one ("Around 1950.") is not compared."""
    start, end = response.bounds[atom.sentence]
    rest = response.text[start : atom.start] + " " + response.text[atom.end : end]
    hedged = any(w.casefold() in _HEDGES for w in _WORD.findall(response.text[start:end]))
    return not hedged and all(w.casefold() in _BARE_WORDS for w in _WORD.findall(rest))


def _same_value(a: Atom, b: Atom) -> bool:
    if a.kind == "name" or b.kind == "name":
        return a.kind == b.kind and a.words == b.words
    if a.date is not None or b.date is not None:
        return a.date is not None and b.date is not None and a.date.states(b.date)
    if a.number is None or b.number is None:
        return a.kind == b.kind == "date" and bool(a.words) and a.words == b.words
    return (same(a.number, b.number) and units_agree(a, b) and not bounds_apart(a, b)) or same_time(a, b)
