"""The polarity of the response's clauses against the context's clauses about the same thing.

A response clause is compared with the context's clauses of the same predicate (or of an antonym:
"open" and "closed", :func:`opposites`) whose subject may be the same (:func:`._subjects.compatible`)
and whose arguments share at least half of the smaller set of content words ("has a swimming pool"
and "has no swimming pool" share "swimming pool") and, where both give a count, share one ("is not
taken twice a day" is about another amount than "is taken once a day"); a clause with no such words
is about what the other says of the same subject only where that says nothing else, or where both say
which way an amount moved ("rents fell" against "the median rent rose 5%"). A reported clause is an
argument, so "did not say it would do repairs" is about another thing than "said it would repaint the
gym". Then:

- the same predicate stated the same way anywhere: **supported** (kind "polarity");
- the same predicate, only ever with the negation the other way: **contradicted** (kind "negation"),
  where the denied clause's modifiers are the other's too ("has no fixed composition" says nothing
  against "has a variable composition"); a clause of what ought to be ("should serve") is compared
  with another such or one of what may be ("can take it with coffee"), not with what is;
- an antonym with the same negation ("open on Sundays" where the context says "closed on Sundays"):
  **contradicted** (kind "predicate"); a negated antonym ("not open" for "closed") agrees;
- the same predicate with subject and object exchanged ("the authority warned Raltech" where the
  context says "Raltech warned the authority"; not a predicate that says the same both ways, "met"):
  **contradicted** (kind "exchange", a fact: who did it to whom).

A clause the context states nothing about has no polarity verdict: it is not evidence either way.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from trustscore.grounding.claims._lexicon import antonyms
from trustscore.grounding.claims._subjects import compatible
from trustscore.grounding.claims._syntax import Clause
from trustscore.grounding.claims._verdict import Verdict

__all__ = ["SYMMETRIC", "clause_index", "clip", "exchange", "opposites", "polarity"]

_PAIRS = (
    ("open", ("close", "closed", "shut")),
    ("include", ("exclude",)),
    ("allow", ("forbid", "ban", "prohibit")),
    ("permit", ("forbid", "ban", "prohibit")),
    ("accept", ("reject", "refuse", "decline")),
    ("win", ("lose",)),
    ("gain", ("lose",)),
    ("enter", ("exit",)),
    ("agree", ("refuse", "reject")),
    ("approve", ("reject",)),
    ("grant", ("deny", "refuse", "reject")),
    ("begin", ("end", "finish")),
    ("start", ("end", "finish", "stop")),
    ("arrive", ("depart",)),
    ("raise", ("lower", "cut")),
    ("pass", ("fail",)),
    ("succeed", ("fail",)),
    ("increase", ("decrease", "fall", "drop", "decline", "shrink")),
    ("rise", ("fall", "drop", "decline")),
    ("grow", ("shrink", "fall", "drop", "decline")),
    ("climb", ("fall", "drop", "decline")),
    ("double", ("halve",)),
    ("improve", ("worsen", "deteriorate")),
    ("available", ("unavailable",)),
    ("possible", ("impossible",)),
    ("legal", ("illegal",)),
    ("alive", ("dead",)),
    ("true", ("false",)),
    ("present", ("absent",)),
    ("public", ("private",)),
    ("same", ("different",)),
    ("safe", ("dangerous", "unsafe")),
    ("guilty", ("innocent",)),
    ("positive", ("negative",)),
    ("well", ("bad",)),  # spaCy's lemmas of "better" and "worse"
    ("agree", ("disagree",)),
    ("support", ("oppose",)),
    ("confirm", ("deny",)),
    ("remember", ("forget",)),
    ("add", ("remove",)),
    ("permanent", ("temporary",)),
    ("indoor", ("outdoor",)),
    ("common", ("rare",)),
    ("cheap", ("expensive",)),
    ("male", ("female",)),
)


def _antonyms() -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for word, others in _PAIRS:
        for opposite in others:
            out[word].add(opposite)
            out[opposite].add(word)
    return {word: frozenset(opposites) for word, opposites in out.items()}


_LISTED = _antonyms()
"""Predicates that state the opposite of each other: a short list of unambiguous pairs, verbs among
them ("rise" and "drop", "allow" and "ban")."""


SYMMETRIC = frozenset(
    [
        *("meet", "marry", "divorce", "date", "play", "face", "tie", "draw", "share", "merge", "join"),
        *("talk", "speak", "agree", "disagree", "compete", "fight", "battle", "partner", "collaborate"),
        *("trade", "exchange", "swap", "resemble", "match", "equal", "touch", "border", "neighbour"),
        *("neighbor", "hug", "kiss", "chat", "negotiate", "clash", "argue", "correspond", "cooperate"),
    ]
)
"""Predicates that say the same of their subject and object both ways ("A met B" is "B met A")."""
_CHANGES = frozenset(
    [
        *("rise", "fall", "increase", "decrease", "drop", "decline", "shrink", "grow", "climb"),
        *("double", "halve", "improve", "worsen", "deteriorate"),
    ]
)
"""Predicates that say which way an amount moved: how far or since when does not change the way."""


def opposites(predicate: str) -> frozenset[str]:
    """The predicates (lemmas) that state the opposite of ``predicate``: the listed pairs and WordNet's
    direct antonyms of an adjective (:func:`._lexicon.antonyms`: "large" / "small"). WordNet's verb
    pairs are left out here: they include very general verbs ("come" / "go", "do" / "undo") that the
    loose match of a clause's arguments pairs with statements about other things."""
    return _LISTED.get(predicate, frozenset()) | antonyms(predicate, "a")


