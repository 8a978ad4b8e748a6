"""English word frequencies with wordfreq's answers, from a table shipped inside trustscore.

``data/wordfreq_en.bin`` is wordfreq's English list (``large_en``, CC-BY-SA 4.0: ``data/NOTICE-wordfreq.md``)
built by ``python scripts/build_word_table.py`` (its docstring gives the format): the words sorted by
their UTF-8 bytes, with each word's frequency bucket and its rank, plus the token pattern and curly
quotes of wordfreq's English lookup. The file is read once per process (a few milliseconds, no
object per word); a lookup is a binary search over the sorted bytes, so an answer never rests on a hash.

:func:`zipf_frequency` follows ``wordfreq.zipf_frequency(word, "en")`` step for step (NFC, case folding,
the token pattern, straight quotes, multi-digit sequences looked up as zeros and weighed by wordfreq's
digit model, 1/f summed over tokens, three significant digits) and returns the same float; :func:`rank`
is a word's index in ``wordfreq.top_n_list("en", n)``. tests/grounding/test_word_frequency.py checks
both against wordfreq where it is installed. Used by lexical support's word weights and by ReDeEP's
concept filtering.
"""

from __future__ import annotations

import json
import math
import struct
import threading
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["TABLE", "rank", "table_source", "zipf_frequency"]

TABLE = Path(__file__).parent / "data" / "wordfreq_en.bin"
_MAGIC = b"trustscore-words/1\n"
_MINIMUM = 1e-9  # wordfreq's zipf_to_freq(0.0): the frequency of a word it does not know


@dataclass(frozen=True)
class _Table:
    blob: bytes
    """Every word's UTF-8 bytes, end to end, the words sorted by those bytes."""
    ends: memoryview
    """uint32 per word: where its bytes end in ``blob`` (they start where the previous word's end)."""
    buckets: memoryview
    """uint16 per word: its frequency is 10 ** (-bucket / 100)."""
    ranks: memoryview
    """int32 per word: its index among the list's words without a digit sequence, or -1."""
    token_re: Any
    """wordfreq's English token pattern, compiled with ``regex``."""
    quotes: tuple[Any, Any]
    """Curly double and single quotes, straightened in every token."""
    source: str

    def find(self, word: str) -> int:
        """The index of ``word`` in the table, or -1."""
        key = word.encode("utf-8", "surrogatepass")
        blob, ends = self.blob, self.ends
        lo, hi = 0, len(ends)
        while lo < hi:
            mid = (lo + hi) // 2
            here = blob[(ends[mid - 1] if mid else 0) : ends[mid]]
            if here < key:
                lo = mid + 1
            elif here > key:
                hi = mid
            else:
                return mid
        return -1


_table: _Table | None = None
_loading = threading.Lock()


def _load() -> _Table:
    """Read the table file (once per process, under a lock)."""
    global _table
    with _loading:
        if _table is None:
            _table = _read(TABLE)
        return _table


def _read(path: Path) -> _Table:
    import regex

    if not path.is_file():
        raise FileNotFoundError(
            f"the word table {path} is missing: it is built when trustscore is installed (pip install, "
            "bash scripts/setup); in a checkout used without installing, run "
            "python scripts/build_word_table.py"
        )
    data = path.read_bytes()
    if not data.startswith(_MAGIC):
        raise ValueError(f"{path} is not a trustscore word table: reinstall trustscore")
    at = len(_MAGIC)
    (size,) = struct.unpack_from("<I", data, at)
    header = json.loads(data[at + 4 : at + 4 + size])
    body = memoryview(data)[at + 4 + size :]

    def array(name: str) -> memoryview:
        dtype, count, offset = header["arrays"][name]
        width = int(dtype[2:])
        return body[offset : offset + count * width]

    for name, dtype in (("ends", "<u4"), ("buckets", "<u2"), ("ranks", "<i4")):
        if (found := header["arrays"][name][0]) != dtype:
            raise ValueError(f"{path}: {name} is {found}, not {dtype}: reinstall trustscore")
    return _Table(
        blob=bytes(array("blob")),
        ends=array("ends").cast("I"),
        buckets=array("buckets").cast("H"),
        ranks=array("ranks").cast("i"),
        token_re=regex.compile(header["token_pattern"], header["token_flags"]),
        quotes=(regex.compile(header["double_quotes"]), regex.compile(header["single_quotes"])),
        source=header["source"],
    )


