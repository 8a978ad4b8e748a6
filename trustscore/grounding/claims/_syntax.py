"""What a statement is about, read from the dependency parse: the slot a value fills (``founded in
1953``: the ``in`` of ``found``), and the clauses of a text with their predicate, negation, arguments
and subject (:mod:`._subjects`; :mod:`._polarity` compares them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from trustscore.grounding.claims._framing import frames
from trustscore.grounding.claims._negation import (
    NEGATORS,
    SUBJECTS,
    asks,
    denied_subject,
    denying_determiner,
    disjunct_denied,
    hedges,
    manner_denied,
    mood,
    negates,
    no_longer,
    qualifiers,
    ranged,
)
from trustscore.grounding.claims._subjects import dependents, subject_of

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

__all__ = [
    "BOUND_AFTER",
    "EXAMPLE_SLOTS",
    "Clause",
    "bound_after",
    "bound_words",
    "clauses",
    "partitive_whole",
    "predicate_lemma",
    "role",
    "shared_role",
]

EXAMPLE_SLOTS = frozenset({"include", "such as", "like"})
"""The slots (:func:`role`) of a name given as one example of several ("countries, including Eritrea",
"cities such as Beijing", "dishes like dumplings and Mala Tang"): another example is no rival to it."""
_BOUND_DEPS = frozenset({"quantmod", "advmod", "amod", "neg"})
"""How the parse hangs a bound's or an estimate's words on a number ("over" and "than" as quantmod,
"more" as amod, "about" as advmod); a preposition's "over 3 days" is none of them."""
_COMPARATIVES = frozenset({"more", "fewer", "less"})
"""What the "no" of a bound comes before ("no more than 250")."""
BOUND_AFTER = {
    **dict.fromkeys(
        ("more", "over", "above", "older", "later", "newer", "higher", "greater", "up"), "at least"
    ),
    **dict.fromkeys(("less", "fewer", "under", "below", "younger", "earlier", "lower"), "at most"),
}
"""A bound written after its number, joined to it by "or" or "and" ("18 or older", "Android 10 or later",
"orders of 50 or more", "3 or fewer"), as the bound written before it that says the same."""
_NAME_LINKS = frozenset({"appos", "compound", "flat", "nmod", "poss"})
"""Dependencies by which a name or value stands for the noun it hangs on ("the teacher Ruth Abara")."""
_ARGUMENT_DEPS = frozenset(
    {"dobj", "attr", "acomp", "oprd", "prep", "agent", "dative", "npadvmod", "advmod", "pobj", "xcomp"}
    | {"ccomp"}
)
"""A clause's arguments, a reported clause among them (without its subject): what "said it would
repaint the gym" says is its content, so "did not say it would do major repairs" is about something
else."""
_CLAUSE_POS = frozenset({"VERB", "AUX", "ADJ"})
_MAIN = frozenset({"ROOT", "ccomp"})
"""The dependencies of a predicate that heads a main clause, or a reported one ("says it was made ...")."""
_HYPOTHETICAL = frozenset({"should", "would", "could", "might", "may", "must"})
"""Modals of what may or should be: a predicate coordinated under one states nothing on its own."""
_PHRASAL_CHANGES = {("go", "down"): "fall", ("come", "down"): "fall", ("go", "up"): "rise"}
"""Phrasal verbs that say which way an amount moved, as the verb its opposite is listed by."""
_CONTINUING = frozenset({"keep", "continue"})
"""Verbs whose complement is still the case: "kept working" states what "did not work" denies."""
_MULTIPLES = frozenset({"once", "twice", "thrice"})
"""Words that say how many times, which the parse does not read as numbers ("taken twice a day")."""
_NOUN_MODIFIERS = frozenset({"amod", "compound", "acl"})
"""What a predicate noun after "be" says of its subject besides the noun ("is a local business located
on State Street"): its arguments, with its prepositional phrases."""
_EXCEPT = frozenset({"except", "excluding", "without", "besides"})
_ARGUMENT_POS = frozenset({"NOUN", "PROPN", "ADJ", "NUM"})
_NOT_CLAUSES = frozenset({"aux", "auxpass", "amod", "compound"})
_WISHES = frozenset({"ask", "request", "demand", "urge", "want", "wish", "propose", "petition", "beg"})
"""Verbs whose clause is asked for, not asserted ("requests that the court allow the transfer")."""
_CONDITIONS = frozenset({"if", "unless", "whether", "when", "whenever", "until"})
"""Marks of a clause that is not read on its own: a condition or a time, and a "for" with an infinitive
(:func:`_conditional`). A cause or a concession ("because", "although", "for he was tired") is asserted
and read, and so is a contrast ("while"), but as :func:`_side_by_side`."""


