"""Which context sentence a response sentence is about, which it copies, and what it changes there.

A response sentence is *aligned* with the context sentence that shares the most of its content words
(:func:`aligned_sentence`; an answer sharing none borrows the question's: "2001." answers "When did it
open?"). Each response sentence is read against the context sentence most like it word for word (difflib's
ratio at least :data:`_CLOSEST`: a swapped name's words can draw the content-word alignment to another
sentence that names it), then against the one most like each clause it joins with ", and", ", but" or
";" (a sentence may merge two of the context's), then against its aligned sentence:

- a whole copy with one stretch changed is read by :func:`._copies.changed`;
- a sentence that copies its context sentence only in part ("the ribs are not heated through" where
  the context says "the ribs are heated through and have grill marks") is read the same way, one
  changed stretch at a time, where the stretch sits between words both sentences have around it
  (:func:`_anchored`): a negation added or removed ("no" for "a", "never" for "always" included), an
  antonym, a rank before a superlative, a material, colour or season, or a one-word number or date, or
  a name, in that slot. The response's words around the change must be nowhere in the context (it may
  say both), the response must not say the context's words too ("fold the top left corner", then "fold
  the top right corner"), a changed name must not run on into the words around it ("Mrs Clark" for
  "Kim Clark" changes one word of a name), and a changed name must be another than the context's: not
  one its sentence writes too ("the Aaron Hernandez murder trial" against "the Massachusetts murder
  trial of ... Aaron Hernandez" moves the name) nor one it writes beside the other ("Cameron Hardin"),
  unless the response writes the context's name elsewhere, exchanging the two. A negation counts
  where it is added or dropped, not where it only moved (:mod:`._denials`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import pairwise

from trustscore.grounding.claims._context_words import context_words
from trustscore.grounding.claims._copies import (
    Known,
    Side,
    attribute_swap,
    changed,
    negated_verb,
    negated_word,
    negation_verdict,
    opposite,
    rank_change,
    sort_of,
    unit_change,
    value_change,
)
from trustscore.grounding.claims._denials import (
    TURNS,
    denials,
    denies_saying,
    moved_denial,
    moved_to_subject,
    until_bounded,
)
from trustscore.grounding.claims._syntax import EXAMPLE_SLOTS
from trustscore.grounding.claims._tokens import (
    FUNCTION_WORDS,
    Token,
    key_text,
    places_spelled_out,
    tokenize,
    unnumbered,
    words_only,
)
from trustscore.grounding.claims._values import parse_number
from trustscore.grounding.claims._verdict import POLARITY_KINDS, Verdict

__all__ = ["Change", "aligned_sentence", "copy_changes", "with_changes"]

_CLOSEST = 0.6
"""Word-for-word similarity (difflib's ratio) from which a context sentence may be a copy."""

_ANCHOR_WORDS = 3
"""Unchanged words around a change in a partly copied sentence, together (one a side at least)."""

_BESIDE = 2
"""Tokens (words or marks) at most between two names the context writes side by side, naming one thing
("Egyptian television network CBC")."""
_IN_LIST = 4
"""Words two names of one list stand apart at most ("the Pacers, the Hawks and the NBA")."""
_LIST_WORDS = frozenset({",", "and", "or", "&"})
_RANGE_WORDS = frozenset(["to", "-", "\u2013", "and", "or"])
"""Words that join a value to another into a range or a choice."""
_ANCHOR_SPAN = 3
"""Words read on each side of a change for its anchors."""
_CLOSE_WORDS = 2
"""Copied words that must part a negation or an opposite from any other change that may turn it."""
_Op = tuple[str, int, int, int, int]
"""One of difflib's opcodes: a tag and the two stretches it spans."""


@dataclass(frozen=True)
class Change:
    """A contradicted stretch of a response sentence that copies a context sentence."""

    verdict: Verdict
    sentence: int
    """Index of the response sentence."""
    partial: bool = False
    """Read on a sentence that copies its context sentence only in part (:func:`_anchored`)."""


def aligned_sentence(
    words: frozenset[str], context: Sequence[frozenset[str]], asked: frozenset[str] | None
) -> int | None:
    """The index of the context sentence (each given as its content words) sharing the most of a
    response sentence's content ``words``; where none shares one, the most of them and the question's
    (``asked``)."""
    best = _best_overlap(words, context)
    if best is None and asked is not None:
        best = _best_overlap(words | asked, context)
    return best


def _best_overlap(words: frozenset[str], context: Sequence[frozenset[str]]) -> int | None:
    """The sentence sharing the most words; on a tie, the one with the fewest words besides."""
    best, best_key = None, (0, 0.0)
    for i, sentence in enumerate(context):
        overlap = len(words & sentence)
        key = (overlap, overlap / len(words | sentence) if overlap else 0.0)
        if overlap and key > best_key:
            best, best_key = i, key
    return best


def copy_changes(response: Side, context: Side, aligned: list[int | None]) -> list[Change]:
    """The contradicted stretch of each response sentence that copies its aligned context sentence
    with one month, weekday, number, unit, name, antonym or negation changed, or two stretches
    exchanged. A changed capitalised stretch is a name only where the recogniser found one on either
    side or the context names it elsewhere ("The" for "This" is not). A negation that moved into or out
    of a sentence's opening "No" is no change (:func:`._denials.moved_to_subject`)."""
    out: list[Change] = []
    words = context_words(context)
    known = (words.known, words.proper)
    sentences = words.sentences
    texts = words.whole, key_text(tokenize(response.text, 0, len(response.text)))
    sides = (response, context)
    for n, ((start, end), target) in enumerate(zip(response.bounds, aligned, strict=True)):
        mine = unnumbered(tokenize(response.text, start, end), response.text)
        mine = places_spelled_out(mine, words.spellings)
        if key_text(mine) in words.whole:
            continue  # the context says it word for word somewhere (its sentences split otherwise)
        for i in _candidates(mine, words.keys, target):
            whole_copy = changed(mine, sentences[i], sides, known)
            verdict = whole_copy or _anchored(mine, sentences[i], sides, known, texts)
            if verdict is not None and verdict.of_polarity and moved_to_subject(mine, sentences[i]):
                verdict = None  # "Trains do not run" against "No trains run"
            if verdict is not None and (i == target or not _stated(mine, verdict, words.whole)):
                out.append(Change(verdict, n, partial=whole_copy is None))
                break
    return out


def _stated(mine: list[Token], verdict: Verdict, whole: str) -> bool:
    """The context states the changed stretch with the words before or after it ("a member of the
    Volkskammer" against a sentence most like "He was a member of the Council of State"): a sentence
    other than the aligned one is then no copy of it."""
    inside = [k for k, t in enumerate(mine) if verdict.start <= t.start < verdict.end]
    first, last = inside[0], inside[-1] + 1
    before, after = mine[max(0, first - _ANCHOR_SPAN) : last], mine[first : last + _ANCHOR_SPAN]
    return any(len(words_only(part)) > last - first and key_text(part) in whole for part in (before, after))


def _candidates(mine: list[Token], sentences: list[list[str]], target: int | None) -> list[int]:
    """The context sentences a response sentence may copy: the one most like it word for word (a
    swapped name's words can draw the content-word alignment to another sentence that names it), the
    one most like each clause it joins with ", and", ", but" or ";" (a sentence may merge two of the
    context's), then the aligned one."""
    parts = _clauses(mine)
    best = [_most_like(part, sentences) for part in ([mine, *parts] if len(parts) > 1 else [mine])]
    return list(dict.fromkeys(i for i in (*best, target) if i is not None))


def _most_like(mine: list[Token], sentences: list[list[str]]) -> int | None:
    """The context sentence (given as its words' keys) most like ``mine`` word for word, if any is
    at least :data:`_CLOSEST` like it."""
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2([t.key for t in mine])
    best, best_ratio = None, _CLOSEST
    for i, sentence in enumerate(sentences):
        matcher.set_seq1(sentence)
        if matcher.real_quick_ratio() >= best_ratio and matcher.quick_ratio() >= best_ratio:
            ratio = matcher.ratio()
            if ratio >= best_ratio:
                best, best_ratio = i, ratio
    return best


def _clauses(mine: list[Token]) -> list[list[Token]]:
    """The stretches of a sentence between ";" and a comma before "and" or "but"."""
    cuts = [
        k
        for k, t in enumerate(mine)
        if t.key == ";" or (t.key == "," and k + 1 < len(mine) and mine[k + 1].key in ("and", "but"))
    ]
    return [mine[a:b] for a, b in pairwise([0, *cuts, len(mine)]) if words_only(mine[a:b])]


def _anchored(
    mine: list[Token],
    theirs: list[Token],
    sides: tuple[Side, Side],
    known: Known,
    texts: tuple[str, str],
) -> Verdict | None:
    """The first changed stretch of a partly copied sentence that says the opposite of the context's
    or another value in its slot: a stretch between unchanged words on both sides (anchors), or one
    that ends the response's sentence after :data:`_ANCHOR_WORDS` unchanged words (:func:`_at_end`),
    where the response's words around it are nowhere in the context (``texts``: the context's words,
    then the response's) and the response does not say the context's words too ("fold the top left
    corner", then "fold the top right corner"). A negation or an opposite counts only apart from other
    changes (:func:`_alone`): "Children over 12 do not travel free" restates "children under 12 travel
    free" with two changes that agree; and a changed value only where the response adds no negation
    ("is not baked for 40 minutes" where the context bakes it for 25 agrees). Nothing is read where
    either sentence denies a report (:func:`._denials.denies_saying`), nor a negation with "until" after it
    ("does not arrive until after noon" says when it arrives)."""
    if denies_saying(mine) or denies_saying(theirs):
        return None  # "did not say Acme would cut jobs" claims nothing of the jobs
    ops = SequenceMatcher(None, [t.key for t in mine], [t.key for t in theirs], autojunk=False).get_opcodes()
    for k in range(1, len(ops)):
        tag, i1, i2, j1, j2 = ops[k]
        if tag == "equal" or ops[k - 1][0] != "equal":
            continue
        left = words_only(mine[ops[k - 1][1] : i1])[-_ANCHOR_SPAN:]
        right = words_only(mine[i2 : ops[k + 1][2]])[:_ANCHOR_SPAN] if k + 1 < len(ops) else []
        if not right:
            ends = _at_end(mine, theirs, (i1, i2, j1, j2), left)
            if ends is None:
                continue
            i1, i2, j1, j2 = ends
        elif not left or len(left) + len(right) < _ANCHOR_WORDS:
            continue
        before, after = mine[max(0, i1 - _ANCHOR_SPAN) : i1], mine[i2 : i2 + _ANCHOR_SPAN]
        if (
            key_text(before + mine[i1:i2] + after) in texts[0]
            or key_text(before + theirs[j1:j2] + after) in texts[1]
        ):
            continue  # the context says this too, or the response says both
        verdict = _anchored_change(mine, theirs, (i1, i2, j1, j2), sides, known, texts[0])
        if verdict is None:
            continue
        if (
            verdict.kind in POLARITY_KINDS
            and _alone(mine, theirs, ops, k, sides)
            and not moved_denial(mine, theirs, (i1, i2, j1, j2))
        ):
            return verdict
        if verdict.kind not in POLARITY_KINDS and denials(mine) <= denials(theirs):
            return verdict  # a value the response denies ("is not baked for 40 minutes") is no rival
    return None


def _alone(
    mine: list[Token], theirs: list[Token], ops: Sequence[_Op], k: int, sides: tuple[Side, Side]
) -> bool:
    """No other change that may turn the statement (a word of :data:`._denials.TURNS` added or dropped,
    a word for its opposite) lies within :data:`_CLOSE_WORDS` words of change ``k``: "Non-members do
    not get free entry" changes "Members get free entry" twice, and the two agree; "eastern Panama,
    between" for "western Panama at altitudes between" rewords beside the opposite and leaves it."""

    def turns(op: _Op) -> bool:
        tag, i1, i2, j1, j2 = op
        if tag == "equal" or (i1 == i2 and not (words_only(mine[:i1]) and words_only(mine[i1:]))):
            return False  # the context's sentence goes on before or after what the response copies
        if any(t.key in TURNS for t in mine[i1:i2] + theirs[j1:j2]):
            return True
        return i2 - i1 == j2 - j1 == 1 and opposite(mine[i1], theirs[j1], sides, every_antonym=False)

    _, i1, i2, _, _ = ops[k]
    for n, op in enumerate(ops):
        between = mine[op[2] : i1] if n < k else mine[i2 : op[1]]
        if n != k and turns(op) and len(words_only(between)) < _CLOSE_WORDS:
            return False
    return True


def _at_end(
    mine: list[Token], theirs: list[Token], span: tuple[int, int, int, int], left: list[Token]
) -> tuple[int, int, int, int] | None:
    """A one-word change that ends the response's sentence ("hiring would be frozen until June." where
    the context says "until March"), read against the context's first word there where the context
    goes on ("runs every 20 hours." against "runs every 20 minutes between 6 am and 11 pm."): None
    unless :data:`_ANCHOR_WORDS` unchanged words precede it (``left``, the last :data:`_ANCHOR_SPAN` of
    them) and nothing but punctuation follows it.
    Names are left to the atom checks: a sentence that ends on another place than the context's may
    name the wider one ("militants in Yemen" for "militants in Mukalla")."""
    i1, i2, j1, j2 = span
    said, stated = words_only(mine[i1:i2]), words_only(theirs[j1:j2])
    if len(left) < _ANCHOR_WORDS or len(said) != 1 or not stated or words_only(mine[i2:]):
        return None
    if sort_of(said) == "name" or sort_of(stated[:1]) == "name":
        return None
    i2 = mine.index(said[0], i1) + 1
    return i1, i2, j1, theirs.index(stated[0], j1) + 1


def _anchored_change(
    mine: list[Token],
    theirs: list[Token],
    span: tuple[int, int, int, int],
    sides: tuple[Side, Side],
    known: Known,
    context_keys: str,
) -> Verdict | None:
    """What one anchored change says: a negation, a unit, an antonym or a value in the same slot
    (``context_keys``: the whole context's :func:`key_text`)."""
    i1, i2, j1, j2 = span
    said, stated = mine[i1:i2], theirs[j1:j2]
    around = mine[max(0, i1 - 3) : i2 + 3], theirs[max(0, j1 - 3) : j2 + 3]
    ranked = rank_change(said, stated, mine[i2 : i2 + 1]) if not said or not stated else None
    if ranked is not None:
        return ranked
    if negated_word(said, stated) or negated_verb(said, stated, sides) or not said or not stated:
        if until_bounded(said, mine[i2:]) or until_bounded(stated, theirs[j2:]):
            return None  # "does not arrive in New York until after noon" says when it arrives
        if not _run_on_alike(mine[i2:], theirs[j2:]):
            return None  # the statements part after it: "open to walkers ... but not to cars"
        return negation_verdict(*around, [] if said and stated else said or stated)
    if parse_number([mine[i1 - 1].text]) is not None:
        changed_unit = unit_change(mine[i1 - 1 : i2], theirs[j1 - 1 : j2])
        if changed_unit is not None:
            return changed_unit
    if len(said) == len(stated) == 1 and opposite(said[0], stated[0], sides, every_antonym=False):
        return Verdict("predicate", "contradicted", said[0].text, said[0].start, said[0].end, stated[0].text)
    if (
        len(said) == len(stated) == 1
        and (swapped := attribute_swap(said[0], stated[0], sides[1].text)) is not None
    ):
        return swapped
    if sort_of(said) == "name" and any(_name_part(mine, n, known[1]) for n in (i1 - 1, i2) if n < len(mine)):
        return None  # a name that runs on into its anchors: one word of it changed ("Mrs Clark")
    if sort_of(said) == "name" and _named_with(said, stated, (mine, theirs), context_keys):
        return None
    if sort_of(said) == "name" and sides[0].tokens.get(said[0].start, ("", None))[1] in EXAMPLE_SLOTS:
        return None  # one example of several ("countries such as Kenya"): another is no rival
    if sort_of(said) in ("number", "date") and not _one_value(mine, theirs, span):
        return None
    return value_change(said, stated, False, sides, known)


def _named_with(
    said: list[Token], stated: list[Token], sentences: tuple[list[Token], list[Token]], context_keys: str
) -> bool:
    """The response's name is no other than the context's: the aligned sentence writes it too, so it
    was moved ("the Aaron Hernandez murder trial" for "the Massachusetts murder trial of ... Aaron
    Hernandez"), or the context writes the two side by side, one thing named two ways ("Cameron Hardin",
    "Egyptian television network CBC"), or the response lists the context's name beside its own and
    the context's sentence does not write the response's: a list told otherwise ("The Pacers and the
    NBA are investigating" against "The NBA and the Hawks said they were looking into it"). Not where
    each sentence writes both names, which then exchange places ("Ukraine's Ferrer beat Kovalenko of
    Spain"), nor where the response writes the context's name in another slot ("went to Carl Smith,
    who was presented with it by Ann Lee" against "went to Ann Lee")."""
    mine, theirs = sentences
    one, other = (key_text(words_only(t)) for t in (said, stated))
    if other in key_text(mine):
        return one not in key_text(theirs) and _listed(one, other, key_text(mine))
    if one in key_text(theirs):
        return True
    gap = rf"(?: \S+){{0,{_BESIDE}}} "
    one, other = re.escape(one.strip()), re.escape(other.strip())
    return bool(other) and re.search(rf" (?:{one}{gap}{other}|{other}{gap}{one}) ", context_keys) is not None


def _listed(one: str, other: str, keys: str) -> bool:
    """The two names stand in one list of ``keys`` (a :func:`key_text`): at most :data:`_IN_LIST`
    words apart, joined by a comma, "and", "or" or "&" ("the Pacers and the NBA")."""
    one, other = re.escape(one.strip()), re.escape(other.strip())
    gap = rf" ((?:\S+ ){{1,{_IN_LIST}}})"
    for first, second in ((one, other), (other, one)):
        for found in re.finditer(rf" {first}{gap}{second} ", keys):
            if _LIST_WORDS & set(found.group(1).split()):
                return True
    return False


def _run_on_alike(mine: list[Token], theirs: list[Token]) -> bool:
    """The two sentences go on with the same words after a negation change, for :data:`_ANCHOR_SPAN`
    words or until one ends: where they part, the negation may have moved rather than been added."""
    after = words_only(mine)[:_ANCHOR_SPAN], words_only(theirs)[:_ANCHOR_SPAN]
    n = min(len(after[0]), len(after[1]))
    return n > 0 and [t.key for t in after[0][:n]] == [t.key for t in after[1][:n]]


def _one_value(mine: list[Token], theirs: list[Token], span: tuple[int, int, int, int]) -> bool:
    """One word on each side, not the same number written otherwise ("10mph" for "10 mph", "14th" for
    "14"), and no end of a range unless the range's other end is the same on both sides ("9 am to 8 pm"
    for "9 am to 6 pm"; "5 to 10 minutes" for "10 to 14 minutes" may pair the wrong ends) or the range
    is of months or weekdays ("from December to May" for "from November to April", read end by end):
    a longer stretch of a paraphrase may be a range or a time read otherwise."""
    i1, i2, j1, j2 = span
    said, stated = mine[i1:i2], theirs[j1:j2]
    if len(said) != 1 or len(stated) != 1:
        return False
    if sort_of(said) != "date" and not _other_end_kept(mine, theirs, span):
        return False
    digits = ["".join(c for c in t.text if c.isdigit()) for t in said + stated]
    return not digits[0] or digits[0] != digits[1]


def _other_end_kept(mine: list[Token], theirs: list[Token], span: tuple[int, int, int, int]) -> bool:
    """The changed value is no end of a range, or the joining word and the word beyond it ("am to" in
    "9 am to 8 pm") are the same on both sides."""
    i1, i2, j1, j2 = span
    keys = [t.key for t in mine], [t.key for t in theirs]
    before = i1 > 0 and keys[0][i1 - 1] in _RANGE_WORDS
    after = i2 < len(mine) and keys[0][i2] in _RANGE_WORDS
    if before and after:
        return False
    if before:
        return i1 > 1 and j1 > 1 and keys[0][i1 - 2 : i1] == keys[1][j1 - 2 : j1]
    if after:
        return keys[0][i2 : i2 + 2] == keys[1][j2 : j2 + 2] and i2 + 1 < len(mine)
    return True


def _name_part(tokens: list[Token], n: int, proper: frozenset[str]) -> bool:
    """The word may be part of a name: capitalised, and a word the context writes capitalised only
    where it opens the sentence ("Elevated PSA levels" is no name "Elevated PSA")."""
    token = tokens[n]
    return token.text[0].isupper() and token.key not in FUNCTION_WORDS and (n > 0 or token.key in proper)


def with_changes(
    verdicts: list[Verdict], changes: list[Change], bounds: list[tuple[int, int]]
) -> list[Verdict]:
    """The verdicts with each changed stretch of a copied sentence in place of what it overrides: a
    changed value replaces the verdicts of the atoms it overlaps, a changed negation the polarity
    verdicts inside the words it spans, a changed predicate (an antonym, two stretches exchanged)
    every polarity verdict of its sentence (they read the same statement). A contradiction the other
    checks found stays: a value's that holds the changed stretch and more ("104 metres" for "104"),
    and, for a sentence copied only in part, a polarity's in its sentence (one negation read twice is
    one contradiction). A changed value keeps the kind of the atom it replaces word for word ("1935"
    read as a date, not as the number the copy check sees)."""
    out = list(verdicts)
    for change in changes:
        new = change.verdict
        polar = new.kind in POLARITY_KINDS
        if not polar:
            same = (v for v in out if (v.start, v.end) == (new.start, new.end))
            atom = next((v for v in same if v.kind not in POLARITY_KINDS and v.kind != "polarity"), None)
            new = new if atom is None else new.with_kind(atom.kind)
        start, end = bounds[change.sentence] if new.kind == "predicate" else (new.start, new.end)
        if any(v.outcome == "contradicted" and _holds(v, change, bounds[change.sentence]) for v in out):
            continue
        out = [v for v in out if not (v.start < end and start < v.end and v.of_polarity == polar)]
        out.append(new)
    return out


def _holds(found: Verdict, change: Change, sentence: tuple[int, int]) -> bool:
    """A contradiction found by the other checks says what ``change`` says (see :func:`with_changes`);
    a value's contradiction also says what an exchange of its very words says (two values exchanged:
    the slot check contradicts each, and the exchange is no second finding)."""
    new = change.verdict
    if new.kind in POLARITY_KINDS:
        if (found.start, found.end) == (new.start, new.end) and not found.of_polarity:
            return True
        polar = found.kind in POLARITY_KINDS
        return change.partial and polar and found.start < sentence[1] and sentence[0] < found.end
    return (
        found.kind not in POLARITY_KINDS
        and found.start <= new.start
        and new.end <= found.end
        and found.end - found.start > new.end - new.start
    )
