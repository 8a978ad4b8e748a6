"""The checkable atoms of a parsed text: numbers with their units, amounts of money, percentages,
dates, and names of people, places and organisations, each with its character offsets and its value
in a normal form (:mod:`trustscore.grounding.claims._values`), and the sentence it stands in.

Entities come from the spaCy pipeline's named-entity recogniser; a number written in digits that the
recogniser left out is still an atom (a count with the noun it counts as its unit), and so is a
percentage it left out, in digits or words ("nearly five per cent of them", :mod:`._percent`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from trustscore.grounding.claims._negation import attempted, denied, ranged
from trustscore.grounding.claims._percent import PERCENT_WORDS, missed_percent, names_percent, percent_after
from trustscore.grounding.claims._subjects import sentence_subjects, subject_of
from trustscore.grounding.claims._syntax import (
    bound_words,
    excluded,
    partitive_whole,
    predicate_lemma,
    shared_role,
)
from trustscore.grounding.claims._titles import roles_inside
from trustscore.grounding.claims._units import (
    counted,
    half_in_a_name,
    measure,
    quantity_unit,
    rate_after,
    temperature_scale,
)
from trustscore.grounding.claims._values import (
    DIGITS,
    SCALE_ABBREVIATIONS,
    DateValue,
    months_in,
    parse_date,
    parse_number,
)
from trustscore.grounding.claims._verdict import Outcome, Verdict

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

    from trustscore.grounding.claims._records import Record

__all__ = ["NAME_GROUPS", "Atom", "AtomKind", "atom_verdict", "atoms", "name_numbers"]

AtomKind = Literal["number", "money", "percent", "date", "name"]

NAME_GROUPS = {
    "PERSON": "person",
    "ORG": "organisation",
    "GPE": "place",
    "LOC": "place",
    "FAC": "place",
    "NORP": "group",
    "PRODUCT": "thing",
    "EVENT": "event",
    "WORK_OF_ART": "work",
    "LAW": "law",
    "LANGUAGE": "language",
}
"""spaCy's entity labels for names, by the group within which one name can stand for another (the
recogniser often calls one place GPE in one sentence and LOC in the next)."""

_CURRENCIES = {
    "$": "usd",
    "us$": "usd",
    "dollar": "usd",
    "usd": "usd",
    "€": "eur",
    "euro": "eur",
    "eur": "eur",
    "£": "gbp",
    "pound": "gbp",
    "gbp": "gbp",
    "¥": "jpy",
    "yen": "jpy",
}
_NUMBER_LABELS = {"CARDINAL", "QUANTITY", "MONEY", "PERCENT"}
_LIST_LINKS = frozenset({",", "and", "or", "&", "to", "-", "–", "through", "until"})
"""Words between days of one list or span ("3, 4 and 5", "3 to 9")."""
_WEEKDAYS = frozenset(
    {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "weekend", "weekday"}
)
_DECADE = re.compile(r"\d0s\b")
_WORDS = re.compile(r"\w+")
_TIMES = {"twice": 2.0, "thrice": 3.0}
"""Words that are a count of times ("inspected twice a year" is "two times a year")."""
_PREDICATE_POS = frozenset({"VERB", "ADJ", "AUX"})
_COPULA_SLOTS = frozenset({"acomp", "attr", "oprd"})


@dataclass(frozen=True)
class Atom:
    """One checkable statement of fact inside a text."""

    kind: AtomKind
    text: str
    start: int
    end: int
    sentence: int
    """Index of its sentence in the parsed text."""
    number: float | None = None
    unit: str | None = None
    """What a number counts ("metre", "book"), a currency code, or "%"; None when not said."""
    date: DateValue | None = None
    group: str | None = None
    """A name's group (:data:`NAME_GROUPS`)."""
    words: tuple[str, ...] = field(default=())
    """A name's (or a weekday's) words, casefolded."""
    predicate: str | None = None
    """The lemma of the verb or adjective the atom depends on ("opened on 14 March" -> "open")."""
    adjectival: bool = False
    """The predicate is an adjective or participle after "be" ("is closed on Sundays")."""
    negated: bool = False
    """The predicate is negated ("did not open")."""
    predicate_text: str | None = None
    """The predicate as written, with its negation ("did not open" -> "not open")."""
    role: str | None = None
    """The slot it fills in its clause: "in" for "founded in 1953", "by" for "founded by Ruth Abara",
    else its dependency ("nsubj", "dobj"); a name or value that is itself a conjunct fills the slot of
    the phrase it is joined to ("founded by Ann Lee and Bob Marsh": both "by"), one that counts a
    conjunct keeps "conj" ("5 stores and 200 employees") (:func:`._syntax.shared_role`)."""
    subject: frozenset[str] = field(default=frozenset())
    """The words of its clause's subject, a pronoun resolved to the sentence before's subject."""
    excluded: bool = False
    """Stated as an exception ("every day except Sunday")."""
    slot: str | None = None
    """In a record context (:mod:`._records`), the key of the field whose value it is."""
    bound: str | None = None
    """A number's words that make it a bound or an estimate ("more than", "about"), as the parse hangs
    them on it (:func:`._syntax.bound_words`)."""

    @property
    def denies(self) -> bool:
        """Its clause says the predicate does not hold of it: negated, or stated as an exception ("open
        except on Mondays"), not both."""
        return self.negated != self.excluded

    def describe(self) -> str:
        """How the atom reads in a reason: its text as written."""
        return self.text


