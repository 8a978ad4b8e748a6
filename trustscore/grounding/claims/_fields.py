"""A response read against a record context's yes/no fields and opening hours (:mod:`._records`).

- A yes/no field is *stated* when one sentence of the response uses all of its key's words, or the key
  written as one word ("outdoor seating" for ``OutdoorSeating``, "takeout" and "take-out" for
  ``RestaurantsTakeOut``; with a word of its parent's, "casual atmosphere" for ``Ambience.casual``), as
  a yes unless negated ("does not take reservations", "no outdoor seating", "without valet parking",
  "none of them are validated", "non-smoking"). The same value as the record: supported; the other:
  contradicted (kind "field"). A string value that says yes or no is one too (``"WiFi": "no"``,
  ``"free"``, ``"paid"``). A field the record writes as ``null`` is unsupported wherever it is stated.
  A sentence that says the field is left unsaid ("the data does not mention if reservations are
  accepted", "there is no mention of music", "the ambience is unknown") is right where the record
  writes ``null`` and wrong where it writes a yes, or any value of a group of fields ("no information
  about parking facilities" against ``BusinessParking``); of a no it says nothing (a no said loosely).
- Opening hours: a sentence about opening ("open", "close", "hours") is read day by day against the
  record's hours (:mod:`._hours`, kind "hours"). It answers for the times and days it reads: a number
  the atoms' check found unsupported there is not also reported ("seven days a week from 10 am to 10
  pm" against ``"10:0-22:0"`` on every day).

A field the response never states is not checked; nothing here reads the record's prose.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from trustscore.grounding.claims._hours import hours_verdicts
from trustscore.grounding.claims._polarity import clip
from trustscore.grounding.claims._records import Flag, Record
from trustscore.grounding.claims._verdict import Verdict

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["Mention", "field_verdicts", "mentions"]

_OPENING = frozenset({"open", "close", "closed", "hour", "operate", "serve"})
_NEGATING = frozenset({"without", "lack", "lacking", "no", "never"})
_NEGATORS = frozenset({"not", "n't", "never", "neither", "nor", "no"})
_SAYING = frozenset(
    {"mention", "specify", "state", "indicate", "list", "say", "note", "know", "disclose", "detail"}
    | {"clarify", "confirm", "describe", "reveal"}
)
"""Verbs of saying: denied, they leave their object unsaid (not "provide" or "include", which offer)."""
_INFORMATION = frozenset({"information", "info", "mention", "detail", "indication", "data"})
_UNKNOWN = frozenset({"unknown", "unclear", "unspecified", "uncertain"})
_CONTRAST = frozenset({"though", "although", "while", "whereas", "but"})
_OTHERS = frozenset(
    {"review", "reviewer", "customer", "guest", "diner", "patron", "visitor", "user", "critic"}
)
"""Who else may leave a thing unsaid: what reviews do not mention is no claim about the record."""


Unsaid = Literal["record", "others"] | None


@dataclass(frozen=True)
class Mention:
    """One word of the response: its sentence, offsets, and whether its clause negates it."""

    sentence: int
    start: int
    end: int
    negated: bool
    unsaid: Unsaid = None
    """Whether the sentence says it is left unsaid, and by whom: by the record ("the data does not
    mention WiFi", "the ambience is unknown") or by others ("the reviews do not mention WiFi")."""


def mentions(doc: Doc) -> dict[str, list[Mention]]:
    """Each content lemma of ``doc`` (casefolded) with where it stands and whether it is negated."""
    sentence_of = {t.i: n for n, s in enumerate(doc.sents) for t in s}
    out: dict[str, list[Mention]] = {}
    for t in doc:
        if t.is_alpha and t.pos_ in ("NOUN", "PROPN", "ADJ", "VERB", "ADV"):
            mention = Mention(sentence_of[t.i], t.idx, t.idx + len(t.text), _negated(t), _unsaid(t))
            for word in {t.lemma_.casefold(), t.lower_}:  # a key's word as written too: "validated"
                out.setdefault(word, []).append(mention)
        if _hyphenated(t):  # "Wi-Fi" and "take-out" also as the one word "wifi", "takeout"
            after = doc[t.i + 2]
            negated, unsaid = _negated(t) or _negated(after), _unsaid(t) or _unsaid(after)
            mention = Mention(sentence_of[t.i], t.idx, after.idx + len(after.text), negated, unsaid)
            out.setdefault(f"{t.lower_}{after.lower_}", []).append(mention)
    return out


def _in_sentence(said: dict[str, list[Mention]], words: list[str], n: int) -> list[Mention] | None:
    """A mention of each of ``words`` in sentence ``n``, or None when one of them is not there."""
    found = [next((m for m in said.get(w, ()) if m.sentence == n), None) for w in words]
    return [m for m in found if m is not None] if all(m is not None for m in found) else None


def _hyphenated(token: Token) -> bool:
    """Whether ``token`` begins a word written with a hyphen and no spaces ("Wi" of "Wi-Fi")."""
    if token.i + 2 >= len(token.doc) or not token.is_alpha or token.whitespace_:
        return False
    hyphen, after = token.doc[token.i + 1], token.doc[token.i + 2]
    return hyphen.text == "-" and not hyphen.whitespace_ and after.is_alpha


def _negated(token: Token) -> bool:
    """Whether the clause around ``token`` negates it: a "not" or "no" on it or on the words it hangs
    from up to its verb, or a "without" among them or above that verb; or a "non-" before it
    ("non-smoking")."""
    if token.i >= 2 and _prefixed_non(token.doc[token.i - 2], token.doc[token.i - 1]):
        return True
    for node in (token, *token.ancestors):
        if node.i != token.i and (node.lower_ in _NEGATING or _rather_than(node)):
            return True
        if any(_negator(c) for c in node.children):
            return True
        links = [c for c in node.head.children if c.dep_ == "cc"] if node.dep_ == "conj" else []
        if any(_rather_than(c) for c in links):
            return True  # "casual rather than upscale"
        if any(c.lower_ in ("but", "yet") for c in links):
            return False  # "not upscale but casual": the "not" is the other half's
        # the clause's verb: "without being too trendy", "does not have X or accept Y" (not a verb's
        # form that modifies a noun: "validated" parking, "garage, street, validated, or valet parking")
        if node.pos_ in ("VERB", "AUX") and not _modifier(node):
            shared = (  # "does not have X or accept Y": a negation spreads over "or", not over "and"
                node.dep_ == "conj"
                and not any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in node.children)
                and any(
                    c.dep_ == "cc" and c.lower_ in ("or", "nor")
                    for c in (*node.head.children, *node.children)
                )
                and any(_negator(c) for c in node.head.children)
            )
            return node.head.lower_ in _NEGATING or shared
    return False


