"""Who or what a clause is about: the subject of its predicate, a relative clause's the noun it
describes, a pronoun's the subject of the sentence before ("It has 420 pupils" after "Westfield primary
school was founded...") or of the clause it is coordinated with, and whether two subjects may be one thing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trustscore.grounding.claims._negation import SUBJECTS
from trustscore.grounding.claims._reports import reported, reporting

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

__all__ = ["compatible", "dependents", "noun_lemma", "sentence_subjects", "subject_of"]

_NOT_PERSONS = frozenset({"ORG", "GPE", "LOC", "FAC"})
_RELATIVE_TAGS = frozenset({"WDT", "WP", "WP$"})
"""A relative pronoun as a relative clause's subject stands for the noun the clause describes ("acids that
cannot be made"); a subject of its own ("a mixture, where the parts are not bonded") is the clause's."""
_PERSONS = frozenset({"i", "we", "you"})
"""Subjects that name the speaker or the reader, never the sentence before's subject: "you can increase
your score" says nothing of the "Snapchat stories" another sentence speaks of."""


def _words(tokens: list[Token] | Span) -> frozenset[str]:
    return frozenset(
        noun_lemma(t) for t in tokens if t.pos_ in ("NOUN", "PROPN") and t.is_alpha and not t.is_stop
    )


def noun_lemma(token: Token) -> str:
    """A noun's lemma, in the singular where the lemmatizer keeps a plural: "people" as "person" ("one
    person" and "two people" count the same thing), and a plural proper noun, which it keeps as written
    ("ATVs", "Distributions"; "ATV" is the same subject), in its regular singular: "-ies" as "-y",
    "-ches", "-shes", "-sses" and "-xes" without "-es", else without "-s"."""
    lemma = token.lemma_.casefold()
    if lemma == "people":
        return "person"
    if token.tag_ != "NNPS" or lemma != token.lower_ or not lemma.endswith("s") or lemma.endswith("ss"):
        return lemma
    if lemma.endswith("ies"):
        return lemma[:-3] + "y"
    if lemma.endswith(("ches", "shes", "sses", "xes")):
        return lemma[:-2]
    return lemma[:-1]


def sentence_subjects(doc: Doc) -> list[frozenset[str]]:
    """Per sentence, its main clause's subject (not a time's "am", which a parse may take for the root);
    a pronoun or missing one takes the subject of the sentence before ("It has 420 pupils": the school).
    A report ("The driver lost control, police said") is about what it reports: its subject the driver."""
    out: list[frozenset[str]] = []
    last: frozenset[str] = frozenset()
    for sent in doc.sents:
        words = _subject_words(reported(sent.root))
        root = sent.root
        if not words and root.lower_ in ("am", "pm") and root.i > sent.start and root.nbor(-1).like_num:
            words = next((w for t in sent if t.dep_ in SUBJECTS and (w := _words(list(t.subtree)))), words)
        if words:
            last = words
        out.append(words or last)
    return out


def _subject_words(predicate: Token) -> frozenset[str]:
    own = [c for c in dependents(predicate) if c.dep_ in SUBJECTS and c.tag_ not in _RELATIVE_TAGS]
    if predicate.dep_ == "relcl" and not own:  # "acids that cannot be made": the noun it describes
        described = _described(predicate)
        return _words([t for t in described.subtree if t.i <= described.i])
    for child in dependents(predicate):
        if child.dep_ in SUBJECTS:
            if child.lower_ in _PERSONS:
                return frozenset({child.lower_})
            return _words(list(child.subtree))
    if predicate.dep_ in ("acomp", "attr", "xcomp") and predicate.head.i != predicate.i:
        return _subject_words(predicate.head)
    return frozenset()


def _described(relative: Token) -> Token:
    """The noun a relative clause describes: the one the parse hangs it on, except where "who" follows
    an organisation or place that is another noun's ("director of the Pacific Marine Institute who never
    testified": the director, and the person an apposition names so, not the institute)."""
    noun = relative.head
    of = noun.head
    who = any(c.lower_ in ("who", "whom") for c in relative.children)
    if who and noun.ent_type_ in _NOT_PERSONS and noun.dep_ == "pobj" and of.lower_ == "of":
        person = of.head
        if person.pos_ in ("NOUN", "PROPN"):  # "Tom Reyes, director of ...": Tom Reyes
            return person.head if person.dep_ == "appos" else person
    return noun


def dependents(token: Token) -> list[Token]:
    """``token``'s dependents, with those the parse hung on its auxiliaries ("It" on "is" in "It is
    closed")."""
    own = list(token.children)
    return own + [g for c in own if c.dep_ in ("aux", "auxpass") for g in c.children]


def subject_of(predicate: Token, sentence_subject: frozenset[str]) -> frozenset[str]:
    """The subject of ``predicate``'s clause (a reported clause's pronoun the reporter's: "Raltech said it
    had warned the authority"), or the sentence's (resolved) subject when it has none of its own or only
    a pronoun."""
    reporter = reporting(predicate)
    said_by = _subject_words(reporter) if reporter is not None else frozenset()
    return _subject_words(predicate) or said_by or _conjunct_subject(predicate) or sentence_subject


def _conjunct_subject(predicate: Token) -> frozenset[str]:
    """An "it" that is the subject of a coordinated predicate stands for the nearest subject before it
    in the sentence, not the sentence's: "One difference is that the ADA applies to all employers,
    whereas the FEHA affects more employees, and it doesn't distinguish ..." says it of the FEHA, though
    the parse coordinates "distinguish" with "is"."""
    pronoun = next((c for c in dependents(predicate) if c.dep_ in SUBJECTS and c.lower_ == "it"), None)
    if pronoun is None or predicate.dep_ != "conj":
        return frozenset()
    before = pronoun.doc[pronoun.sent.start : pronoun.i]
    subject = next((t for t in reversed(before) if t.dep_ in SUBJECTS and t.pos_ != "PRON"), None)
    return frozenset() if subject is None else _words(list(subject.subtree))


def compatible(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two subjects may be the same thing: one is unknown, or they share a word ("the school" and
    "Westfield primary school"), whole or as the end of a compound ("the bridge", "the footbridge")."""
    return not a or not b or any(x.endswith(y) or y.endswith(x) for x in a for y in b)