def atoms(doc: Doc) -> list[Atom]:
    """Every atom of ``doc`` in text order."""
    sentence_of = _sentence_index(doc)
    subjects = sentence_subjects(doc)
    out: list[Atom] = []
    taken: set[int] = set()
    for ent in doc.ents:
        if len(ent) > 1 and ent[0].lower_ in _TIMES:
            ent = ent[1:]  # "twice every 15 seconds": "twice" is its own count of times
        if all(i in taken for i in range(ent.start, ent.end)):
            continue  # a day of a date's list ("4" of "March 3, 4 and 5")
        atom = _entity_atom(ent, sentence_of[ent.start])
        if atom is not None and not _scale(ent.root):
            out.append(replace(atom, **_relation(ent.root, subjects[atom.sentence]), bound=bound_words(ent)))
            held = doc.char_span(atom.start, atom.end, alignment_mode="expand") or ent  # a list of days too
            taken.update(range(min(held.start, ent.start), max(held.end, ent.end)))
    for token in doc:
        if token.lower_ in _TIMES and token.i not in taken:
            out.append(_times(token, sentence_of[token.i], subjects))
            continue
        if token.i in taken or not token.like_num:
            continue
        percent = missed_percent(token)
        if percent is not None and (value := parse_number([token.text])) is not None:
            atom = _entity_span(percent, sentence_of[token.i], kind="percent", number=value, unit="%")
            relation = _relation(token, subjects[atom.sentence])
            out.append(replace(atom, **relation, bound=bound_words(percent)))
            continue
        if not any(c.isdigit() for c in token.text):
            continue
        if _scale(token):
            continue
        day = _day_of_month(token, sentence_of[token.i], taken)
        if day is not None:
            out.append(replace(day, **_relation(token, subjects[day.sentence])))
            continue
        value = parse_number([token.text])
        if value is not None:
            out.append(
                Atom(
                    kind="number",
                    text=token.text,
                    start=token.idx,
                    end=token.idx + len(token.text),
                    sentence=sentence_of[token.i],
                    number=value,
                    unit=measure(counted(token), [token]),
                    bound=bound_words(doc[token.i : token.i + 1]),
                    **_relation(token, subjects[sentence_of[token.i]]),
                )
            )
    out.sort(key=lambda a: a.start)
    return out


