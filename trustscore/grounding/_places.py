"""Place codes and the names they stand for: "CA" is California (and Canada), "USA" the United States.

A record or a table writes a place by its code (``"state": "CA"``) where an answer writes its name
("Goleta, California"), and the other way round; both grounding signals read the one as the other. The
table (data/places.tsv, NOTICE-pycountry.md) holds the ISO 3166 codes of the states and territories of
the United States and of Canada and of the countries, with their names, built from pycountry by
scripts/build_claims_tables.py.

A code counts only as the table writes it, a whole word in capitals ("CA"; never "ca." for circa or
"Ca" opening a sentence), and a name only as the table writes it ("California", "New York").
"""

from __future__ import annotations

import re
from collections import defaultdict
from functools import cache, lru_cache
from importlib.resources import files
from typing import NamedTuple

__all__ = ["PlaceMention", "place_mentions"]

_DATA = files("trustscore.grounding") / "data"


class PlaceMention(NamedTuple):
    """A code or name of a place in a text, with the words it stands for (casefolded, in order): a
    code's stands for its names' words, a name's for its codes."""

    start: int
    end: int
    words: tuple[str, ...]


class _Table(NamedTuple):
    """The place table, kept in strings: built on a cold first score, where each object the garbage
    collector tracks that outlives the build counts (a few hundred tuples more cost one more full
    collection, 30 ms, measured by a callback on ``gc.callbacks``); strings it does not track."""

    aliases: dict[str, str]
    """Each code and each name: the words of what it stands for, separated by spaces."""
    by_first_word: dict[str, str]
    """The codes and names by their first word, separated by tabs, the longest first ("New York"
    before "New")."""


_WORD = re.compile(r"\w+")
"""A word as the table's spellings start with one: a run of word characters (every spelling opens
with one, and a code is one)."""


@cache
def _table() -> _Table:
    names: dict[str, list[str]] = defaultdict(list)
    codes: dict[str, list[str]] = defaultdict(list)
    for line in (_DATA / "places.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line:
            continue
        code, name = line.split("\t")
        names[code].append(name)
        codes[name].append(code)
    aliases: dict[str, str] = {}
    for code, said in names.items():
        aliases[code] = " ".join(dict.fromkeys(w for n in said for w in _words(n)))
    for name, said in codes.items():
        aliases[name] = " ".join(dict.fromkeys(c.casefold() for c in said))
    by_first: dict[str, list[str]] = defaultdict(list)
    for spelling in sorted(aliases, key=lambda s: (-len(s), s)):
        first = _WORD.match(spelling)
        assert first is not None, f"places.tsv: {spelling!r} does not open with a word"
        by_first[first.group()].append(spelling)
    return _Table(aliases, {word: "\t".join(spellings) for word, spellings in by_first.items()})


def _words(name: str) -> list[str]:
    return [w.casefold() for w in re.findall(r"[^\W\d_]+", name)]


@lru_cache(maxsize=256)
def place_mentions(text: str) -> tuple[PlaceMention, ...]:
    """Each place code and name ``text`` states, with what it stands for: at each word, the longest
    spelling of the table that starts there and ends at a word's end. Memoised: the responses that
    share a context read it once.

    A scan of the text's words with the table indexed by first word, not one pattern of every
    spelling, whose compiling costs more than the scan."""
    table = _table()
    found: list[PlaceMention] = []
    end = 0
    for word in _WORD.finditer(text):
        start = word.start()
        if start < end:
            continue
        spellings = table.by_first_word.get(word.group())
        for spelling in spellings.split("\t") if spellings else ():
            after = start + len(spelling)
            if text.startswith(spelling, start) and _WORD.match(text, after) is None:
                found.append(PlaceMention(start, after, tuple(table.aliases[spelling].split())))
                end = after
                break
    return tuple(found)
