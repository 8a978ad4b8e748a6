"""What a statement is about, read from the dependency parse: the slot a value fills (``founded in
1953``: the ``in`` of ``found``), the subject of its clause with a pronoun resolved to the subject of
the sentence before ("It has 420 pupils" after "Westfield primary school was founded..."), and the
clauses of a text with their predicate, negation and arguments (:mod:`._polarity` compares them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

__all__ = ["Clause", "clauses", "compatible", "role", "sentence_subjects", "shared_role", "subject_of"]

_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
_NAME_LINKS = frozenset({"appos", "compound", "flat", "nmod", "poss"})
"""Dependencies by which a name or value stands for the noun it hangs on ("the teacher Ruth Abara")."""
_ARGUMENT_DEPS = frozenset(
    {"dobj", "attr", "acomp", "oprd", "prep", "agent", "dative", "npadvmod", "advmod", "pobj", "xcomp"}
)
_CLAUSE_POS = frozenset({"VERB", "AUX", "ADJ"})
_NEGATORS = frozenset({"never", "none", "nothing", "nobody", "neither", "nor"})
_EXCEPT = frozenset({"except", "excluding", "without", "besides"})
_ARGUMENT_POS = frozenset({"NOUN", "PROPN", "ADJ", "NUM"})
_NOT_CLAUSES = frozenset({"aux", "auxpass", "amod", "compound"})
_CONDITIONS = frozenset(
    {"if", "unless", "whether", "when", "whenever", "because", "although", "though", "while", "until"}
)
"""Marks of a clause that is not asserted on its own: a condition, a time, a cause or a concession."""


_PERSONS = frozenset({"i", "we", "you"})
"""Subjects that name the speaker or the reader, never the sentence before's subject: "you can increase
your score" says nothing of the "Snapchat stories" another sentence speaks of."""


def _words(tokens: list[Token] | Span) -> frozenset[str]:
    return frozenset(
        t.lemma_.casefold() for t in tokens if t.pos_ in ("NOUN", "PROPN") and t.is_alpha and not t.is_stop
    )


def role(token: Token) -> str | None:
    """The slot a value or name fills in its clause: "in" for "founded in 1953", "by" for "by the
    teacher Ruth Abara", else its dependency ("nsubj", "dobj"); None when the parse says nothing."""
    while token.dep_ in _NAME_LINKS and token.head.i != token.i:
        token = token.head
    if token.dep_ == "pobj":
        return token.head.lemma_.casefold()
    if token.dep_ == "agent":
        return "by"
    if token.dep_ == "nummod":
        return role(token.head)
    return token.dep_ or None


def shared_role(token: Token) -> str | None:
    """The slot of :func:`role`, a conjunct taking the slot of the phrase it is joined to ("Ann and
    Bob founded it": both "nsubj"), so two names that exchange places in a list keep their slots."""
    while token.head.i != token.i and (token.dep_ in _NAME_LINKS or token.dep_ == "conj"):
        token = token.head
    return role(token)


def excluded(token: Token) -> bool:
    """Whether a value is stated as an exception ("every day except Sunday")."""
    while token.dep_ in _NAME_LINKS and token.head.i != token.i:
        token = token.head
    return token.dep_ == "pobj" and token.head.lower_ in _EXCEPT


def sentence_subjects(doc: Doc) -> list[frozenset[str]]:
    """Per sentence, the words of its main clause's subject; a pronoun or missing subject takes the
    subject of the sentence before ("It has 420 pupils": the school of the sentence before)."""
    out: list[frozenset[str]] = []
    last: frozenset[str] = frozenset()
    for sent in doc.sents:
        words = _subject_words(sent.root)
        if words:
            last = words
        out.append(words or last)
    return out


def _subject_words(predicate: Token) -> frozenset[str]:
    if predicate.dep_ == "relcl":  # "acids that cannot be made": the noun the clause describes
        return _words([t for t in predicate.head.subtree if t.i <= predicate.head.i])
    for child in _children(predicate):
        if child.dep_ in _SUBJECTS:
            if child.lower_ in _PERSONS:
                return frozenset({child.lower_})
            return _words(list(child.subtree))
    if predicate.dep_ in ("acomp", "attr", "xcomp") and predicate.head.i != predicate.i:
        return _subject_words(predicate.head)
    return frozenset()