def _day_of_month(token: Token, sentence: int, taken: set[int]) -> Atom | None:
    """A day the recogniser left out of a date, read with the month beside it ("on Feb 14", "14 March");
    None when no month is beside it, the month is part of an atom already, or the two read as no day."""
    doc = token.doc
    for span in (doc[token.i - 1 : token.i + 1], doc[token.i : token.i + 2]):
        beside = len(span) == 2 and not any(t.i in taken or t.text == "may" for t in span)  # the modal
        when = parse_date(span.text) if beside and months_in(span.text) else None
        if when is not None and when.day is not None:
            return Atom(
                kind="date",
                text=span.text,
                start=span.start_char,
                end=span.end_char,
                sentence=sentence,
                date=when,
                number=float(when.day),
            )
    return None


def _scale(token: Token) -> bool:
    """The number is the scale a value is read on, not a value: the 5 of "4.5 out of 5 stars"."""
    node = token.head if token.dep_ == "nummod" else token
    head = node.head
    return node.dep_ == "pobj" and head.lower_ == "of" and head.i > 0 and head.doc[head.i - 1].lower_ == "out"


def _times(token: Token, sentence: int, subjects: list[frozenset[str]]) -> Atom:
    """ "twice" as the count of times it is."""
    end = token.idx + len(token.text)
    return Atom(
        kind="number",
        text=token.text,
        start=token.idx,
        end=end,
        sentence=sentence,
        number=_TIMES[token.lower_],
        unit="time",
        **_relation(token, subjects[sentence]),
    )


def _sentence_index(doc: Doc) -> list[int]:
    index = [0] * len(doc)
    for n, sent in enumerate(doc.sents):
        for i in range(sent.start, sent.end):
            index[i] = n
    return index


def _entity_atom(ent: Span, sentence: int) -> Atom | None:
    label = ent.label_
    if label in NAME_GROUPS and any(t.like_num for t in ent) and parse_date(ent.text) is not None:
        label = "DATE"  # the recogniser sometimes calls a full date an EVENT
    if label in NAME_GROUPS:
        if label == "PERSON":  # "Councilmember Denise Okafor": the role is no part of the name
            ent = ent[len(roles_inside(ent)) :]
        words = _name_words(ent)
        if not words or temperature_scale(ent):
            return None
        start = next((t.idx for t in ent if t.lower_ != "the"), ent.start_char)
        return Atom(
            kind="name",
            text=ent.text[start - ent.start_char :],  # not doc.text: spaCy joins every token for it
            start=start,
            end=ent.end_char,
            sentence=sentence,
            group=NAME_GROUPS[label],
            words=words,
        )
    if label in ("DATE", "TIME"):
        return _time_atom(ent, sentence)
    if label not in _NUMBER_LABELS:
        return None
    ent = _to_its_sentence_end(ent)
    if label == "MONEY":
        ent = _with_abbreviated_scale(ent)
    elif half_in_a_name(ent[-1]):  # "on 2 half sheet pans": 2 pans; "on half sheet pans": no count
        ent = ent[:-1]
        if not len(ent):
            return None
    if label == "QUANTITY" and rate_after(ent[-1]) is not None:  # "10 km" of "10 km/h", its second unit too
        ent = ent.doc[ent.start : ent.end + 2]
    tokens = list(ent)
    value = parse_number([t.text for t in tokens], money=label == "MONEY")
    if value is None:
        return None
    start = ent.start_char
    unit = _currency(tokens)
    if label == "MONEY" and unit is None and ent.start > 0:
        before = ent.doc[ent.start - 1]
        if before.text.casefold() in _CURRENCIES:
            unit, start = _CURRENCIES[before.text.casefold()], before.idx
    if label == "MONEY" and (unit is not None or not names_percent(tokens)):
        kind: AtomKind = "money"
    elif (
        label in ("PERCENT", "MONEY") or percent_after(ent) or any(t.lower_ in PERCENT_WORDS for t in tokens)
    ):
        kind, unit = "percent", "%"
    else:
        kind = "number"
        unit = measure(quantity_unit(tokens) if label == "QUANTITY" else counted(tokens[-1]), tokens)
        if (
            unit in _CURRENCIES and unit != "pound"
        ):  # "150 euros" the recogniser left a cardinal; pounds may weigh
            kind, unit = "money", _CURRENCIES[unit]
            if ent.end < len(ent.doc) and tokens[-1].head.i == ent.end:
                ent = ent.doc[ent.start : ent.end + 1]
    return Atom(
        kind=kind,
        text=(ent.doc[ent.start - 1 : ent.end] if start < ent.start_char else ent).text,
        start=start,
        end=ent.end_char,
        sentence=sentence,
        number=value,
        unit=unit,
    )


