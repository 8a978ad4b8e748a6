"""Which words deny a predicate and which only seem to: "not", "never", "nothing" and a "no" before a
noun deny ("has no pool", "No trains run"), and so does "fail to" ("failed to raise $5 million"); "not
only ... but also" asserts both halves, "not necessarily" hedges, and a denial bounded in time or place
("does not open until 10:00") says when or where it holds; a question asserts nothing either way."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Token

__all__ = [
    "NEGATORS",
    "SUBJECTS",
    "asks",
    "attempted",
    "denied",
    "denied_subject",
    "denying_determiner",
    "disjunct_denied",
    "failed",
    "hedges",
    "manner_denied",
    "mood",
    "negates",
    "no_longer",
    "qualifiers",
    "ranged",
]

SUBJECTS = frozenset({"nsubj", "nsubjpass"})
"""The dependencies of a clause's subject."""
NEGATORS = frozenset({"never", "none", "nothing", "nobody", "neither", "nor"})
"""Words that deny on their own, beside the parse's "neg" ("not", "n't")."""
_NOT_NEGATING = frozenset({"only", "just", "merely", "simply"})
"""Words after "not" that make it a "not only ... but also": both halves asserted."""
_HEDGES = frozenset({"immediately", "always", "necessarily", "entirely", "fully", "exactly"})
"""Words after "not" that hedge the predicate rather than deny it: "did not immediately turn to it"
says it happened later, "does not necessarily save money" neither says it does nor that it does not.
Such a clause has no polarity to compare."""
_MANNER = frozenset(
    [
        *("properly", "correctly", "well", "normally", "right", "adequately", "sufficiently", "enough"),
        *("completely", "effectively", "efficiently", "perfectly", "reliably", "smoothly", "safely"),
    ]
)
"""Adverbs of manner that a denial may deny instead of its predicate: "we are not serving or loving
properly" serves, not properly; "a door that won't shut properly" may shut."""
_OBLIGING = frozenset({"should", "shall", "must"})
"""Modals of what ought to be: "we should serve others" states no service, and no failure to serve."""
_PERMITTING = frozenset({"can", "could", "may", "might", "ca"})
"""Modals of what may be, which a rule of what ought to be does speak of ("can take it with coffee"
against "should not be taken with coffee"); "ca" is the parse's "can" of "can't"."""
_EMPHATIC = frozenset({"single", "slight", "least"})
"""Modifiers that strengthen a denial rather than narrow it ("did not win a single game")."""
_ATTEMPTS = frozenset({"try", "attempt", "seek", "strive", "aim"})
"""Verbs whose infinitive is tried, neither done nor denied: "tried to land a Falcon 9" says nothing of
whether it landed."""
_RANGE = frozenset({"until", "till", "before", "after", "outside", "beyond"})
"""Words that bound where or when a denied predicate holds: "does not open until 10:00" and "does not
open before 10:00" open at 10:00, "is not sold outside Europe" is sold in Europe. Such a denial has
no polarity to compare."""


def negates(token: Token) -> bool:
    """Whether ``token`` is a negation ("not", "never", "nothing"): not "not only X but also Y", which
    asserts both, nor a hedge ("not necessarily", :func:`hedges`)."""
    if not (token.dep_ == "neg" or token.lower_ in NEGATORS):
        return False
    following = _next_word(token)
    return following not in _NOT_NEGATING and following not in _HEDGES


def hedges(token: Token) -> bool:
    """Whether ``token`` is a "not" that hedges its predicate ("not necessarily", "not always")."""
    return (token.dep_ == "neg" or token.lower_ in NEGATORS) and _next_word(token) in _HEDGES


def manner_denied(heads: list[Token], denied_verb: bool) -> bool:
    """Whether a denied predicate (or one joined to it by "or" under the same "not": "not serving or
    loving properly", :func:`disjunct_denied`) carries an adverb of manner (:data:`_MANNER`): such a
    clause has no polarity to compare, the denial may be of the manner alone. A predicate joined another
    way keeps its own manner ("did not win but played well" denies the win)."""
    if not denied_verb:
        return False
    verbs = [v for h in heads for v in (h, *(c for c in h.conjuncts if disjunct_denied(c)))]
    return any(c.dep_ == "advmod" and c.lower_ in _MANNER for v in verbs for c in v.children)


def disjunct_denied(verb: Token) -> bool:
    """Whether ``verb`` follows the first of predicates joined by "or" or "nor" under one denial ("are
    not serving or loving": not loving either; "did not approve, fund or build": none of the three);
    "did not win but placed" places."""
    if verb.dep_ != "conj":
        return False
    first = _first_conjunct(verb)
    joined = [first, *first.conjuncts]
    return any(c.dep_ == "cc" and c.lower_ in ("or", "nor") for v in joined for c in v.children) and any(
        negates(c) for c in first.children if c.i < verb.i
    )


def _first_conjunct(token: Token) -> Token:
    """The first of the predicates or nouns ``token`` is coordinated with (itself if none): the parse
    hangs "fund" on "approve" and "build" on "fund" in "approve, fund or build"."""
    while token.dep_ == "conj" and token.head.i != token.i:
        token = token.head
    return token


def no_longer(children: list[Token], denied_verb: bool) -> bool:
    """Whether a predicate's dependents say it held until some time ("can no longer sit out", where the
    parse hangs the negation on "longer"; "cannot sit out any longer"): such a clause denies it now and
    states it before, and without tenses read neither half can be compared."""
    return any(
        c.dep_ == "advmod"
        and c.lower_ == "longer"
        and any(negates(g) or (denied_verb and g.lower_ == "any") for g in c.children)
        for c in children
    )


