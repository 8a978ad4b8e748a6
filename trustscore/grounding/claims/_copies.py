"""A response sentence that copies a context sentence with one thing changed.

A sentence that repeats the context's sentence word for word except one short stretch is the
surest alignment there is: the changed stretch says something else in the very slot the context
fills, whatever the parse makes of it. So the two stretches are compared directly:

- a month, a weekday, a number or a name where the context has another of the same sort ("on
  Saturday" copied as "on Friday", "5th April" as "5th February", "Sgt Rob Taylor" as "Sgt Angela
  Moore"): **contradicted** (kind "date", "number" or "name");
- a negation added or removed ("was on private land" copied as "was not on private land"):
  **contradicted** (kind "negation").

Any other change (a paraphrased word, an adjective, punctuation) is not read here: the atom and
clause checks of :mod:`._check` decide as for any sentence. A copy needs enough words in common
(:data:`_MIN_SAME`, and most of the sentence) that the rest cannot be a different statement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from trustscore.grounding.claims._verdict import Verdict

__all__ = ["Change", "copy_changes"]

_TOKEN = re.compile(r"\w+(?=n't)|n't|\w+|[^\w\s]")
_NEGATIONS = frozenset({"not", "n't", "no", "never"})
_MONTHS = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ]
)
_WEEKDAYS = frozenset(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])
_FUNCTION_WORDS = frozenset(
    [
        "he",
        "she",
        "it",
        "they",
        "we",
        "i",
        "you",
        "his",
        "her",
        "its",
        "their",
        "our",
        "my",
        "your",
        "this",
        "that",
        "these",
        "those",
        "there",
        "the",
        "a",
        "an",
    ]
)
"""Capitalised words at a sentence's start that are no name ("He" where the response names him)."""
_MIN_SAME = 6
"""Words a copy keeps unchanged at least."""
_SAME_SHARE = 0.75
"""Share of the response sentence's words a copy keeps unchanged at least."""
_MAX_CHANGED = 3
"""Words the changed stretch spans at most, on either side."""


@dataclass(frozen=True)
class _Token:
    text: str
    start: int
    end: int

    @property
    def key(self) -> str:
        return self.text.casefold()


@dataclass(frozen=True)
class Change:
    """A contradicted stretch of a response sentence that copies a context sentence."""

    verdict: Verdict
    sentence: int
    """Index of the response sentence."""


def copy_changes(
    response: str,
    response_bounds: list[tuple[int, int]],
    context: str,
    context_bounds: list[tuple[int, int]],
    aligned: list[int | None],
    names: tuple[list[tuple[int, int]], list[tuple[int, int]]],
) -> list[Change]:
    """The contradicted stretch of each response sentence that copies its aligned context sentence
    with one month, weekday, number, name or negation changed. ``names``: the character spans of the
    names in the response and in the context (a changed capitalised word is a name only where the
    recogniser found one on either side: "The" for "This" is not)."""
    out: list[Change] = []
    whole = _keys(_tokens(context, 0, len(context)))
    for n, ((start, end), target) in enumerate(zip(response_bounds, aligned, strict=True)):
        if target is None:
            continue
        mine = _tokens(response, start, end)
        if _keys(mine) in whole:
            continue  # the context says it word for word somewhere (its sentences split otherwise)
        theirs = _tokens(context, *context_bounds[target])
        verdict = _changed(mine, theirs, names)
        if verdict is not None:
            out.append(Change(verdict, n))
    return out


def _tokens(text: str, start: int, end: int) -> list[_Token]:
    return [_Token(m.group(), start + m.start(), start + m.end()) for m in _TOKEN.finditer(text[start:end])]


def _keys(tokens: list[_Token]) -> str:
    return " " + " ".join(t.key for t in tokens) + " "


def _changed(
    mine: list[_Token], theirs: list[_Token], names: tuple[list[tuple[int, int]], list[tuple[int, int]]]
) -> Verdict | None:
    matcher = SequenceMatcher(None, [t.key for t in mine], [t.key for t in theirs], autojunk=False)
    ops = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    same = sum(i2 - i1 for tag, i1, i2, _, _ in matcher.get_opcodes() if tag == "equal")
    if len(ops) != 1 or same < _MIN_SAME or same < _SAME_SHARE * len(mine):
        return None
    _, i1, i2, j1, j2 = ops[0]
    said, stated = mine[i1:i2], theirs[j1:j2]
    if len(said) > _MAX_CHANGED or len(stated) > _MAX_CHANGED:
        return None
    if not said or not stated:
        return _negation(mine[max(0, i1 - 3) : i2 + 3], theirs[max(0, j1 - 3) : j2 + 3], said or stated)
    kind = _sort(said)
    if kind is None or kind != _sort(stated) or (kind == "number" and 0 in (i1, j1)):
        return None  # a number opening the sentence numbers a list's item: "4." for "Step 2:"
    if kind == "name" and (
        _spelling(said, stated) or not (_within(said, names[0]) or _within(stated, names[1]))
    ):
        return None
    return Verdict(kind, "contradicted", _joined(said), said[0].start, said[-1].end, _joined(stated))


def _negation(around: list[_Token], stated: list[_Token], changed: list[_Token]) -> Verdict | None:
    """An added or removed negation: the verdict spans the response's words around it."""
    if not all(t.key in _NEGATIONS for t in changed):
        return None
    around, stated = _words(around), _words(stated)
    text, said = _joined(around), _joined(stated)
    return Verdict("negation", "contradicted", text, around[0].start, around[-1].end, said)


def _words(tokens: list[_Token]) -> list[_Token]:
    """The stretch without punctuation at its ends."""
    kept = [i for i, t in enumerate(tokens) if t.text[0].isalnum()]
    return tokens[kept[0] : kept[-1] + 1] if kept else tokens


def _within(tokens: list[_Token], spans: list[tuple[int, int]]) -> bool:
    """The stretch lies in one of ``spans`` (the names the recogniser found)."""
    return any(start <= tokens[0].start and tokens[-1].end <= end for start, end in spans)


def _sort(tokens: list[_Token]) -> str | None:
    """What a changed stretch is: a date word, a number, a name, or None for anything else."""
    words = [t for t in tokens if t.text[0].isalnum()]
    if not words:
        return None
    if any(t.key in _MONTHS or t.key in _WEEKDAYS for t in words):
        return "date"
    if any(c.isdigit() for t in words for c in t.text):
        return "number"
    if all(t.text[0].isupper() and t.key not in _FUNCTION_WORDS for t in words):
        return "name"
    return None


def _spelling(said: list[_Token], stated: list[_Token]) -> bool:
    """The same name written otherwise: initials ("US" for "United States") or close letters."""
    one, two = _joined(said).casefold(), _joined(stated).casefold()
    initials = {"".join(t.key[0] for t in side) for side in (said, stated) if len(side) > 1}
    squeezed = {one.replace(" ", "").replace(".", ""), two.replace(" ", "").replace(".", "")}
    return bool(initials & squeezed) or SequenceMatcher(None, one, two).ratio() >= 0.8


def _joined(tokens: list[_Token]) -> str:
    return " ".join(t.text for t in tokens)
