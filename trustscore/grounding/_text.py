"""Text helpers shared by the grounding signals: sentences and words with character offsets.

Everything here is pure, dependency-free and fast; offsets always index the original string so
spans can point at the exact characters of a response.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Any, Literal

from trustscore.compute._deadline import checkpoint
from trustscore.grounding._calendar import calendar_words
from trustscore.grounding._clock import clock_key, clock_times, vouched_keys
from trustscore.grounding._function_words import STOPWORDS, function_contraction
from trustscore.grounding._initials import capitals_keys, run_initials
from trustscore.grounding._numbers import normalise_number, scaled_numbers
from trustscore.grounding._places import place_mentions
from trustscore.grounding._spellings import american

__all__ = [
    "Piece",
    "Word",
    "context_units",
    "fold",
    "is_list_marker",
    "is_supported",
    "normalise_number",
    "pair_keys",
    "split_long",
    "split_sentences",
    "support_keys",
    "words",
]


def _wordlist(text: str) -> list[str]:
    """Whitespace-separated words: keeps the long word lists below readable."""
    return text.split()


@dataclass(frozen=True, slots=True)
class Piece:
    """A stretch ``text[start:end]`` of some source string."""

    start: int
    end: int
    text: str


WordKind = Literal["number", "name", "word"]


@dataclass(frozen=True, slots=True)
class Word:
    """One word of a text: its offsets, its surface form, its kind and its folded key."""

    start: int
    end: int
    text: str
    kind: WordKind
    key: str
    """What two words must share to count as the same: a folded stem, or a normalised number."""


# Abbreviations whose trailing dot does not end a sentence (compared case-insensitively).
_ABBREVIATIONS = frozenset(
    _wordlist(
        """mr mrs ms dr prof sr jr st mt vs etc inc ltd co corp e.g i.e a.m p.m u.s u.k no jan feb mar apr
    jun jul aug sep sept oct nov dec approx dept est fig gen gov sen rep rev ave blvd"""
    )
)
_SENTENCE_END = re.compile(r"(?<![.!?])[.!?]+[\"'”’)\]]*(?=\s)|\n+")
"""A run of end marks (and closing quotes or brackets) before whitespace, or line breaks. A match
starts only where a run does: tried from inside a long run ("?" * 80,000) it was quadratic."""
# The longest word that can matter before a dot ("sept", "e.g", "(dr"): looking further back is
# wasted work, and looking back unboundedly made splitting quadratic on long unbroken text.
_LOOKBACK = 16


def split_sentences(text: str) -> list[Piece]:
    """Sentences of ``text`` with offsets; line breaks always end a sentence.

    A dot after a known abbreviation, a single capital letter ("J. Smith") or inside a number
    does not end a sentence. Whitespace around each sentence is trimmed off its offsets.
    """
    pieces: list[Piece] = []
    start = 0
    for n, m in enumerate(_SENTENCE_END.finditer(text)):
        if n % 4096 == 0:
            checkpoint()
        if m.group().startswith(".") and _after_abbreviation(text, m.start()):
            continue
        _append_trimmed(text, start, m.end(), pieces)
        start = m.end()
    _append_trimmed(text, start, len(text), pieces)
    return pieces


def _after_abbreviation(text: str, dot: int) -> bool:
    """Whether the word just before ``text[dot]`` is an abbreviation or a single letter."""
    i = dot
    while i > 0 and dot - i <= _LOOKBACK and not text[i - 1].isspace():
        i -= 1
    if dot - i > _LOOKBACK:
        return False
    last = text[i:dot].lower().lstrip("(\"'“‘")
    return last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha())


def _append_trimmed(text: str, start: int, end: int, out: list[Piece]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start and any(c.isalnum() for c in text[start:end]):
        out.append(Piece(start, end, text[start:end]))


_WHITESPACE_RUN = re.compile(r"\S+")


def split_long(piece: Piece, max_words: int) -> list[Piece]:
    """Cut a piece longer than ``max_words`` whitespace words into consecutive windows.

    Used so an embedding model never silently truncates a sentence: each window keeps offsets
    into the same source string as ``piece``.
    """
    if max_words < 1:
        raise ValueError(f"max_words must be at least 1, got {max_words}")
    spans = [(m.start(), m.end()) for m in _WHITESPACE_RUN.finditer(piece.text)]
    if len(spans) <= max_words:
        return [piece]
    out: list[Piece] = []
    for i in range(0, len(spans), max_words):
        chunk = spans[i : i + max_words]
        s, e = chunk[0][0], chunk[-1][1]
        out.append(Piece(piece.start + s, piece.start + e, piece.text[s:e]))
    return out


def context_units(passage: str) -> list[str]:
    """The sentence-like units of one context passage.

    A passage that is a JSON object or list (RAGTruth's Data2txt records, tool outputs) is
    flattened to one ``"path: value"`` line per leaf, so a sentence embedder sees readable facts
    instead of braces; any other passage is split into sentences.
    """
    stripped = passage.strip()
    if stripped[:1] in "{[":
        try:
            data = json.loads(stripped)
            if isinstance(data, (dict, list)):
                out: list[str] = []
                _flatten(data, "", out)
                return out
        except (ValueError, RecursionError):
            pass  # not JSON, or nested too deeply to flatten: read it as text
    return [p.text for p in split_sentences(passage)]


def _flatten(node: Any, path: str, out: list[str]) -> None:
    if isinstance(node, dict):
        for k, v in node.items():
            _flatten(v, f"{path} {k}".strip(), out)
    elif isinstance(node, list):
        if all(not isinstance(v, (dict, list)) for v in node):
            if node:
                out.append(f"{path}: {', '.join(_leaf(v) for v in node)}")
        else:
            for v in node:
                _flatten(v, path, out)
    elif isinstance(node, str) and len(node.split()) > 12:
        # Long free text (a review) keeps its own sentences; the first one carries the path.
        sentences = [p.text for p in split_sentences(node)]
        if sentences:
            sentences[0] = f"{path}: {sentences[0]}"
        out.extend(sentences)
    else:
        out.append(f"{path}: {_leaf(node)}")


def _leaf(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    return "none" if v is None else str(v)


# --- words -----------------------------------------------------------------------------------

_NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        _wordlist(
            """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
    sixteen seventeen eighteen nineteen twenty"""
        )
    )
}
_NUMBER_WORDS |= {
    w: str(10 * i)
    for i, w in enumerate(["thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"], 3)
}
_NUMBER_WORDS |= {
    w: str(i)
    for i, w in enumerate(
        ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"], 1
    )
}
_NUMBER_WORDS |= {
    "hundred": "100",
    "thousand": "1000",
    "dozen": "12",
    "once": "1",
    "twice": "2",
    "half": "0.5",
}
# "one" and "second" are far more often a pronoun / unit of time than a count.
_AMBIGUOUS_NUMBER_WORDS = frozenset({"one", "second", "once", "half"})
_COUNTS = {w: v for w, v in _NUMBER_WORDS.items() if w not in _AMBIGUOUS_NUMBER_WORDS}
"""The number words that count ("seven", "twelve"), for a number written with a scale word."""

_WORD = re.compile(
    r"(?P<num>\d+(?:[.,]\d+)*(?:st|nd|rd|th)?)"
    r"|(?P<word>[^\W\d_]+(?:['’][^\W\d_]+)*)"
)


# Suffixes folded away so "reported" / "reports" / "reporting" share one key; checked longest first.
_SUFFIXES = (
    "ations",
    "ation",
    "ments",
    "ment",
    "ings",
    "ing",
    "ies",
    "ied",
    "ers",
    "er",
    "ed",
    "es",
    "ly",
    "s",
)


WORD_CACHE_SIZE = 16384
"""Entries of each per-word memo (here and lexical's rarity). Small on purpose: every new number or
name is a new entry, so a long run fills them; at this size they are full within about 16,000 short
samples (~6 MB) and cost no speed (docs/benchmarks.md)."""


@lru_cache(maxsize=WORD_CACHE_SIZE)
def fold(word: str) -> str:
    """Casefold, drop a possessive, read a British spelling as the American one ("colours" as
    "colors") and fold common English suffixes (a crude, consistent stem)."""
    w = word.casefold().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    w = american(w.replace("'", ""))
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 3 and not (suf == "s" and w.endswith("ss")):
            w = w[: -len(suf)]
            if suf in ("ies", "ied"):
                w += "y"
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiousl":
        w = w[:-1]  # "stopped" -> "stopp" -> "stop"
    return w


def words(text: str, *, drop_stopwords: bool = True, kinds: bool = True) -> list[Word]:
    """The numbers, names and content words of ``text`` with their offsets and match keys.

    A *name* is a capitalised word that does not open a sentence, or an all-caps acronym. Number
    words ("five", "third") are numbers, except the ambiguous "one", "second", "once", "half"; a
    number with a scale word is one number ("42 thousand" has the key of "42,000"), and so is a clock
    time ("6 pm", "18:00": :func:`~trustscore.grounding._clock.clock_key`). List markers
    ("1." opening a line) are skipped. ``kinds=False`` skips the sentence split that tells names from
    other words (every word is then "word"): faster when only keys matter.
    """
    sentence_starts = {p.start for p in split_sentences(text)} if kinds else set()
    scaled = {start: (end, key) for start, end, key in scaled_numbers(text, _COUNTS)}
    scaled.update({t.start: (t.end, clock_key(t.hours)) for t in clock_times(text)})
    out: list[Word] = []
    previous_end = -1
    for n, m in enumerate(_WORD.finditer(text)):
        if n % 4096 == 0:
            checkpoint()
        s, e, surface = m.start(), m.end(), m.group()
        if s < previous_end:
            continue  # the scale word of a number read with it
        if s in scaled:  # "42 thousand", "seven million", "6 pm", "18:00": one number
            previous_end, key = scaled[s]
            out.append(Word(s, previous_end, text[s:previous_end], "number", key))
            continue
        if m.group("num") is not None:
            if is_list_marker(text, s, e):
                continue
            out.append(Word(s, e, surface, "number", normalise_number(surface)))
            previous_end = e
            continue
        lower = surface.casefold()
        opens_sentence = kinds and (
            s in sentence_starts or _opens_after_colon_or_bullet(text, previous_end, s)
        )
        previous_end = e
        if lower in _COUNTS:
            out.append(Word(s, e, surface, "number", _COUNTS[lower]))
            continue
        if drop_stopwords and (lower in STOPWORDS or len(lower) < 2 or function_contraction(lower)):
            continue
        is_acronym = len(surface) >= 2 and surface.isupper()
        is_name = kinds and (is_acronym or (surface[0].isupper() and not opens_sentence))
        out.append(Word(s, e, surface, "name" if is_name else "word", fold(surface)))
    return out


def is_list_marker(text: str, start: int, end: int) -> bool:
    """A "1." or "2)" opening a line numbers a list item; it claims nothing. A number alone on its
    line ("1998." as the whole answer) is a claim, not a marker: a marker has an item after it, and
    it has one or two digits ("1997. That is when..." opens with a year)."""
    if end - start > 2 or text[end : end + 1] not in (".", ")"):
        return False
    i = start - 1
    while i >= 0 and text[i] in " \t":
        i -= 1
    return (i < 0 or text[i] == "\n") and _ITEM_AFTER.match(text, end + 1) is not None


_ITEM_AFTER = re.compile(r"[ \t]*\S")
_CAMEL_WORD = re.compile(r"\b[A-Za-z]*[a-z][A-Z][A-Za-z]*\b")
_CAMEL_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_CLOCK_TIME = re.compile(r"\b(\d{1,2}):(\d{1,2})\b")
_MONTHS = _wordlist("january february march april may june july august september october november december")


@lru_cache(maxsize=256)
def support_keys(text: str) -> frozenset[str]:
    """Every match key ``text`` can vouch for (the context side of lexical support).

    Besides the keys of its words, it vouches for the parts of identifiers and their adjacent pairs
    ("RestaurantsTakeOut" -> "restaurants", "take", "out", "takeout"; "WiFi" -> "wifi"), the month name of
    an ISO date (2022-01-09 -> "january"), a clock time however it is written (17:30 -> "5:30 pm", and
    "5", "pm" apart: :func:`~trustscore.grounding._clock.vouched_keys`), the words that state opening
    hours where it gives them as clock-time ranges under ``"hours"`` ("Monday": "11:0-21:0" -> "open",
    "daily", "week"; not "closed": a day the record leaves out is no closed day it states), "weekdays"
    where it names Monday to Friday and "weekends" where it names Saturday and Sunday, a number
    written with a scale word as its digits ("12 million" -> "12000000", :func:`scaled_numbers`), and a
    place's name for its code and its code for its name (``"state": "CA"`` -> "california"; "California"
    -> "CA": :mod:`._places`): the ways a writer rephrases a record. A name vouches for its codes as
    written, in capitals, keys no folded word has: only a response word written as a code looks them up
    (:func:`is_supported`), so "Jamaica" vouches for "JAM" and not for "jam"; so do a run of capitalised
    words for its initials ("United Nations": "UN") and a word written in capitals for itself ("NY"),
    which a run of response words can be the initials of (:mod:`._initials`).
    Memoised: the responses that share a context look it up once.
    """
    keys: set[str] = set()
    checkpoint()
    scaled = scaled_numbers(text, _COUNTS)
    keys.update(key for _, _, key in scaled)
    inside = {start for s, e, _ in scaled for start in range(s, e)}  # "42 thousand" is no "42"
    for n, match in enumerate(_WORD.finditer(text)):
        if n % 4096 == 0:
            checkpoint()
        if match.start() not in inside:
            keys.add(_surface_key(match.groups("")))
    for n, m in enumerate(_CAMEL_WORD.finditer(text)):
        if n % 4096 == 0:
            checkpoint()
        parts = _CAMEL_PART.findall(m.group())
        keys.update(fold(p) for p in parts)
        keys.update(fold(a + b) for a, b in pairwise(parts))
    for n, m in enumerate(_ISO_DATE.finditer(text)):
        if n % 4096 == 0:
            checkpoint()
        month = int(m.group(2))
        if 1 <= month <= 12:
            keys.add(fold(_MONTHS[month - 1]))
    keys.update(fold(w) for w in calendar_words(text))
    for time in clock_times(text):
        keys.update(vouched_keys(time.hours))
    for n, m in enumerate(_CLOCK_TIME.finditer(text)):
        if n % 4096 == 0:
            checkpoint()
        hour = int(m.group(1))
        if hour > 23:
            continue
        keys.add("pm" if hour >= 12 else "am")
        if hour > 12:
            keys.add(str(hour - 12))
        if hour == 0:
            keys.add("12")
    for place in place_mentions(text):
        if place.is_code:
            keys.update(fold(w) for w in place.words)
        else:
            keys.update(code for codes in place.stands_for for code in codes)
    keys.update(capitals_keys(text) | run_initials(text))
    checkpoint()
    return frozenset(keys)


PAIR_WINDOW = 3
"""Content words at most this many content words apart count as near each other (stopwords are not
counted: "the mayor of the city" puts "mayor" and "city" side by side)."""


@lru_cache(maxsize=64)
def pair_keys(text: str) -> frozenset[tuple[str, str]]:
    """Every ordered pair ``(a, b)`` of content-word keys of ``text`` where ``b`` follows ``a`` by at most
    :data:`PAIR_WINDOW` content words (the context side of the pairs check). A place's code stands in
    for its names' words and a name for its codes, where it is written (:func:`support_keys`); a
    mention where no content word stands (a code that is a stopword: "Portland, OR") takes a place of
    its own, and a code's names pair their own words ("NY": "new" before "york"), never one name's
    with another's. Memoised like :func:`support_keys`."""
    found = words(text, kinds=False)
    times = {t.start: tuple(vouched_keys(t.hours)) for t in clock_times(text)}
    slots: list[tuple[int, tuple[str, ...]]] = [(w.start, times.get(w.start, (w.key,))) for w in found]
    out: set[tuple[str, str]] = set()
    for place in place_mentions(text):
        said = tuple(fold(w) for w in place.words)
        first = bisect_left(slots, place.start, key=lambda slot: slot[0])
        last = bisect_left(slots, place.end, key=lambda slot: slot[0])
        if first == last:
            slots.insert(first, (place.start, (fold(text[place.start : place.end]), *said)))
        for i in range(first, last):
            slots[i] = (slots[i][0], (*slots[i][1], *said))
        if place.is_code:
            for name in place.stands_for:
                out.update(pairwise(fold(w) for w in name))
    for i, (_, these) in enumerate(slots):
        if i % 4096 == 0:
            checkpoint()
        for _, those in slots[i + 1 : i + 1 + PAIR_WINDOW]:
            out.update((a, b) for a in these for b in those)
    checkpoint()
    return frozenset(out)


def is_supported(word: Word, keys: frozenset[str]) -> bool:
    """Whether ``keys`` (:func:`support_keys`) vouch for ``word``: its key, or a code written in
    capitals that a place's name vouches for ("CA" where the context says "California")."""
    return word.key in keys or (word.text.isupper() and word.text in keys)


@lru_cache(maxsize=WORD_CACHE_SIZE)
def _surface_key(match: tuple[str, str]) -> str:
    number, word = match
    if number:
        return normalise_number(number)
    lower = word.casefold()
    if lower in _NUMBER_WORDS and lower not in _AMBIGUOUS_NUMBER_WORDS:
        return _NUMBER_WORDS[lower]
    return fold(word)


def _opens_after_colon_or_bullet(text: str, previous_end: int, start: int) -> bool:
    gap = text[max(previous_end, 0) : start]
    return previous_end < 0 or any(c in gap for c in ":\n•*")


_NEGATION = re.compile(r"\b(?:not|no|never|none|nobody|nothing|neither|nor|without|cannot)\b|n't\b", re.I)


def has_negation(text: str) -> bool:
    """Whether ``text`` negates something ("not", "never", "no", "n't", "without", ...)."""
    return _NEGATION.search(text.replace("\u2019", "'")) is not None