def mood(auxiliaries: list[Token]) -> str:
    """How a predicate's auxiliaries (with those of the predicate it is coordinated with: "can sign in and
    pay") present it: "ought" (what ought to be: "should", "shall", "must"), "may" (what may be: "can",
    "may") or "" (what is). A clause of what ought to be is about another thing than one of what is
    (:func:`._polarity.polarity` compares them only with each other or with what may be). "Ought to" is
    no auxiliary in the parse but a predicate of its own, compared only with another "ought"."""
    modals = {c.lower_ for c in auxiliaries if c.dep_ == "aux"}
    return "ought" if modals & _OBLIGING else "may" if modals & _PERMITTING else ""


def qualifiers(tokens: list[Token], objects: set[int]) -> frozenset[str]:
    """The adjectival modifiers of a clause's own object (``objects``: its indices; "fixed" of "has a
    fixed composition"): a denial may deny the modifier alone, so "does not have a fixed composition"
    denies no composition. Not those of its other arguments ("pleaded no contest last year": "last" is
    when), nor of a noun further down ("did not visit the school that has a big pool" denies the visit),
    nor one that strengthens a denial (:data:`_EMPHATIC`)."""
    return frozenset(
        t.lemma_.casefold()
        for t in tokens
        if t.dep_ == "amod" and t.head.i in objects and t.lower_ not in _EMPHATIC
    )


def ranged(predicate: Token) -> bool:
    """Whether a range word bounds ``predicate``: as a preposition ("until noon") or marking a clause
    ("until it is cold"); not as an adverb ("had never collapsed before"), nor "before" someone ("never
    testified before Congress": in front of them, not earlier)."""
    return any(
        (c.dep_ == "prep" and c.lower_ in _RANGE and not _in_front_of(c))
        or (c.dep_ == "advcl" and any(m.dep_ == "mark" and m.lower_ in _RANGE for m in c.children))
        for c in predicate.children
    )


def _in_front_of(preposition: Token) -> bool:
    return preposition.lower_ == "before" and any(
        o.dep_ == "pobj" and o.ent_type_ in ("PERSON", "ORG", "NORP") for o in preposition.children
    )


_ALL = frozenset({"all", "every", "each", "both"})
_CLOSING = "\"'\u201d\u2019\u00bb)]"
_OPENING = frozenset({'"', "\u201c", "\u00ab"})


def _next_word(token: Token) -> str:
    return token.nbor(1).lower_ if token.i + 1 < len(token.doc) else ""


def denying_determiner(token: Token) -> bool:
    """Whether ``token`` is a "no" that denies its noun ("has no swimming pool", "no one"), not the
    abbreviation of "number" ("the No. 1 cause")."""
    if token.lower_ != "no" or token.dep_ not in ("det", "neg"):
        return False
    following = token.nbor(1) if token.i + 1 < len(token.doc) else None
    return following is None or not (
        following.text == "." or (following.like_num and following.lower_ != "one")
    )


def denied_subject(predicate: Token) -> bool:
    """Whether the predicate's subject is denied: by a "no" ("No trains run on Christmas Day") or by a
    "not" before one of it ("not a single student has been expelled", "Not one train ran"); "not all
    trains ran" denies only some, "not only the students" none, and a "not" after it ("al Qaeda -- not
    the Houthis -- holds sway") the noun it sets against it, not the subject."""
    return any(c.dep_ in SUBJECTS and _denied_noun(c) for c in predicate.children)


def _denied_noun(noun: Token) -> bool:
    words = list(noun.children)
    if any(denying_determiner(d) for d in words):
        return True
    denied = any(d.dep_ == "neg" and d.lower_ == "not" and d.i < noun.i for d in words)
    return denied and not any(d.lower_ in _ALL for d in words)


def asks(token: Token) -> bool:
    """Whether ``token`` is in a question, which asserts nothing either way: its sentence ends with "?"
    (a closing quote or bracket after it), and no opening quote before the question parts the token
    from it (in 'He said, "Can you blame him?"' only the quoted words ask)."""
    sentence = token.sent
    if not sentence.text.rstrip().rstrip(_CLOSING).endswith("?"):
        return False
    last = max(t.i for t in sentence if "?" in t.text)
    opening = [t.i for t in sentence if t.text in _OPENING and t.i < last]
    return not opening or token.i > opening[-1]


def failed(verb: Token) -> bool:
    """Whether ``verb`` is what a "fail to" says did not happen ("failed to raise $5 million" raised
    nothing; "did not fail to" did)."""
    return (
        verb.dep_ == "xcomp"
        and verb.head.lemma_ == "fail"
        and any(c.dep_ == "aux" and c.lower_ == "to" for c in verb.children)
    )


def attempted(verb: Token) -> bool:
    """Whether ``verb`` is what an attempt is made at ("tried to land", "sought to raise"): its values
    have no polarity to compare."""
    return verb.dep_ == "xcomp" and verb.head.lemma_ in _ATTEMPTS


def denied(governing: list[Token], clause: list[Token], predicate: Token) -> bool:
    """Whether a value's clause is denied: a negation on its predicate's words (``governing``: the
    clause's, and the verb above an infinitive, "not left to rise twice"), a "no" on its subject ("No
    trains run on Christmas Day"), or a "fail to" (:func:`failed`); two of them undo each other."""
    negation = any(
        ((c.dep_ == "neg" or c.lower_ == "never") and negates(c)) or denying_determiner(c)
        for g in governing
        for c in g.children
    )
    return negation ^ any(denied_subject(g) for g in clause) ^ failed(predicate)