def clause_index(context: list[Clause]) -> dict[str, list[Clause]]:
    """The context's clauses by predicate, so a response clause meets only those it may match."""
    index: dict[str, list[Clause]] = defaultdict(list)
    for clause in context:
        index[clause.predicate].append(clause)
    return dict(index)


def _active(clause: Clause) -> Clause:
    """A passive clause read as its active: its agent ("by the council") the subject, unknown without
    one, and what it was said of among its arguments ("No property tax increase is included in the
    plan" against "The plan includes a property tax increase")."""
    said = clause.subject | clause.arguments
    return replace(
        clause, subject=clause.agent, arguments=said - clause.agent, objects=clause.subject, passive=False
    )


def _about_same(a: Clause, b: Clause) -> bool:
    if a.passive != b.passive:
        a, b = (_active(a), b) if a.passive else (a, _active(b))
    if not compatible(a.subject, b.subject) or {a.mood, b.mood} == {"ought", ""}:
        return False
    if a.counts and b.counts and not a.counts & b.counts:
        # "is not taken twice a day" beside "is taken once a day": another amount, not a denial
        return False
    if not a.arguments or not b.arguments:
        # nothing said of anything but the subject: it must be named on both sides, and said of nothing
        # else on the other side but where it says which way an amount moved ("rents fell" against
        # "rents rose 5%"; "is open" says nothing of "is closed on Sundays")
        alike = (not a.arguments and not b.arguments) or {a.predicate, b.predicate} <= _CHANGES
        return alike and bool(a.subject & b.subject)
    shared = len(a.arguments & b.arguments)
    return shared >= max(1, (min(len(a.arguments), len(b.arguments)) + 1) // 2)


def polarity(
    clause: Clause, index: dict[str, list[Clause]], response_text: str, context_text: str
) -> Verdict | None:
    """The polarity verdict of one response clause, or None when the context says nothing of it."""
    text = response_text[clause.start : clause.end]
    same = [c for c in index.get(clause.predicate, ()) if _about_same(clause, c)]
    if any(c.negated == clause.negated for c in same):
        return Verdict(kind="polarity", outcome="supported", text=text, start=clause.start, end=clause.end)
    denials = [c for c in same if _denies(clause, c)]
    if denials:
        said = clip(context_text[denials[0].start : denials[0].end])
        return Verdict("negation", "contradicted", text, clause.start, clause.end, said)
    if same:
        return None
    opposite = [c for a in opposites(clause.predicate) for c in index.get(a, ()) if _about_same(clause, c)]
    swapped = [c for c in opposite if c.negated == clause.negated]
    if swapped:
        said = clip(context_text[swapped[0].start : swapped[0].end])
        return Verdict("predicate", "contradicted", text, clause.start, clause.end, said)
    if opposite:
        return Verdict(kind="polarity", outcome="supported", text=text, start=clause.start, end=clause.end)
    return None


def _denies(a: Clause, b: Clause) -> bool:
    """Whether the denied one of two clauses of opposite polarity denies what the other states: its
    modifiers are the other's too ("has no fixed composition" denies no "variable composition", "has
    no indoor pool" no pool)."""
    negated, stated = (a, b) if a.negated else (b, a)
    return negated.qualifiers <= stated.arguments | stated.qualifiers


def exchange(
    clause: Clause, index: dict[str, list[Clause]], response_text: str, context_text: str
) -> Verdict | None:
    """The clause contradicted where the context states it with its subject and object exchanged (kind
    "exchange": who did it to whom, a fact)."""
    exchanged = [c for c in index.get(clause.predicate, ()) if _exchanged(clause, c)]
    if not exchanged:
        return None
    said = clip(context_text[exchanged[0].start : exchanged[0].end])
    whole = clip(response_text[clause.start : clause.end])
    return Verdict("exchange", "contradicted", whole, clause.start, clause.end, said)


def _exchanged(a: Clause, b: Clause) -> bool:
    """The two clauses say one thing does it to another with the two exchanged ("the authority warned
    Raltech" against "Raltech warned the authority"): each one's subject, different from the other's, is
    the other's object (a passive read as its active); not a predicate that says the same both ways
    ("met", "married")."""
    if a.passive != b.passive:
        a, b = (_active(a), b) if a.passive else (a, _active(b))
    if a.predicate in SYMMETRIC or a.negated != b.negated or not a.subject or not b.subject:
        return False
    return not compatible(a.subject, b.subject) and a.subject <= b.objects and b.subject <= a.objects


def clip(text: str, limit: int = 80) -> str:
    """``text`` on one line, cut to ``limit`` characters: a context's clause as a contradiction quotes it."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