def _to_its_sentence_end(ent: Span) -> Span:
    """The entity up to a full stop inside it: the parse keeps "F." in "375 degree F. Rub the roast"
    as an abbreviation and runs the sentence on, and the recogniser takes "375 degree F. Rub" for one
    quantity, whose unit would be "rub". A word that ends in a full stop (its only one: "U.S." stays a
    place) and is followed by a capitalised word ends the sentence."""
    for token in ent[:-1]:
        if token.text.endswith(".") and token.text[:-1].isalpha() and ent.doc[token.i + 1].is_title:
            return ent.doc[ent.start : token.i + 1]
    return ent


def _with_abbreviated_scale(ent: Span) -> Span:
    """The amount with the scale's abbreviation written onto it that the recogniser left out ("$4m"
    read as "$4" and "m")."""
    doc = ent.doc
    after = doc[ent.end].lower_.rstrip(".") if ent.end < len(doc) else ""  # "£20m." ends a sentence
    if after in SCALE_ABBREVIATIONS and not doc[ent.end - 1].whitespace_:
        return doc[ent.start : ent.end + 1]
    return ent


def _with_listed_days(ent: Span) -> Span:
    """A month's day without its year with the days listed beside it that the recogniser left out
    ("March 3" of "March 3, 4 and 5", "5 March" of "3, 4 and 5 March", "June 3" of "June 3 - 9"): the
    whole list is what it states. A list ends in a link that is no comma: "On June 5, 12 people" lists
    nothing."""
    when = parse_date(ent.text)
    if when is None or when.year is not None:
        return ent
    doc, start, end = ent.doc, ent.start, ent.end
    while end + 1 < len(doc) and doc[end].lower_ in _LIST_LINKS and _listed_day(doc[end + 1]):
        end += 2
    while end > ent.end and doc[end - 2].lower_ == ",":
        end -= 2
    if start >= 2 and doc[start - 1].lower_ not in _LIST_LINKS - {","}:
        return doc[ent.start : end]
    while start >= 2 and doc[start - 1].lower_ in _LIST_LINKS and _listed_day(doc[start - 2]):
        start -= 2
    return doc[start:end]


def _listed_day(token: Token) -> bool:
    """A day of a month written in digits."""
    return token.text.isdigit() and 1 <= int(token.text) <= 31


def _time_atom(ent: Span, sentence: int) -> Atom | None:
    """A date, a weekday or a duration ("three weeks"); None for a relative or vague time or a decade."""
    if _DECADE.search(ent.text):
        return None  # "the 1940s" spans ten years: no one year to look up
    ent = _with_listed_days(ent)
    when = parse_date(ent.text)
    if when is not None:
        # a day without its year keeps its day as a number, as a count or a span of days may state it
        day = float(when.day) if when.year is None and when.day is not None else None
        return _entity_span(ent, sentence, kind="date", date=when, number=day)
    days = tuple(_weekday(t.text) for t in ent if _weekday(t.text) in _WEEKDAYS)
    if days:
        return _entity_span(ent, sentence, kind="date", words=days)
    span = parse_number([t.text for t in ent])
    if span is not None:  # a duration: "three weeks"
        return _entity_span(ent, sentence, kind="number", number=span, unit=quantity_unit(list(ent)))
    return None  # relative ("last year") or vague ("recently"): nothing to look up


def _entity_span(ent: Span, sentence: int, **value: Any) -> Atom:
    """An atom that is the entity as written, with its kind and value."""
    return Atom(text=ent.text, start=ent.start_char, end=ent.end_char, sentence=sentence, **value)