def predicate_lemma(token: Token) -> str:
    """The lemma a predicate is compared by, in one spelling: British "-ise" and "-yse" verbs read as
    "-ize" and "-yze" ("hospitalised" and "hospitalized" state the same thing). Both texts pass through
    it, so a verb spelled "-ise" in both ("promise") still meets itself; adjectives keep their lemma
    (WordNet's antonyms are looked up by it: "precise"). A phrasal verb that says which way an amount
    moved reads as the verb that says it ("prices went down": "fall")."""
    lemma = token.lemma_.casefold()
    particle = next((c.lower_ for c in token.children if c.dep_ == "prt"), None)
    if (moved := _PHRASAL_CHANGES.get((lemma, particle or ""))) is not None:
        return moved
    if token.pos_ == "VERB" and len(lemma) > 5 and lemma.endswith(("ise", "yse")):
        return lemma[:-2] + "ze"
    return lemma


def _clause_predicate(token: Token) -> str:
    """The predicate a clause states: of "kept working" or "continued to operate", the complement's."""
    if token.lemma_ in _CONTINUING:
        going = next((c for c in token.children if c.dep_ == "xcomp" and c.pos_ == "VERB"), None)
        if going is not None and not any(negates(c) for c in going.children):
            return predicate_lemma(going)
    return predicate_lemma(token)


def bound_words(span: Span) -> str | None:
    """The words the parse hangs before a number to bound or estimate it ("over", "more than", "at
    least", "just over", "about"), lowercased in text order; None where there are none or a negation is
    among them ("not more than 300")."""
    numbers = [t for t in span if t.like_num]
    if not numbers:
        return None
    found: list[Token] = []
    pending = list(numbers)
    while pending:
        for child in pending.pop().children:
            if child.i < numbers[0].i and child.dep_ in _BOUND_DEPS and child.is_alpha:
                found.append(child)
                pending.append(child)
    # a negation may hang on the number or on what it counts: "not over 5,000 residents"
    denied = [c for t in numbers for c in (*t.children, *t.head.children) if c.i < numbers[0].i]
    if any(_denies(t) for t in (*found, *denied)):
        return None
    if not found:
        after = bound_after(numbers[-1])
        return None if after is None else BOUND_AFTER[after.lower_]
    return " ".join(t.lower_ for t in sorted(found, key=lambda t: t.i))


def bound_after(number: Token) -> Token | None:
    """The word of a bound written after the number ("older" in "18 or older"): joined to it by "or" or
    "and" as the parse hangs them on it."""
    joined = any(c.dep_ == "cc" and c.lower_ in ("or", "and") for c in number.children)
    after = (c for c in number.children if c.dep_ == "conj" and c.lower_ in BOUND_AFTER and c.i > number.i)
    return next(after, None) if joined else None


def _denies(token: Token) -> bool:
    """A negation, but not the "no" of "no more than", "no fewer than", "no less than" (a bound)."""
    if token.lower_ == "no" and token.i + 1 < len(token.doc) and token.nbor().lower_ in _COMPARATIVES:
        return False
    return token.dep_ == "neg" or token.lower_ in ("not", "n't", "never")


def role(token: Token) -> str | None:
    """The slot a value or name fills in its clause: "in" for "founded in 1953", "by" for "by the
    teacher Ruth Abara", else its dependency ("nsubj", "dobj"); None when the parse says nothing."""
    while token.dep_ in _NAME_LINKS and token.head.i != token.i:
        token = token.head
    if token.dep_ == "pobj":
        through = token.head
        if through.lower_ == "as" and any(c.lower_ == "such" for c in through.children):
            return "such as"  # "cities such as Beijing": an example, not a role ("served as mayor")
        return through.lemma_.casefold()
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
    """Whether a value is stated as an exception ("every day except Sunday", "except on Mondays")."""
    while token.dep_ in _NAME_LINKS and token.head.i != token.i:
        token = token.head
    if token.dep_ != "pobj":
        return False
    through = token.head  # "on" of "except on Mondays"
    return through.lower_ in _EXCEPT or (through.dep_ == "prep" and through.head.lower_ in _EXCEPT)


