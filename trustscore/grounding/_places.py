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
    aliases: dict[str, tuple[str, ...]]
    """Each code and each name: the words of what it stands for."""
    pattern: re.Pattern[str]


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
    aliases: dict[str, tuple[str, ...]] = {}
    for code, said in names.items():
        aliases[code] = tuple(dict.fromkeys(w for n in said for w in _words(n)))
    for name, said in codes.items():
        aliases[name] = tuple(dict.fromkeys(c.casefold() for c in said))
    spellings = sorted(aliases, key=lambda s: (-len(s), s))  # the longest first: "New York" before "NY"
    first = re.escape("".join(sorted({s[0] for s in spellings})))  # a quick miss at every other letter
    alternatives = "|".join(re.escape(s) for s in spellings)
    pattern = re.compile(rf"(?<!\w)(?=[{first}])(?:{alternatives})(?!\w)")
    return _Table(aliases, pattern)


def _words(name: str) -> list[str]:
    return [w.casefold() for w in re.findall(r"[^\W\d_]+", name)]


@lru_cache(maxsize=256)
def place_mentions(text: str) -> tuple[PlaceMention, ...]:
    """Each place code and name ``text`` states, with what it stands for. Memoised: the responses that
    share a context read it once."""
    table = _table()
    return tuple(
        PlaceMention(m.start(), m.end(), table.aliases[m.group()]) for m in table.pattern.finditer(text)
    )
