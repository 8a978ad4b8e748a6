"""A name and its initials in capitals name one thing: a context's "NY / SF / LA" states "New York, San
Francisco and Los Angeles", and its "United Nations" states "UN".

Only whole initials count: every word of a run of two to five capitalised words written side by side
(the claims signal reads a name's capitalised words: "University of California" is "UC"), against a
word of as many capitals ("L.A." is "LA"). A word in lower case ("la") is no one's initials, and two long
names with the same initials are not read as one ("North Yorkshire" states no "New York"). Capitals after
a number are a unit ("500 BC", "9 AM"), a Roman numeral after a name counts ("World War II"), and
capitals in a shouted stretch are words ("SOLD AS IS", "BUY A CAR"): none is anyone's initials. Capitals
that stand for something else with the same letters still count: "IT" is the initials of "Isaac
Taylor" to lexical support (the claims signal reads a person's name from three initials only)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from typing import Protocol

__all__ = ["capital_words", "capitals_keys", "initialled_runs", "initials", "run_initials"]

_CAPITALS = re.compile(r"(?<![\w.&])(?:[A-Z]{2,5}|(?:[A-Z]\.){2,5})(?![\w&])")
_RUN = re.compile(r"(?<![\w'’-])[A-Z][a-z][\w'’-]*(?:[ \t]+[A-Z][a-z][\w'’-]*)+")
_LONGEST = 5
_TOKEN = re.compile(r"\S+")
_EDGE_PUNCTUATION = ".,;:!?\"'()[]"
_LIST_MARKS = ",;"
"""What ends a stretch of capitals words: "NY, SF, LA" lists initials, it does not shout."""
_ROMAN = re.compile(r"[IVX]+")
_MIDDLE_INITIAL = re.compile(r"[ \t]+([A-Z])\.?[ \t]+")
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
    that are no one's initials (:func:`_not_initials`)."""
    starts, skipped = _not_initials(text)
    return frozenset(
        m.group().replace(".", "")
        for m in _CAPITALS.finditer(text)
        if bisect_right(starts, m.start()) - 1 not in skipped
    )


def _not_initials(text: str) -> tuple[list[int], set[int]]:
    """The text's whitespace-separated tokens' offsets, and which of them are words in capitals that are
    no one's initials: one right after a number ("500 BC"), a Roman numeral after a capitalised word
    ("World War II"), and every word of a stretch of capitals words ("A" and "I" among them; a comma
    ends one) that holds three words or one too long to be initials ("SOLD AS IS. NO RETURNS.")."""
    starts: list[int] = []
    skipped: set[int] = set()
    stretch: list[int] = []
    longest = 0
    previous = ""
    for index, match in enumerate(_TOKEN.finditer(text)):
        starts.append(match.start())
        written = match.group().strip(_EDGE_PUNCTUATION)
        core = written.replace(".", "")
        if core.isalpha() and core.isupper():
            if previous[:1].isdigit() or (_ROMAN.fullmatch(core) and previous.istitle()):
                skipped.add(index)
            stretch.append(index)
            longest = max(longest, len(core))
        if not (core.isalpha() and core.isupper()) or match.group()[-1] in _LIST_MARKS:
            if len(stretch) >= 3 or longest > _LONGEST:
                skipped.update(stretch)
            stretch, longest = [], 0
        previous = written
    if len(stretch) >= 3 or longest > _LONGEST:
        skipped.update(stretch)
    return starts, skipped


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
    side in ``text`` (a middle initial among them: "John F. Kennedy") whose initials ``keys`` hold as a
    word written in capitals (``keys``: the context's :func:`~trustscore.grounding._text.support_keys`,
    which hold its :func:`capitals_keys`)."""
    runs: list[tuple[list[_Word], list[str]]] = []
    for word in claimed:
        if word.kind == "number" or not word.text[:1].isupper() or word.text.isupper():
            continue
        gap = text[runs[-1][0][-1].end : word.start] if runs else ""
        middle = _MIDDLE_INITIAL.fullmatch(gap)
        if runs and (gap.isspace() or middle is not None):
            runs[-1][0].append(word)
            runs[-1][1].extend([middle.group(1), word.text] if middle is not None else [word.text])
        else:
            runs.append(([word], [word.text]))
    return [
        tuple(w.key for w in run)
        for run, written in runs
        if 2 <= len(written) <= _LONGEST and _CAPITALS_KEY + initials(written) in keys
    ]
