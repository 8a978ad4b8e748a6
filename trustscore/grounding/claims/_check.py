"""Checks a response's atoms and stated polarity against the facts of its context.

A response sentence is *aligned* with the context sentence that shares the most of its content words
(the atoms themselves left out; an answer sharing none borrows the question's: "2001." answers "When
did it open?"). Then, for each atom of the response:

- **supported**: the context or question states the same value (a date agreeing in every part both
  give, the same number, all the words of a name);
- **contradicted**: not supported, and the aligned context sentence states an atom of the same kind
  (and unit, for numbers; group, for names) with another value: "2001: the context says 14 March 2011";
- **unsupported**: neither.

Polarity: when a response sentence is mostly made of its aligned sentence's words, a negation in one
and not the other contradicts, unless a predicate was also swapped ("not open" where the context says
"closed" agrees; "open" where it says "closed" does not).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from trustscore.grounding.claims._atoms import Atom, atoms

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

__all__ = ["POLARITY_KINDS", "Facts", "Verdict", "check", "facts"]

_CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM"})
_ANSWER_WORDS = frozenset({"yes", "no", "yeah", "nope"})
_POLARITY_COVERAGE = 0.5
"""Share of a response sentence's content words its aligned sentence must hold for polarity to be compared."""

Outcome = Literal["supported", "contradicted", "unsupported"]

POLARITY_KINDS = frozenset({"negation", "predicate"})
"""The verdict kinds of a statement's polarity (a negation or predicate the context states the other
way); every other kind is a value: a number, amount, percentage, date or name."""


@dataclass(frozen=True)
class Facts:
    """What a parsed text offers for checking: its atoms and, per sentence, its content words,
    negation and predicates."""

    text: str
    atoms: list[Atom]
    sentences: list[str]
    bounds: list[tuple[int, int]]
    """Each sentence's character offsets."""
    content: list[frozenset[str]]
    negated: list[bool]
    predicates: list[frozenset[str]]
    sentence_lemmas: list[frozenset[str]]
    lemmas: frozenset[str]
    words: frozenset[str]

    @property
    def content_all(self) -> frozenset[str]:
        """The content words of every sentence."""
        return frozenset().union(*self.content)


@dataclass(frozen=True)
class Verdict:
    """The outcome for one atom (or one sentence's polarity) of the response."""

    kind: str
    """The atom's kind, or "negation" / "predicate" for a sentence's polarity."""
    outcome: Outcome
    text: str
    start: int
    end: int
    context: str | None = None
    """What the context says instead (contradicted only)."""

    def with_kind(self, kind: str) -> Verdict:
        return Verdict(
            kind=kind,
            outcome=self.outcome,
            text=self.text,
            start=self.start,
            end=self.end,
            context=self.context,
        )

    @property
    def reason(self) -> str:
        if self.outcome == "contradicted":
            return f"{self.text}: the context says {self.context}"
        if self.outcome == "unsupported":
            return f"{self.text}: the context never states this {self.kind}"
        return f"{self.text}: stated in the context"


def facts(doc: Doc) -> Facts:
    """The facts of one parsed text."""
    sents = list(doc.sents)
    return Facts(
        text=doc.text,
        atoms=atoms(doc),
        sentences=[s.text for s in sents],
        bounds=[(s.start_char, s.end_char) for s in sents],
        content=[_content(s) for s in sents],
        negated=[_negated(s) for s in sents],
        predicates=[frozenset(t.lemma_.casefold() for t in s if _is_predicate(t)) for s in sents],
        sentence_lemmas=[frozenset(t.lemma_.casefold() for t in s if t.is_alpha) for s in sents],
        lemmas=frozenset(t.lemma_.casefold() for t in doc if t.is_alpha),
        words=frozenset(t.text.casefold() for t in doc if t.is_alpha),
    )


def check(response: Facts, context: Facts, question: Facts | None) -> list[Verdict]:
    """Every atom's verdict and every aligned sentence's polarity verdict, in response order."""
    given = [context] if question is None else [context, question]
    aligned = [_align(content, context, question) for content in response.content]
    out: list[Verdict] = []
    related: set[int] = set()
    for atom in response.atoms:
        # The question supports a value but asserts no relation ("is it open on Sundays?"): only the
        # context's statements of the same value are compared for polarity.
        matched = [a for a in context.atoms if _same_value(a, atom)]
        if matched or any(_supports(f, atom) for f in given):
            if atom.predicate is not None and any(a.predicate is not None for a in matched):
                related.add(atom.sentence)
            out.append(_relation_verdict(atom, matched))
            continue
        rival = _rival(atom, context, aligned[atom.sentence], response)
        out.append(_verdict(atom, "contradicted", rival) if rival else _verdict(atom, "unsupported"))
    for n, target in enumerate(aligned):
        if target is None or n in related:  # its atoms' relations already compared its polarity
            continue
        polarity = _polarity(response, n, context, target)
        if polarity is not None:
            out.append(polarity)
    out.sort(key=lambda v: v.start)
    return out


def _verdict(atom: Atom, outcome: Outcome, context: str | None = None) -> Verdict:
    return Verdict(
        kind=atom.kind, outcome=outcome, text=atom.text, start=atom.start, end=atom.end, context=context
    )


def _content(sent: Span) -> frozenset[str]:
    return frozenset(
        t.lemma_.casefold()
        for t in sent
        if t.pos_ in _CONTENT_POS and not t.is_stop and t.is_alpha and t.lower_ not in _ANSWER_WORDS
    )