def _name_words(ent: Span) -> tuple[str, ...]:
    """A name's words, casefolded: the capitalised ones where it has any, so a particle of another
    language ("von Tomas Reyes", "de la Cruz") is not part of what must match."""
    words = [t for t in ent if t.is_alpha and t.lower_ != "the"]
    capitalised = [t for t in words if not t.is_lower]
    return tuple(t.text.casefold() for t in capitalised or words)


def _weekday(word: str) -> str:
    w = word.casefold()
    return w[:-1] if w.endswith("s") and w[:-1] in _WEEKDAYS else w


def _currency(tokens: list[Token]) -> str | None:
    for t in tokens:
        code = _CURRENCIES.get(t.text.casefold()) or _CURRENCIES.get(t.lemma_.casefold())
        if code is not None:
            return code
    return None


class _Relation(TypedDict, total=False):
    predicate: str
    adjectival: bool
    negated: bool
    predicate_text: str
    role: str | None
    subject: frozenset[str]
    excluded: bool


def _relation(token: Token, sentence_subject: frozenset[str]) -> _Relation:
    """The predicate ``token`` depends on, whether it is adjectival and negated, the slot ``token``
    fills, the clause's subject, and whether ``token`` is stated as an exception."""
    governor = token.head
    while governor.pos_ not in _PREDICATE_POS and governor.head.i != governor.i:
        governor = governor.head
    slot = shared_role(token)
    is_subject = slot in ("nsubj", "nsubjpass")  # it is what the clause speaks of
    where: _Relation = {"role": slot, "excluded": excluded(token)}
    if governor.pos_ not in _PREDICATE_POS:
        return {**where, "subject": frozenset() if is_subject else sentence_subject}
    clause = [governor]
    if governor.lemma_ == "be":
        complement = next(
            (c for c in governor.children if c.dep_ in _COPULA_SLOTS and c.pos_ in ("ADJ", "VERB")), None
        )
        if complement is not None:
            clause.append(complement)
            governor = complement
    elif governor.head.lemma_ == "be" and governor.dep_ in _COPULA_SLOTS:
        clause.append(governor.head)
    adjectival = (
        governor.pos_ == "ADJ"
        or (governor.tag_ == "VBN" and any(c.lemma_ == "be" for c in governor.children))
        or len(clause) > 1
    )
    governing = [*clause, governor.head] if governor.dep_ == "xcomp" else clause  # "not left to rise twice"
    negated = denied(governing, clause, governor)
    if (negated and any(ranged(g) for g in clause)) or partitive_whole(token) or attempted(governor):
        # "On Saturdays it does not open until 10:00" opens on Saturdays, "tried to land" may not have
        # landed: no polarity to compare
        return {**where, "subject": frozenset() if is_subject else sentence_subject}
    return {
        **where,
        "subject": frozenset() if is_subject else subject_of(governor, sentence_subject),
        "predicate": predicate_lemma(governor),
        "adjectival": adjectival,
        "negated": negated,
        "predicate_text": ("not " if negated else "") + governor.text,
    }


def name_numbers(found: list[Atom], record: Record | None, text: str) -> dict[float, frozenset[str]]:
    """The numbers written inside names, and inside a record's short values that hold words too (an
    address the recogniser did not mark as a name: ``"address": "135 E Carrillo St"``), each with the
    names' words."""
    named = [a.text for a in found if a.kind == "name"]
    if record is not None:
        named += [text[s:e] for s, e, _ in record.fields if any(c.isalpha() for c in text[s:e])]
    out: dict[float, frozenset[str]] = {}
    for name in named:
        words = frozenset(w.casefold() for w in _WORDS.findall(name) if not w.isdigit())
        for written in DIGITS.findall(name):
            if (number := parse_number([written])) is not None:
                out[number] = out.get(number, frozenset()) | words
    return out


def atom_verdict(atom: Atom, outcome: Outcome, context: str | None = None) -> Verdict:
    """The verdict on one atom, of its kind and where it stands (``context``: what the context says
    instead, for a contradicted one)."""
    return Verdict(
        kind=atom.kind, outcome=outcome, text=atom.text, start=atom.start, end=atom.end, context=context
    )
