"""The claims check of a yes or no to a yes/no question (:mod:`trustscore.grounding._polar`).

The question turned into the statement it asks about ("Was the school founded in 1953?": "The school
was founded in 1953.") is checked against the context alone, since the question cannot support what
the reply now claims. A yes asserts that statement, so its verdicts are the reply's ("Yes." to "Was it
founded in 1935?" names 1935 where the context says 1953). A no denies it: it is wrong where the
context states everything the statement does, right where the context contradicts some of it ("No."
to "Was it founded in 1935?"), and unsupported where the context leaves it open. The verdicts stand
at the reply's place in the response; the rest of the response is checked as written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from trustscore.grounding._polar import PolarReply
from trustscore.grounding.claims._check import Facts, Verdict, check
from trustscore.grounding.claims._verdict import Outcome

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["Asked", "asked", "reply_verdicts"]

_SUBJECTS = frozenset({"nsubj", "nsubjpass", "expl", "csubj"})
_CLAUSES = frozenset({"acl", "relcl", "advcl", "ccomp", "xcomp"})
"""A subject's dependents that are clauses: in a question, often its predicate misread."""
_NOMINAL = frozenset({"NOUN", "PROPN", "PRON", "NUM"})


@dataclass(frozen=True)
class Asked:
    """The statement a yes/no question asks about, asserted and denied."""

    affirmed: str
    denied: str


def asked(question: Doc, parse: Callable[[str], Doc]) -> Asked | None:
    """The statement of a parsed yes/no question: its subject, its opening auxiliary (with "not" for
    the denial), then the rest; None when no subject is found right after the auxiliary."""
    body = [t for t in question[1:] if not t.is_punct or t.i < len(question) - 1]
    auxiliary = question[0].text.lower()
    for k in _subject_ends(question, body, parse):
        subject = "".join(t.text_with_ws for t in body[:k]).strip()
        rest = "".join(t.text_with_ws for t in body[k:]).strip()
        return Asked(_sentence(subject, auxiliary, rest), _sentence(subject, f"{auxiliary} not", rest))
    return None


def _subject_ends(question: Doc, body: list[Token], parse: Callable[[str], Doc]) -> Iterator[int]:
    """How many words of ``body`` make the subject: as the question's parse reads it (without a clause
    it reads into the subject, "the school founded in 1953"); where it finds none (a small parser often
    misreads a question: "Are climbing permits required" with "climbing" its verb), the fewest words
    ending on a noun whose statement ("Climbing permits are required") parses with them as its whole
    subject."""
    subject = next((t for t in question if t.dep_ in _SUBJECTS), None)
    if subject is not None and subject.left_edge.i == 1:
        end = subject.i
        for child in subject.rights:
            if child.dep_ in _CLAUSES:
                break
            end = child.right_edge.i
        yield end
        return
    for k in range(1, len(body)):
        last, after = body[k - 1], body[k]
        if last.pos_ not in _NOMINAL or (last.pos_ == "PROPN" and after.pos_ == "PROPN"):
            continue
        words = "".join(t.text_with_ws for t in body[:k]).strip()
        rest = "".join(t.text_with_ws for t in body[k:]).strip()
        if _whole_subject(parse(_sentence(words, question[0].lower_, rest)), len(words)):
            yield k
            return


def _whole_subject(doc: Doc, length: int) -> bool:
    """Whether the first ``length`` characters of ``doc`` are a subject's whole phrase, headed after it."""
    return any(
        t.dep_ in _SUBJECTS
        and t.left_edge.idx == 0
        and t.right_edge.idx + len(t.right_edge) == length
        and t.head.idx >= length
        for t in doc
    )


def _sentence(subject: str, auxiliary: str, rest: str) -> str:
    said = f"{subject} {auxiliary} {rest}".strip()
    return f"{said[:1].upper()}{said[1:]}."


def reply_verdicts(
    reply: PolarReply, statement: Asked, affirmed: Facts, context: Facts, response: str
) -> list[Verdict]:
    """The verdicts of a yes or no, placed on the reply in ``response``; ``affirmed`` is the parsed
    statement the question asks about."""
    start, end = reply.reply
    said = response[start:end]
    verdicts = check(affirmed, context, None)
    if not reply.denied:
        return [
            replace(v, text=f"{said} ({statement.affirmed[:-1]})", start=start, end=end) for v in verdicts
        ]
    if not verdicts:
        return []
    outcome: Outcome
    if any(v.outcome == "contradicted" for v in verdicts):
        outcome = "supported"
    elif all(v.outcome == "supported" for v in verdicts):
        outcome = "contradicted"
    else:
        outcome = "unsupported"
    return [
        Verdict(
            kind="negation",
            outcome=outcome,
            text=f"{said} ({statement.denied[:-1]})",
            start=start,
            end=end,
            context=statement.affirmed[:-1] if outcome == "contradicted" else None,
        )
    ]