def table_source() -> str:
    """The wordfreq release the table was built from (in the lexical signal's cache identity)."""
    return _load().source


def _tokens(table: _Table, text: str) -> list[str]:
    """wordfreq's English ``lossy_tokenize``: NFC, case folding, the token pattern (tokens lose their
    outer apostrophes and are folded again), curly quotes made straight."""
    text = unicodedata.normalize("NFC", unicodedata.normalize("NFC", text).casefold())
    double, single = table.quotes
    return [
        single.sub("'", double.sub('"', token.strip("'").casefold()))
        for token in table.token_re.findall(text)
    ]


_MULTI_DIGIT = r"\d[\d.,]+"


@cache
def _digits() -> tuple[Any, Any, Any]:
    import regex

    return regex.compile(_MULTI_DIGIT), regex.compile(r"\d+"), regex.compile(r"\d")


_BENFORD = (0.009, 0.300, 0.175, 0.124, 0.096, 0.078, 0.066, 0.057, 0.050, 0.045)
"""wordfreq's share of each leading digit (0-9) among digit sequences."""


def _benford(digits: str) -> float:
    return _BENFORD[int(digits[0])] / 10 ** (len(digits) - 1)


def _year(digits: str) -> float:
    """wordfreq's estimate for a 4-digit sequence: a year's share peaks up to 2019, stays flat for 20
    years, then falls; plus a tenth of the sequence's Benford share (it may be no year)."""
    year = int(digits)
    if year <= 2019:
        log_share = -1.9185 - 0.0083 * (2019 - year)
    elif year <= 2039:
        log_share = -1.9185
    else:
        log_share = -1.9185 - 0.2 * (year - 2039)
    return 10.0**log_share + 0.1 * _benford(digits)


def _digit_share(token: str) -> float:
    """How common a token's digit sequences are, by wordfreq's model (1.0 without any)."""
    multi, pure, _ = _digits()
    share = 1.0
    for found in multi.findall(token):
        for digits in pure.findall(found):
            share *= _year(digits) if len(digits) == 4 else _benford(digits)
    return share


def _smash(token: str) -> str:
    """Every multi-digit sequence's digits as zeros, as wordfreq's list stores numbers."""
    multi, _, digit = _digits()
    return multi.sub(lambda m: digit.sub("0", m.group(0)), token)


def zipf_frequency(word: str) -> float:
    """``wordfreq.zipf_frequency(word, "en")``, from the shipped table."""
    return round(math.log(_word_frequency(_load(), word), 10) + 9, 2)


def _word_frequency(table: _Table, word: str) -> float:
    """wordfreq's ``_word_frequency`` for English: frequencies of several tokens combine as
    1 / f = 1 / f1 + 1 / f2 + ...; one unknown token gives the minimum; 3 significant digits."""
    tokens = _tokens(table, word)
    if not tokens:
        return _MINIMUM
    one_over_result = 0.0
    for token in tokens:
        smashed = _smash(token)
        entry = table.find(smashed)
        if entry < 0:
            return _MINIMUM
        freq = 10 ** (-table.buckets[entry] / 100)
        if smashed != token:
            freq *= _digit_share(token)
        one_over_result += 1.0 / freq
    unrounded = max(1.0 / one_over_result, _MINIMUM)
    leading_zeroes = math.floor(-math.log(unrounded, 10))
    return round(unrounded, leading_zeroes + 3)


def rank(word: str) -> int | None:
    """``word``'s index in ``wordfreq.top_n_list("en", n)`` for any large enough n; None when absent."""
    table = _load()
    entry = table.find(word)
    if entry < 0:
        return None
    r = table.ranks[entry]
    return None if r < 0 else r
