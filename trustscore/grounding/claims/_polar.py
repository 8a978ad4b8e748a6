"""The claims check of a yes or no to a yes/no question (:mod:`trustscore.grounding._polar`).

The question is turned into the statement it asks about ("Was the school founded in 1953?": "The
school was founded in 1953.") and checked against the context alone, since the question cannot
support what the reply now claims. A yes asserts that statement, so its verdicts are the reply's
("Yes." to "Was it founded in 1935?" names 1935 where the context says 1953). A no denies it: it is
wrong only where a context clause states the statement itself (same predicate, a subject sharing a
word, every argument of the statement among its own) the same way; right where the context states it
the other way or names another value in its place ("No." to "Was it founded in 1935?"); otherwise
unsupported: a value of the statement the context also holds ("1953" in "Was the school closed in
1953?") is no sign that the context states the statement. The verdicts stand at the reply's place in
the response; the rest of the response is checked as written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from trustscore.grounding._polar import PolarReply
from trustscore.grounding.claims._check import Facts, Verdict, check
from trustscore.grounding.claims._polarity import clip
from trustscore.grounding.claims._verdict import Outcome

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

    from trustscore.grounding.claims._syntax import Clause

__all__ = ["Asked", "asked", "reply_verdicts"]

_SUBJECTS = frozenset({"nsubj", "nsubjpass", "expl", "csubj"})
_NOMINAL = frozenset({"NOUN", "PROPN", "PRON", "NUM"})


@dataclass(frozen=True)
class Asked:
    """The statement a yes/no question asks about, asserted and denied."""

    affirmed: str
    denied: str


def asked(question: Doc, parse: Callable[[str], Doc]) -> Asked | None:
    """The statement of a parsed yes/no question: its subject, its opening auxiliary (with "not" for
    the denial), then the rest; None when no subject is found right after the auxiliary or nothing
    plain follows it."""
    body = [t for t in question[1:] if not t.is_punct or t.i < len(question) - 1]
    auxiliary = question[0].text.lower()
    k = _subject_end(question, body, parse)
    if k is None or k >= len(body) or body[k].is_punct:
        return None
    subject = "".join(t.text_with_ws for t in body[:k]).strip()
    rest = "".join(t.text_with_ws for t in body[k:]).strip()
    return Asked(_sentence(subject, auxiliary, rest), _sentence(subject, f"{auxiliary} not", rest))


def _subject_end(question: Doc, body: list[Token], parse: Callable[[str], Doc]) -> int | None:
    """How many words of ``body`` make the subject: as the question's parse reads it, with no more of
    what follows its head than an "of" phrase ("the school of music") or a phrase a verb still follows
    ("children under 12 travel"; not "the school founded in 1953", "Ruth Abara a pupil", "the Beatles
    from Liverpool"); where it finds none (a small parser
    often misreads a question: "Are climbing permits required" with "climbing" its verb), the fewest
    words ending on a noun whose statement ("Climbing permits are required") parses with them as its
    whole subject."""
    subject = next((t for t in question if t.dep_ in _SUBJECTS), None)
    if subject is not None and subject.left_edge.i == 1:
        end = subject.i
        for child in subject.rights:
            verb_after = any(t.pos_ == "VERB" for t in question[child.right_edge.i + 1 :])
            if not (
                child.dep_ in ("cc", "conj")
                or (child.dep_ == "prep" and (child.lower_ == "of" or verb_after))
            ):
                break
            end = child.right_edge.i
        return end
    for k in range(1, len(body)):
        last, after = body[k - 1], body[k]
        if last.pos_ not in _NOMINAL or (last.pos_ == "PROPN" and after.pos_ == "PROPN"):
            continue
        words = "".join(t.text_with_ws for t in body[:k]).strip()
        rest = "".join(t.text_with_ws for t in body[k:]).strip()
        if _whole_subject(parse(_sentence(words, question[0].lower_, rest)), len(words)):
            return k
    return None


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
    stating = _stating(affirmed, context)
    if not reply.denied:
        found = verdicts or [
            Verdict("polarity" if c.negated == own.negated else "negation",
                    "supported" if c.negated == own.negated else "contradicted",
                    own.text, own.start, own.end,
                    None if c.negated == own.negated else clip(context.text[c.start : c.end]))
            for own, c in stating
        ]  # fmt: skip
        return [replace(v, text=f"{said} ({statement.affirmed[:-1]})", start=start, end=end) for v in found]
    outcome: Outcome
    quoted = None
    if any(v.outcome == "contradicted" for v in verdicts) or any(
        c.negated != own.negated for own, c in stating
    ):
        outcome = "supported"
    elif stating and not any(v.outcome == "unsupported" for v in verdicts):
        outcome, quoted = "contradicted", clip(context.text[stating[0][1].start : stating[0][1].end])
    elif verdicts or stating:
        outcome = "unsupported"
    else:
        return []
    return [Verdict("negation", outcome, f"{said} ({statement.denied[:-1]})", start, end, quoted)]


def _stating(affirmed: Facts, context: Facts) -> list[tuple[Clause, Clause]]:
    """Each clause of the statement with a context clause that states it, either way: the same
    predicate, a subject sharing a word (the question names its subject), and every argument of the
    statement's among the context clause's ("Net profit did fall." is stated by "Net profit fell to
    $31 million")."""
    return [
        (own, c)
        for own in affirmed.clauses
        for c in context.index.get(own.predicate, ())
        if own.subject & c.subject and own.arguments <= c.arguments
    ]