@dataclass(frozen=True)
class Clause:
    """One predicate of a text with its polarity and what it says it of."""

    predicate: str
    """The lemma of the verb, or of the adjective, participle or noun after "be" ("is closed" ->
    "close", "is a steak" -> "steak"; a British "-ise" verb as "-ize")."""
    negated: bool
    """Negated by "not", "never", or a "no" on its object ("has no swimming pool")."""
    arguments: frozenset[str]
    """Content lemmas of its objects (one of coordinated objects a clause), complements and
    prepositional phrases; of a predicate noun's modifiers too."""
    subject: frozenset[str]
    sentence: int
    start: int
    end: int
    text: str
    """The predicate as written, with its negation ("not open")."""
    offsets: frozenset[int] = frozenset()
    """Where its arguments' words begin in the text (a value checked on its own is found by it)."""
    counts: frozenset[str] = frozenset()
    """The numbers and multiples ("once", "twice") among its arguments, as written: a clause counting
    otherwise is about another amount, whose value the atoms' checks compare."""
    passive: bool = False
    """In the passive voice ("was approved by the council"): its subject is what the predicate acts on."""
    agent: frozenset[str] = frozenset()
    """Of a passive clause, the content lemmas of its "by" phrase (among its arguments too)."""
    objects: frozenset[str] = frozenset()
    """Of a verb, the content lemmas of the words naming its direct object (:func:`_named`; of a passive, its
    subject, read as its active)."""
    qualifiers: frozenset[str] = frozenset()
    """The adjectival modifiers of its object that a denial may deny alone ("no fixed composition":
    :func:`._negation.qualifiers`)."""
    mood: str = ""
    """Said as what ought to be ("ought": "should serve"), what may be ("may": "can serve") or what is
    ("") (:func:`._negation.mood`)."""


def clauses(doc: Doc, subjects: list[frozenset[str]], keep: list[bool]) -> list[Clause]:
    """The clauses of the sentences ``keep`` marks: each verb or predicative adjective with its
    negation, arguments and subject."""
    out: list[Clause] = []
    for n, sent in enumerate(doc.sents):
        if not keep[n]:
            continue
        for token in sent:
            out.extend(_clauses_of(token, n, subjects[n]))
    return out


def _negated_argument(argument: Token) -> bool:
    """Whether an object, complement or prepositional phrase carries its own negation ("but not
    limescale damage", "not on Sunday", "buses, not trams"); a report, where its own predicate is
    denied ("said it would not raise taxes", not "said it would cut fares and did not mention taxes")."""
    if argument.dep_ == "ccomp":
        return any(negates(c) for c in dependents(argument))
    return any(negates(t) for t in argument.subtree)