def _is_predicate(token: Token) -> bool:
    """An adjective, or a participle after "be" ("is closed"): a state the sentence asserts."""
    return token.pos_ == "ADJ" or (token.tag_ == "VBN" and any(c.lemma_ == "be" for c in token.children))


def _negated(sent: Span) -> bool:
    return any(t.dep_ == "neg" or t.lower_ in ("never", "nobody", "nothing", "none", "neither") for t in sent)


def _align(content: frozenset[str], context: Facts, question: Facts | None) -> int | None:
    """Index of the context sentence sharing the most content words with a response sentence."""
    best = _best_overlap(content, context)
    if best is None and question is not None:
        best = _best_overlap(content | question.content_all, context)
    return best


def _best_overlap(words: frozenset[str], context: Facts) -> int | None:
    """The sentence sharing the most words; on a tie, the one with the fewest words besides."""
    best, best_key = None, (0, 0.0)
    for i, sentence in enumerate(context.content):
        overlap = len(words & sentence)
        key = (overlap, overlap / len(words | sentence) if overlap else 0.0)
        if overlap and key > best_key:
            best, best_key = i, key
    return best


def _supports(f: Facts, atom: Atom) -> bool:
    if atom.kind == "name":
        return all(w in f.words for w in atom.words)
    if atom.kind == "date" and atom.date is None:
        return all(w in f.lemmas for w in atom.words)
    if atom.kind == "date":
        assert atom.date is not None
        return any(
            (a.date is not None and atom.date.agrees(a.date))
            or (atom.date.month is None and a.number == atom.date.year)
            for a in f.atoms
        )
    return any(a.number is not None and _same(a.number, atom.number) for a in f.atoms)


def _same(a: float, b: float | None) -> bool:
    return b is not None and abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def _rival(atom: Atom, context: Facts, sentence: int | None, response: Facts) -> str | None:
    """What the context states in the atom's place, if it states something else there: an atom of the
    same kind in the same relation ("designed by <name>", "opened on <date>"), else one in the aligned
    sentence."""
    said = {a.text.casefold() for a in response.atoms}
    rivals = [a for a in context.atoms if a.text.casefold() not in said and _comparable(atom, a)]
    related = [a for a in rivals if atom.predicate is not None and a.predicate == atom.predicate]
    if related:
        return related[0].text
    near = [a for a in rivals if a.sentence == sentence and (a.kind != "name" or a.group == atom.group)]
    return near[0].text if near else None


def _comparable(atom: Atom, other: Atom) -> bool:
    if atom.kind == "date":
        return other.kind == "date" and atom.date is not None and other.date is not None
    if atom.kind == "name":
        return other.kind == "name"
    return other.kind == atom.kind and _units_agree(atom, other)


def _units_agree(a: Atom, b: Atom) -> bool:
    return a.unit is None or b.unit is None or a.unit == b.unit


def _relation_verdict(atom: Atom, matched: list[Atom]) -> Verdict:
    """A supported atom, unless every place the context states it says the opposite of the response:
    the same predicate with the negation flipped ("did not open in May 1998"), or another adjectival
    predicate with the same negation ("open on Sundays" where the context says "closed on Sundays")."""
    stated = [a for a in matched if a.predicate is not None]
    if (
        atom.predicate is None
        or not stated
        or any(a.predicate == atom.predicate and a.negated == atom.negated for a in stated)
    ):
        return _verdict(atom, "supported")
    same = [a for a in stated if a.predicate == atom.predicate]
    if same:
        return _verdict(atom, "contradicted", f"{same[0].predicate_text} {same[0].text}").with_kind(
            "negation"
        )
    if atom.adjectival:
        other = [a for a in stated if a.adjectival and a.negated == atom.negated]
        if other:
            said = f"{other[0].predicate_text} {other[0].text}"
            return _verdict(atom, "contradicted", said).with_kind("predicate")
    return _verdict(atom, "supported")


def _same_value(a: Atom, b: Atom) -> bool:
    if a.kind == "name" or b.kind == "name":
        return a.kind == b.kind and a.words == b.words
    if a.date is not None or b.date is not None:
        return a.date is not None and b.date is not None and b.date.agrees(a.date)
    if a.number is None or b.number is None:
        return a.kind == b.kind == "date" and bool(a.words) and a.words == b.words
    return _same(a.number, b.number)


def _polarity(response: Facts, n: int, context: Facts, target: int) -> Verdict | None:
    content = response.content[n]
    shared = content & context.content[target]
    if not shared or len(shared) / len(content) < _POLARITY_COVERAGE:
        return None
    swapped = sorted(response.predicates[n] - context.sentence_lemmas[target])
    replaced = sorted(context.predicates[target] - response.sentence_lemmas[n])
    changed = bool(swapped and replaced)
    flipped = response.negated[n] != context.negated[target]
    text = response.sentences[n]
    span = response.bounds[n]
    if flipped == changed:  # the same, or a negated antonym ("not open" for "closed")
        return Verdict(kind="polarity", outcome="supported", text=text, start=span[0], end=span[1])
    said = context.sentences[target].strip()
    if changed:
        return Verdict(
            kind="predicate",
            outcome="contradicted",
            text=", ".join(swapped),
            start=span[0],
            end=span[1],
            context=f'{", ".join(replaced)} ("{_clip(said)}")',
        )
    negation = "a negation" if response.negated[n] else "no negation"
    return Verdict(
        kind="negation",
        outcome="contradicted",
        text=f'{negation} in "{_clip(text)}"',
        start=span[0],
        end=span[1],
        context=f'the opposite ("{_clip(said)}")',
    )


def _clip(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def count(verdicts: Iterable[Verdict], outcome: Outcome) -> int:
    return sum(v.outcome == outcome for v in verdicts)