def _children(token: Token) -> list[Token]:
    """``token``'s dependents, with those the parse hung on its auxiliaries ("It" on "is" in "It is
    closed")."""
    own = list(token.children)
    return own + [g for c in own if c.dep_ in ("aux", "auxpass") for g in c.children]


def subject_of(predicate: Token, sentence_subject: frozenset[str]) -> frozenset[str]:
    """The subject of ``predicate``'s clause, or the sentence's (resolved) subject when it has none of
    its own or only a pronoun."""
    return _subject_words(predicate) or sentence_subject


def compatible(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two subjects may be the same thing: one is unknown, or they share a word ("the school" and
    "Westfield primary school"), whole or as the end of a compound ("the bridge", "the footbridge")."""
    return not a or not b or any(x.endswith(y) or y.endswith(x) for x in a for y in b)


@dataclass(frozen=True)
class Clause:
    """One predicate of a text with its polarity and what it says it of."""

    predicate: str
    """The lemma of the verb, or of the adjective or participle after "be" ("is closed" -> "close")."""
    negated: bool
    """Negated by "not", "never", or a "no" on its object ("has no swimming pool")."""
    arguments: frozenset[str]
    """Content lemmas of its objects, complements and prepositional phrases."""
    subject: frozenset[str]
    sentence: int
    start: int
    end: int
    text: str
    """The predicate as written, with its negation ("not open")."""


def clauses(doc: Doc, subjects: list[frozenset[str]], keep: list[bool]) -> list[Clause]:
    """The clauses of the sentences ``keep`` marks: each verb or predicative adjective with its
    negation, arguments and subject."""
    out: list[Clause] = []
    for n, sent in enumerate(doc.sents):
        if not keep[n]:
            continue
        for token in sent:
            clause = _clause(token, n, subjects[n])
            if clause is not None:
                out.append(clause)
    return out


def _negated_argument(argument: Token) -> bool:
    """Whether an object, complement or prepositional phrase carries its own negation ("but not
    limescale damage", "not on Sunday", "buses, not trams")."""
    return any(t.dep_ == "neg" or t.lower_ in _NEGATORS for t in argument.subtree)


def _clause(token: Token, sentence: int, sentence_subject: frozenset[str]) -> Clause | None:
    """The clause ``token`` heads, if it asserts something: a predicate other than "be" (its
    complement is the predicate) with a subject of its own, not a condition ("if it does not lock"),
    a question, an instruction ("never rub the hair") or an infinitive ("to access")."""
    if token.pos_ not in _CLAUSE_POS or token.lemma_ == "be" or token.dep_ in _NOT_CLAUSES:
        return None
    heads = [token]
    if token.dep_ in ("acomp", "attr") and token.head.lemma_ == "be":
        heads.append(token.head)
    children = [c for h in heads for c in _children(h)]
    if (
        not any(c.dep_ in _SUBJECTS or c.dep_ == "expl" for c in children)
        or any(c.dep_ == "mark" and c.lower_ in _CONDITIONS for c in children)
        or token.sent.text.rstrip().endswith("?")
    ):
        return None
    negated = any(c.dep_ == "neg" or c.lower_ in _NEGATORS for c in children) or any(
        c.dep_ in ("dobj", "attr") and any(d.lower_ == "no" for d in c.children) for c in children
    )
    # An argument with a negation of its own ("covers defects, but not limescale damage") is what the
    # clause denies, not what it asserts: left out, so the clause is compared on what it asserts.
    arguments = frozenset(
        t.lemma_.casefold() if t.is_alpha else t.text
        for c in children
        if c.dep_ in _ARGUMENT_DEPS and c.i != token.i and not _negated_argument(c)
        for t in c.subtree
        if t.pos_ in _ARGUMENT_POS and not t.is_stop and t.lower_ not in _NEGATORS
    )
    span = [t for h in heads for t in h.subtree if t.dep_ != "punct"] or [token]
    subject = subject_of(token, sentence_subject)
    return Clause(
        predicate=token.lemma_.casefold(),
        negated=negated,
        arguments=arguments,
        subject=subject,
        sentence=sentence,
        start=min(t.idx for t in span),
        end=max(t.idx + len(t.text) for t in span),
        text=("not " if negated else "") + token.text,
    )