def _clauses_of(token: Token, sentence: int, sentence_subject: frozenset[str]) -> list[Clause]:
    """The clauses ``token`` heads, if it asserts something: a predicate other than "be" (its
    complement is the predicate) with a subject of its own or of the predicate it is coordinated with
    (:func:`_sharing`); not a condition ("if it does not lock"), a question, a request ("asks that the
    court allow"), an instruction ("never rub
    the hair"), an infinitive ("to access"), a denial bounded in time or place (:func:`ranged`: "does
    not open until noon" opens at noon), a denial of manner (:func:`manner_denied`: "won't shut
    properly"), a "no longer" (:func:`no_longer`) or what a denied report would have said ("did not say
    the budget was tight"). Coordinated objects make a clause each ("has 420 pupils and a swimming pool":
    "has 420 pupils", "has a swimming pool"), each with its own "no" or "not" ("has a gym and no
    pool")."""
    nominal = token.pos_ == "NOUN" and token.dep_ == "attr" and token.head.lemma_ == "be"
    if (token.pos_ not in _CLAUSE_POS and not nominal) or token.lemma_ == "be" or token.dep_ in _NOT_CLAUSES:
        return []
    heads = [token]
    if token.dep_ in ("acomp", "attr") and token.head.lemma_ == "be":
        heads.append(token.head)
    children = [c for h in heads for c in dependents(h)]
    holder = token if any(c.dep_ in SUBJECTS or c.dep_ == "expl" for c in children) else _sharing(token)
    denied_verb = any(negates(c) for c in children) or disjunct_denied(token)
    marked = children if holder is None or holder is token else [*children, *dependents(holder)]
    if (
        holder is None
        or _conditional(marked)
        or _side_by_side(token, marked)
        or asks(token)
        or (token.dep_ in ("ccomp", "xcomp") and token.head.lemma_ in _WISHES)
        or any(hedges(c) for c in children)
        or (denied_verb and any(ranged(h) for h in heads))
        or manner_denied(heads, denied_verb)
        or no_longer(children, denied_verb)
        or any(h.dep_ == "ccomp" and any(negates(c) for c in dependents(h.head)) for h in heads)
    ):
        return []
    said = [c for c in children if (c.dep_ in _ARGUMENT_DEPS or (nominal and c.dep_ in _NOUN_MODIFIERS))]
    said = [c for c in said if c.i != token.i and not frames(c)]
    groups = [sorted([c, *c.conjuncts], key=lambda t: t.i) for c in said if c.dep_ in ("dobj", "attr")]
    span = [t for h in heads for t in h.subtree if t.dep_ != "punct"] or [token]
    # a report's values are its own clause's, whose relation reads them: not where this clause is found
    reported = {t.i for c in said if c.dep_ == "ccomp" for t in c.subtree}

    def clause(negated: bool, tokens: list[Token], objects: set[int]) -> Clause:
        return Clause(
            predicate=_clause_predicate(token),
            negated=negated,
            arguments=_content(tokens),
            offsets=frozenset(t.idx for t in tokens if t.i not in reported),
            subject=subject_of(holder, sentence_subject),
            sentence=sentence,
            start=min(t.idx for t in span),
            end=max(t.idx + len(t.text) for t in span),
            text=("not " if negated else "") + token.text,
            counts=_counts(tokens),
            passive=any(c.dep_ in ("nsubjpass", "auxpass") for c in children),
            agent=_content([t for c in children if c.dep_ == "agent" for t in c.subtree]),
            objects=_content([t for c in children if c.dep_ == "dobj" for t in _named(c)])
            if token.pos_ == "VERB"
            else frozenset(),
            qualifiers=qualifiers(tokens, objects),
            mood=mood(marked),
        )

    if sum(len(g) for g in groups) < 2:
        negated = denied_verb or any(
            c.dep_ in ("dobj", "attr") and any(denying_determiner(d) for d in c.children) for c in children
        )
        negated ^= any(denied_subject(h) for h in heads)  # "No trains run"; "no one did not vote": voted
        # An argument with a negation of its own ("covers defects, but not limescale damage") is what
        # the clause denies, not what it asserts: left out, so the clause is compared on what it asserts.
        words = [t for c in said if not _negated_argument(c) for t in _argument_words(c)]
        return [clause(negated, words, {t.i for g in groups for t in g} | ({token.i} if nominal else set()))]
    objects = {g[0].i for g in groups}
    others = [t for c in said if c.i not in objects and not _negated_argument(c) for t in _argument_words(c)]
    out = []
    for group in groups:
        owns = [_own(thing, group) for thing in group]
        for thing, own, denied in zip(group, owns, _denials(group, owns), strict=True):
            out.append(clause(denied_verb or denied, others + own, {thing.i}))
    return out


def _side_by_side(token: Token, marked: list[Token]) -> bool:
    """A "while" clause not read: of time ("stay indoors while the storm passes"), or a contrast (after a
    comma, or opening the sentence) of two like things ("mule deer have a black tip, while white-tailed
    deer do not"), whose kept subject words ("deer") would pair each half with the other's statement;
    the clause such a contrast hangs on is not read either, for the same reason ("mule deer have a
    black tip" would deny the white-tailed deer's tip). A contrast of another noun ("the passenger died,
    while the driver was hospitalised") is read."""
    if whiles := _whiles(marked):
        return not _contrast(whiles) or _alike(token, token.head, missing=True)
    return any(
        c.dep_ == "advcl" and _contrast(_whiles(dependents(c))) and _alike(c, token, missing=False)
        for c in dependents(token)
    )


def _whiles(marked: list[Token]) -> list[Token]:
    return [c for c in marked if c.dep_ == "mark" and c.lower_ == "while"]


def _contrast(whiles: list[Token]) -> bool:
    """A "while" of contrast: after a comma, or opening the sentence."""
    return any(w.i == w.sent.start or w.nbor(-1).text == "," for w in whiles)


def _alike(clause: Token, other: Token, *, missing: bool) -> bool:
    """Whether two clauses' subjects share a word (a subject the parse did not find counts as ``missing``
    says)."""
    subjects = [{c.lemma_.casefold() for c in dependents(t) if c.dep_ in SUBJECTS} for t in (clause, other)]
    return missing if not all(subjects) else bool(subjects[0] & subjects[1])


