"""Place codes and the names they stand for: "CA" is California (and Canada), "USA" the United States.

A record or a table writes a place by its code (``"state": "CA"``) where an answer writes its name
("Goleta, California"), and the other way round; both grounding signals read the one as the other. The
table (data/places.tsv, NOTICE-pycountry.md) holds the ISO 3166 codes of the states and territories of
the United States and of Canada and of the countries, with their names, built from pycountry by
scripts/build_claims_tables.py.

A name counts wherever it is written as the table writes it ("California", "New York", "Côte d'Ivoire"
also with a curly apostrophe). A code counts only where it stands as a place: the whole string value
of a record's field (``"state": "CA"``, the code between double quotes) or directly before a postal
code (a US ZIP, "CA 93117"; a Canadian one, "ON K1A 0B1"). Elsewhere a word in capitals is more often
an acronym than a place ("Ann Lee, MD", "the IT team", "500 BC", "SOLD AS IS"), so it is not read as
one; the dotted "U.S.", "U.S.A." and "U.K." count wherever they stand (:data:`_DOTTED_CODES`). A
name's codes are what it stands for the other way; the signals vouch with them only for a response word
written as a code, in capitals (:func:`~trustscore.grounding._text.support_keys`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from functools import cache, lru_cache
from importlib.resources import files
from typing import Literal, NamedTuple

from trustscore.compute._deadline import checkpoint

__all__ = ["PlaceMention", "codes_alike", "place_level", "place_mentions"]

_DATA = files("trustscore.grounding") / "data"


class PlaceMention(NamedTuple):
    """A code or name of a place in a text, with what it stands for."""

    start: int
    end: int
    is_code: bool
    """Whether it is a code (it stands for its names) or a name (it stands for its codes)."""
    stands_for: tuple[tuple[str, ...], ...]
    """A code's names, each as its words, casefolded (("california",), ("canada",)); a name's codes,
    as the table writes them, in capitals (("US",), ("USA",))."""

    @property
    def words(self) -> tuple[str, ...]:
        """Every word it stands for, casefolded, in order, each once."""
        return tuple(dict.fromkeys(w.casefold() for said in self.stands_for for w in said))


class _Table(NamedTuple):
    """The place table, kept in strings, which the garbage collector does not track: it is built on a
    cold first score, where every tracked object that outlives the build counts."""

    aliases: dict[str, str]
    """Each code and each name: what it stands for, its names' (or codes') words separated by spaces
    and the names (or codes) by tabs."""
    by_first_word: dict[str, str]
    """The codes and names by their first word, separated by tabs, the longest first ("New York"
    before "New")."""


_DOTTED_CODES = ("US", "USA", "UK")
"""The codes prose writes with a full stop after each letter, as news style guides write the United
States and the United Kingdom ("U.S.", "U.S.A.", "U.K."): written so, they are no acronym of anything
else and count as places wherever they stand. Other dotted capitals are more often something else ("M.D.",
"A.M.", "L.A.")."""

_WORD = re.compile(r"\w+")
"""A word as the table's spellings start with one: a run of word characters (every spelling opens
with one, and a code is one)."""

_POSTAL_CODE = re.compile(r"[ \t]+(?:\d{5}(?:-\d{4})?|[A-Z]\d[A-Z] ?\d[A-Z]\d)(?!\w)")
"""What follows a code directly before a postal code: a US ZIP ("93117", "93117-1234") or a
Canadian postal code ("K1A 0B1")."""


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
        aliases[code] = "\t".join(dict.fromkeys(" ".join(_words(n)) for n in said))
    for code in _DOTTED_CODES:
        if code in aliases:
            aliases[_dotted(code)] = aliases[code]
    for name, said in codes.items():
        aliases[name] = "\t".join(dict.fromkeys(said))
        if "'" in name:  # as an LLM writes it: "Côte d’Ivoire"
            aliases[name.replace("'", "\u2019")] = aliases[name]
    by_first: dict[str, list[str]] = defaultdict(list)
    for spelling in sorted(aliases, key=lambda s: (-len(s), s)):
        first = _WORD.match(spelling)
        if first is None:
            raise ValueError(f"places.tsv: the spelling {spelling!r} does not open with a word")
        by_first[first.group()].append(spelling)
    return _Table(aliases, {word: "\t".join(spellings) for word, spellings in by_first.items()})


def codes_alike(code: str) -> frozenset[str]:
    """Every code of the places that ``code`` (as written: "US", "U.S.") stands for, in capitals and
    without full stops ("US", "USA"); empty for a spelling the table does not hold as a code."""
    table = _table()
    names = table.aliases.get(code, "").split("\t") if code.isupper() else ()
    return frozenset(c for name in names for c in _codes_by_name().get(name, "").split("\t") if c)


@cache
def _codes_by_name() -> dict[str, str]:
    """Each name's codes, by the name's words (:func:`_words`, joined by spaces), separated by tabs."""
    named = (s for s in _table().aliases if not s.isupper())
    return {" ".join(_words(name)): _table().aliases[name] for name in named}


def _dotted(code: str) -> str:
    """A code as prose writes it with full stops ("US" -> "U.S.")."""
    return "".join(f"{letter}." for letter in code)


def place_level(name: str) -> Literal["country", "region"] | None:
    """Whether the table's place ``name`` (as it writes it: "Arizona", "New Mexico") is a country (it has
    a three-letter code) or a state, province or territory (two-letter codes only); None for a name the
    table does not hold, or a code."""
    codes = _table().aliases.get(name)
    if codes is None or name.isupper():
        return None
    return "country" if any(len(code) == 3 for code in codes.split("\t")) else "region"


def _words(name: str) -> list[str]:
    return [w.casefold() for w in re.findall(r"[^\W\d_]+", name)]


def _stands_as_place(text: str, start: int, end: int) -> bool:
    """Whether the code ``text[start:end]`` is a record field's whole string value or directly
    precedes a postal code."""
    quoted = text[start - 1 : start] == '"' and text[end : end + 1] == '"'
    return quoted or _POSTAL_CODE.match(text, end) is not None


@lru_cache(maxsize=256)
def place_mentions(text: str) -> tuple[PlaceMention, ...]:
    """Each place code and name ``text`` states, with what it stands for: at each word not inside an
    earlier mention, the longest spelling of the table that starts there and ends at a word's end (a
    code only where it stands as a place). Memoised: the responses that share a context read it once.

    A scan of the text's words with the table indexed by first word, not one pattern of every
    spelling, whose compiling costs more than the scan."""
    table = _table()
    found: list[PlaceMention] = []
    end = 0
    for n, word in enumerate(_WORD.finditer(text)):
        if n % 4096 == 0:
            checkpoint()
        start = word.start()
        if start < end:
            continue
        spellings = table.by_first_word.get(word.group())
        for spelling in spellings.split("\t") if spellings else ():
            after = start + len(spelling)
            if not text.startswith(spelling, start) or _WORD.match(text, after) is not None:
                continue
            is_code = spelling.isupper()  # every code is in capitals, no name is
            if is_code and "." not in spelling and not _stands_as_place(text, start, after):
                continue
            said = tuple(tuple(s.split(" ")) for s in table.aliases[spelling].split("\t"))
            found.append(PlaceMention(start, after, is_code, said))
            end = after
            break
    return tuple(found)
