"""wordfreq's English list in compact arrays, with the same answers as wordfreq.

wordfreq keeps its list as Python objects: a list of ~321,000 ``str`` in frequency buckets plus a
dict of them to their frequency (~34 MiB resident for English, plus its own 100,000-entry answer
cache). Here the packed file is streamed once (never holding the words as objects) into numpy
arrays: the words' UTF-8 bytes end to end, and per word its 64-bit hash, offset, bucket and rank
(~9 MiB). A lookup finds the hash by binary search and confirms the word byte for byte, so an
answer never rests on a hash alone.

:func:`zipf_frequency` follows ``wordfreq.zipf_frequency(word, "en")`` step for step (wordfreq's
own tokenizer, number smashing and rounding; English has no inferred word breaks) and returns the
same float; :func:`rank` is a word's index in ``wordfreq.top_n_list("en", n)``. The tests check both
against wordfreq. Used by lexical support's word weights and by ReDeEP's concept filtering.
"""

from __future__ import annotations

import gzip
import math
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

__all__ = ["rank", "zipf_frequency"]

_NO_RANK = -1  # a word with a digit sequence: top_n_list leaves it out


@dataclass(frozen=True)
class _Table:
    hashes: np.ndarray
    """int64, sorted: ``hash(word)`` of each word (Python's str hash: valid in this process only)."""
    order: np.ndarray
    """int32: the list index of the word whose hash is ``hashes[i]``."""
    ends: np.ndarray
    """uint32 per word, in list order: where its bytes end in ``blob`` (they start where the previous end)."""
    buckets: np.ndarray
    """uint16 per word: its frequency is 10 ** (-bucket / 100)."""
    ranks: np.ndarray
    """int32 per word: its index among the list's words without a digit sequence, or -1."""
    blob: bytearray
    """Every word's UTF-8 bytes, end to end, in list order."""

    def find(self, word: str) -> int:
        """The list index of ``word``, or -1 when it is not in the list."""
        import numpy as np

        h = hash(word)
        i = int(np.searchsorted(self.hashes, h))
        encoded = word.encode("utf-8", "surrogatepass")
        while i < len(self.hashes) and self.hashes[i] == h:
            j = int(self.order[i])
            if self.blob[(int(self.ends[j - 1]) if j else 0) : int(self.ends[j])] == encoded:
                return j
            i += 1  # another word with the same hash
        return -1


_table: _Table | None = None
_loading = threading.Lock()


def _load() -> _Table:
    """Stream wordfreq's English pack into a :class:`_Table` (once per process, under a lock)."""
    global _table
    with _loading:
        if _table is None:
            _table = _build()
        return _table


def _build() -> _Table:
    """Read the pack a bucket at a time, so the ~321,000 words never exist as objects all at once."""
    from array import array

    import msgpack
    import numpy as np
    from wordfreq import available_languages

    hashes, lengths, buckets, digits = array("q"), array("I"), array("H"), array("b")
    blob = bytearray()
    with gzip.open(available_languages("best")["en"], "rb") as f:
        unpacker = msgpack.Unpacker(f, raw=False)
        items = unpacker.read_array_header()
        header = unpacker.unpack()
        if not isinstance(header, dict) or header.get("format") != "cB" or header.get("version") != 1:
            raise ValueError(f"wordfreq's English list has an unexpected header: {header!r}")
        for bucket in range(items - 1):
            words: list[str] = unpacker.unpack()  # one bucket's words at a time
            hashes.extend(map(hash, words))
            encoded = list(map(str.encode, words))
            blob += b"".join(encoded)
            lengths.extend(map(len, encoded))
            buckets.extend([bucket] * len(words))
            digits.extend(_digit_sequences(words))
    unsorted = np.frombuffer(hashes, dtype=np.int64)
    order = np.argsort(unsorted, kind="stable")
    listed = np.frombuffer(digits, dtype=np.int8) == 0
    return _Table(
        hashes=unsorted[order],
        order=order.astype(np.int32),
        ends=np.cumsum(np.frombuffer(lengths, dtype=np.uint32), dtype=np.uint32),
        buckets=np.frombuffer(buckets, dtype=np.uint16),
        ranks=np.where(listed, np.cumsum(listed, dtype=np.int32) - 1, _NO_RANK).astype(np.int32),
        blob=blob,
    )


def _digit_sequences(words: list[str]) -> list[int]:
    """1 for each word that wordfreq's ``has_digit_sequence`` flags, else 0: its pattern, anchored at
    line starts, run once over the words joined by newlines (it never matches a newline)."""
    import regex
    from wordfreq.numbers import MULTI_DIGIT_RE, has_digit_sequence

    joined = "\n".join(words)
    if joined.count("\n") != len(words) - 1:  # a word holds a newline: check each word
        return [int(has_digit_sequence(w)) for w in words]
    flags = [0] * len(words)
    at = last = 0
    for found in regex.finditer(r"(?m)^(?:" + MULTI_DIGIT_RE.pattern + ")", joined, MULTI_DIGIT_RE.flags):
        at += joined.count("\n", last, found.start())
        last = found.start()
        flags[at] = 1
    return flags


def _frequency(bucket: int) -> float:
    from wordfreq import cB_to_freq

    return cB_to_freq(-bucket)


def zipf_frequency(word: str) -> float:
    """``wordfreq.zipf_frequency(word, "en")``, from the compact table."""
    from wordfreq import freq_to_zipf, zipf_to_freq

    table = _load()
    minimum = zipf_to_freq(0.0)
    return round(freq_to_zipf(_word_frequency(table, word, minimum)), 2)


def _word_frequency(table: _Table, word: str, minimum: float) -> float:
    """wordfreq's ``_word_frequency`` for English: frequencies of several tokens combine as
    1 / f = 1 / f1 + 1 / f2 + ...; one unknown token gives ``minimum``; 3 significant digits."""
    from wordfreq import digit_freq, lossy_tokenize, smash_numbers

    tokens = lossy_tokenize(word, "en")
    if not tokens:
        return minimum
    one_over_result = 0.0
    for token in tokens:
        smashed = smash_numbers(token)
        entry = table.find(smashed)
        if entry < 0:
            return minimum
        freq = _frequency(int(table.buckets[entry]))
        if smashed != token:
            freq *= digit_freq(token)
        one_over_result += 1.0 / freq
    unrounded = max(1.0 / one_over_result, minimum)
    leading_zeroes = math.floor(-math.log(unrounded, 10))
    return round(unrounded, leading_zeroes + 3)


def rank(word: str) -> int | None:
    """``word``'s index in ``wordfreq.top_n_list("en", n)`` for any large enough n; None when absent."""
    table = _load()
    entry = table.find(word)
    if entry < 0:
        return None
    r = int(table.ranks[entry])
    return None if r == _NO_RANK else r
