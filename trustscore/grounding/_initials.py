"""A name and its initials in capitals name one thing: a context's "NY / SF / LA" states "New York, San
Francisco and Los Angeles", and its "United Nations" states "UN".

Only whole initials count: every word of a run of two to five capitalised words written side by side
(the claims signal reads a name's capitalised words: "University of California" is "UC"), against a
word of as many capitals ("L.A." is "LA"). A word in lower case ("la") is no one's initials, and two long
names with the same initials are not read as one ("North Yorkshire" states no "New York"). Capitals after
a number are a unit ("500 BC", "9 AM"), and capitals in a shouted stretch are words ("SOLD AS IS"): neither
is anyone's initials."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

__all__ = ["capital_words", "capitals_keys", "initialled_runs", "initials", "run_initials"]

_CAPITALS = re.compile(r"(?<![\w.])(?:[A-Z]{2,5}|(?:[A-Z]\.){2,5})(?!\w)")
_RUN = re.compile(r"(?<![\w'’-])[A-Z][a-z][\w'’-]*(?:[ \t]+[A-Z][a-z][\w'’-]*)+")
_LONGEST = 5
_TOKEN = re.compile(r"\S+")
_EDGE_PUNCTUATION = ".,;:!?\"'()[]"
_CAPITALS_KEY = "capitals:"
"""What sets a word written in capitals apart among match keys (which are folded words, in lower case)."""


class _Word(Protocol):
    """A response word as lexical support reads it (:class:`~trustscore.grounding._text.Word`, which
    imports this module)."""

    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def key(self) -> str: ...


def initials(words: Sequence[str]) -> str:
    """The words' first letters in capitals ("New York": "NY")."""
    return "".join(w[0] for w in words).upper()


def capital_words(text: str) -> frozenset[str]:
    """The words of two to five capitals the text writes, dots dropped ("NY", "L.A." as "LA"), save those
    after a number or in a shouted stretch."""
    skipped = _not_initials(text)
    return frozenset(
        m.group().replace(".", "")
        for m in _CAPITALS.finditer(text)
        if not any(start <= m.start() < end for start, end in skipped)
    )


def _not_initials(text: str) -> list[tuple[int, int]]:
    """The spans of the words in capitals that are no one's initials: one right after a number ("500
    BC"), and every word of a stretch of capitals words that holds three words or one too long to be
    initials ("SOLD AS IS. NO RETURNS.")."""
    tokens = [(m.start(), m.end(), m.group().strip(_EDGE_PUNCTUATION)) for m in _TOKEN.finditer(text)]
    skipped: list[tuple[int, int]] = []
    stretch: list[tuple[int, int, str]] = []
    previous = ""
    for token in [*tokens, (len(text), len(text), "")]:
        core = token[2].replace(".", "")
        if len(core) >= 2 and core.isalpha() and core.isupper():
            if previous[:1].isdigit():
                skipped.append(token[:2])
            stretch.append(token)
        else:
            if len(stretch) >= 3 or any(len(word) > _LONGEST for _, _, word in stretch):
                skipped.extend(t[:2] for t in stretch)
            stretch = []
        previous = token[2]
    return skipped


def capitals_keys(text: str) -> frozenset[str]:
    """The text's :func:`capital_words` as match keys of their own, apart from the keys of words and of
    :func:`run_initials`: "NY" vouches for a run "New York", and "North Yorkshire" must not."""
    return frozenset(_CAPITALS_KEY + code for code in capital_words(text))


def run_initials(text: str) -> frozenset[str]:
    """The initials of every stretch of two to five capitalised words the text writes side by side:
    "The United Nations" gives "TU", "UN" and "TUN" (a sentence's first word is capitalised too)."""
    out: set[str] = set()
    for m in _RUN.finditer(text):
        words = m.group().split()
        for start in range(len(words) - 1):
            for end in range(start + 2, min(len(words), start + _LONGEST) + 1):
                out.add(initials(words[start:end]))
    return frozenset(out)


def initialled_runs(claimed: Sequence[_Word], text: str, keys: frozenset[str]) -> list[tuple[str, ...]]:
    """The match keys of each whole run of two to five capitalised words of ``claimed`` written side by
    side in ``text`` whose initials ``keys`` hold as a word written in capitals (``keys``: the context's
    :func:`~trustscore.grounding._text.support_keys`, which hold its :func:`capitals_keys`)."""
    runs: list[list[_Word]] = []
    for word in claimed:
        if word.kind == "number" or not word.text[:1].isupper() or word.text.isupper():
            continue
        if runs and text[runs[-1][-1].end : word.start].isspace():
            runs[-1].append(word)
        else:
            runs.append([word])
    return [
        tuple(w.key for w in run)
        for run in runs
        if 2 <= len(run) <= _LONGEST and _CAPITALS_KEY + initials([w.text for w in run]) in keys
    ]