def _sharing(token: Token) -> Token | None:
    """The predicate whose subject a coordinated predicate without one of its own shares ("gravy is made
    from the juices and is not served hot": "served" is said of "gravy"), or None. Only in a main clause:
    in a relative one the two describe their noun ("a door that won't shut or lock" names a problem, not
    what the door does); and not after a modal of what may or should be, whose second predicate the
    modal governs too ("the door should now shut and lock normally" states no lock). Of three or more
    ("approve, fund or build"), the parse hangs each on the one before: the first one's subject."""
    if token.dep_ != "conj":
        return None
    head = token.head
    while head.dep_ == "conj" and not any(c.dep_ in SUBJECTS for c in dependents(head)):
        head = head.head
    if head.pos_ not in _CLAUSE_POS or head.dep_ not in _MAIN:
        return None
    children = dependents(head)
    if any(c.dep_ == "aux" and c.lower_ in _HYPOTHETICAL for c in children):
        return None
    return head if any(c.dep_ in SUBJECTS for c in children) else None


def _conditional(marked: list[Token]) -> bool:
    """Whether a clause is marked as a condition or a time (:data:`_CONDITIONS`), or by a "for" with an
    infinitive ("for a statement to be defamatory, it must be false" states no defamation; "for he was
    tired" is a cause)."""
    marks = {c.lower_ for c in marked if c.dep_ == "mark"}
    infinitive = any(c.dep_ == "aux" and c.lower_ == "to" for c in marked)
    return bool(marks & _CONDITIONS) or ("for" in marks and infinitive)


def _named(noun: Token) -> list[Token]:
    """The words that name an object and those coordinated with it ("the Pacific Marine Institute"), not
    what describes them ("two ends with lead-ins that angle into the trap" names ends, not the trap)."""
    nouns = [noun, *noun.conjuncts]
    return [t for n in nouns for t in (n, *n.children) if t is n or t.dep_ in ("compound", "flat")]


def _own(thing: Token, group: list[Token]) -> list[Token]:
    """The words of one of coordinated objects, without those of the objects coordinated with it."""
    rest = {
        t.i for other in group if other.i != thing.i and other.i in _indices(thing) for t in other.subtree
    }
    return [t for t in thing.subtree if t.i not in rest and t.dep_ != "cc"]


def _denials(group: list[Token], owns: list[list[Token]]) -> list[bool]:
    """Which of coordinated objects are denied: each by a "no" or "not" before it in its own phrase
    ("a gym and no pool"); all of them after "neither" or "nor"; one after "or" by the first's
    negation too when it has no determiner, number or owner of its own ("not limescale damage or use",
    "no pool or gym"). "and" and "but" carry no negation over ("no pool but large fields")."""
    first, last = group[0], group[-1]
    coordinator = next((t.lower_ for t in reversed(first.doc[first.i : last.i]) if t.dep_ == "cc"), "")
    if coordinator == "nor" or any(t.lower_ == "neither" for t in owns[0]):
        return [True] * len(group)
    own = [_before_it(thing, words) for thing, words in zip(group, owns, strict=True)]
    return [
        own[n]
        or (
            n > 0
            and own[0]
            and coordinator == "or"
            and not any(c.dep_ in ("det", "nummod", "poss") for c in thing.children)
        )
        for n, thing in enumerate(group)
    ]


def _before_it(thing: Token, words: list[Token]) -> bool:
    """Whether a negation stands in the object's phrase before it (not in a clause after it: "a pool
    that never closes")."""
    return any(t.i < thing.i and (negates(t) or denying_determiner(t)) for t in words)


def _indices(token: Token) -> set[int]:
    return {t.i for t in token.subtree}


def _argument_words(argument: Token) -> list[Token]:
    """An argument's words; a reported clause's without its subject, which is what it speaks of, not
    what it says ("the council would do repairs" and "the council would repaint the gym")."""
    if argument.dep_ != "ccomp":
        return list(argument.subtree)
    subject = {t.i for c in argument.children if c.dep_ in SUBJECTS for t in c.subtree}
    return [t for t in argument.subtree if t.i not in subject]


def _counts(tokens: list[Token]) -> frozenset[str]:
    return frozenset(t.lower_ for t in tokens if t.pos_ == "NUM" or t.lower_ in _MULTIPLES)


def _content(tokens: list[Token]) -> frozenset[str]:
    """The content lemmas of a clause's arguments (numbers as written)."""
    return frozenset(
        t.lemma_.casefold() if t.is_alpha else t.text
        for t in tokens
        if t.pos_ in _ARGUMENT_POS and not t.is_stop and t.lower_ not in NEGATORS
    )


def partitive_whole(token: Token) -> bool:
    """The whole of a part ("32" of "lost 3 of their 32 matches"): the predicate acts on the part, so the
    whole's polarity is not the predicate's ("won 24 of their 32" states no win of 32)."""
    counted = token.head if token.dep_ == "nummod" else token
    return counted.dep_ == "pobj" and counted.head.lower_ == "of" and counted.head.head.like_num