def _prefixed_non(prefix: Token, hyphen: Token) -> bool:
    """Whether the two tokens before a word write "non-" or "no-" onto it ("non-smoking")."""
    return (
        prefix.lower_ in ("non", "no")
        and hyphen.text == "-"
        and not (prefix.whitespace_ or hyphen.whitespace_)
    )


def _modifier(verb: Token) -> bool:
    """A verb's form that modifies a noun ("validated" parking, "not the best option for those looking
    for an upscale experience"): the negation of the clause the noun stands in reaches through it."""
    return verb.dep_ in ("amod", "compound", "acl")


def _unsaid(token: Token) -> Unsaid:
    """Whether the sentence says ``token`` is left unsaid, and by whom: it hangs from a denied verb of
    saying ("does not mention if reservations are accepted", "were not specified") or a denied piece of
    information ("no mention of music", "does not provide information about parking"), or its clause
    calls it unknown ("the ambience is unknown", "hours that are not specified"); by others where the
    one saying is a review or a reviewer ("the reviews do not mention WiFi"). A clause joined to
    another ("..., but street parking is available") is read on its own."""
    for node in (token, *token.ancestors):
        if node.lemma_ in _SAYING and node.pos_ == "VERB" and (_denied(node) or _none_said(node)):
            return _sayer(node)
        if node.lemma_ in _INFORMATION and (_denied(node) or _denied(node.head)):
            return _sayer(node.head)
        if any(
            (c.dep_ in ("acomp", "attr") and c.lower_ in _UNKNOWN)
            or (c.dep_ in ("relcl", "acl") and c.lemma_ in _SAYING and _denied(c))
            for c in node.children
        ):
            return "record"
        if node.pos_ in ("VERB", "AUX") and (node.dep_ in ("conj", "parataxis") or _conceding(node)):
            return None
    return None


def _conceding(verb: Token) -> bool:
    """A clause of contrast hung on another ("..., though the atmosphere is casual")."""
    return verb.dep_ == "advcl" and any(c.dep_ == "mark" and c.lower_ in _CONTRAST for c in verb.children)


def _sayer(verb: Token) -> Unsaid:
    """Who leaves it unsaid: others where the verb's subject is a review or a reviewer, else the record."""
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    return "others" if subject is not None and subject.lemma_.casefold() in _OTHERS else "record"


def _denied(node: Token) -> bool:
    return any(c.dep_ == "neg" or (c.dep_ == "det" and c.lower_ == "no") for c in node.children)


def _none_said(verb: Token) -> bool:
    """A verb of saying whose subject or object is denied: "with no specific music genre mentioned"."""
    return any(c.dep_ in ("nsubj", "nsubjpass", "dobj") and _denied(c) for c in verb.children)


def _negator(child: Token) -> bool:
    """A dependent that negates its head: "not", "never", "no" parking, "neither" street nor lot, "none
    of them" as the subject of a passive ("none of them are validated")."""
    if child.dep_ == "nsubjpass":
        return child.lower_ in ("none", "neither") and any(c.lower_ == "of" for c in child.children)
    return child.dep_ in ("neg", "preconj", "det", "cc") and child.lower_ in _NEGATORS


def _rather_than(token: Token) -> bool:
    return token.lower_ == "than" and token.i > 0 and token.doc[token.i - 1].lower_ == "rather"


def field_verdicts(
    text: str, said: dict[str, list[Mention]], bounds: list[tuple[int, int]], record: Record
) -> tuple[list[Verdict], list[tuple[int, int]]]:
    """The verdicts on the fields and hours of ``record`` that the response (``text``, its mentions
    and sentence offsets) states, and the offsets of the times and days its hours statements read
    (which the hours check answers for)."""
    asked = {n for n, (s, e) in enumerate(bounds) if text[s:e].rstrip().endswith("?")}
    out = [v for flag in record.flags if (v := _flag(text, said, flag, asked)) is not None]
    read: list[tuple[int, int]] = []
    if record.hours:
        opening = {m.sentence for w in _OPENING for m in said.get(w, ()) if m.unsaid is None}
        about = [span for n, span in enumerate(bounds) if n in opening]
        out.extend(hours_verdicts(text, about, record.hours, read))
    return out, read


def _flag(text: str, said: dict[str, list[Mention]], flag: Flag, asked: set[int]) -> Verdict | None:
    """The verdict on one field, from the first sentence that states it; ``asked``: the sentences that
    are questions, which state nothing."""
    written = [*flag.words, flag.joined] if flag.joined else list(flag.words)
    for n in sorted({m.sentence for w in written for m in said.get(w, ())} - asked):
        found = (_in_sentence(said, [flag.joined], n) if flag.joined else None) or _in_sentence(
            said, sorted(flag.words), n
        )
        if found is None:
            continue
        if flag.parent and not any(m.sentence == n for p in flag.parent for m in said.get(p, ())):
            continue
        if flag.topic and any(m.sentence == n for w in flag.leaves for m in said.get(w, ())):
            continue  # "valet parking is not specified" speaks of the valet field, not of parking
        start, end = min(m.start for m in found), max(m.end for m in found)
        if any(m.unsaid == "others" for m in found):  # "the reviews do not mention WiFi"
            continue
        if any(m.unsaid == "record" for m in found):  # "the data does not mention WiFi": true of a null
            if flag.value is None:
                return Verdict("field", "supported", text[start:end], start, end)
            if flag.value is False and not flag.topic:  # "no mention of live music": a "no" said loosely
                continue
            return Verdict(
                "field", "contradicted", text[start:end], start, end, f"{flag.key}: {clip(flag.written)}"
            )
        if flag.topic:
            continue
        if flag.value is None:  # "Music": null
            return Verdict("field", "unsupported", text[start:end], start, end)
        stated = not any(m.negated for m in found)
        if stated == flag.value:
            return Verdict("field", "supported", text[start:end], start, end)
        return Verdict("field", "contradicted", text[start:end], start, end, f"{flag.key}: {flag.written}")
    return None
