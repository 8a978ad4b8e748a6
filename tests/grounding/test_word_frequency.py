"""trustscore.grounding.word_frequency answers exactly what wordfreq answers, from compact arrays."""

from __future__ import annotations

import random

import pytest

wordfreq = pytest.importorskip("wordfreq")

from trustscore.grounding import word_frequency  # noqa: E402


@pytest.fixture(scope="module")
def listed() -> list[str]:
    return [w for bucket in wordfreq.get_frequency_list("en") for w in bucket]


def test_zipf_frequency_equals_wordfreq(listed: list[str]) -> None:
    rng = random.Random(7)
    words = rng.sample(listed, 5000) + [w.upper() for w in rng.sample(listed, 500)]
    words += [w + "qz" for w in rng.sample(listed, 500)]  # mostly unlisted: the minimum
    words += ["", " ", "The", "don't", "it’s", "1998", "3.14", "1,000,000", "covid-19", "42nd", "foo bar",
              "hello world again", "xqzzyvw", "Ünïcödé", "日本", "x" * 300, "\ud800"]
    for w in words:
        assert word_frequency.zipf_frequency(w) == wordfreq.zipf_frequency(w, "en"), w


def test_rank_is_the_index_in_top_n_list(listed: list[str]) -> None:
    top = wordfreq.top_n_list("en", 20000)
    for i, w in enumerate(top):
        assert word_frequency.rank(w) == i
    numbered = [w for w in listed if wordfreq.numbers.has_digit_sequence(w)]
    assert numbered, "the list has digit-sequence words (top_n_list leaves them out)"
    assert all(word_frequency.rank(w) is None for w in numbered[:200])
    assert word_frequency.rank("xqzzyvw") is None


def test_a_hash_collision_is_confirmed_byte_for_byte(monkeypatch: pytest.MonkeyPatch) -> None:
    """With every word hashing alike, lookups still find exactly the word asked for."""
    monkeypatch.setattr(word_frequency, "_table", None)
    monkeypatch.setattr(word_frequency, "hash", lambda word: len(word) % 3, raising=False)
    try:
        for w in ("the", "of", "vienna", "zebra", "1998"):
            assert word_frequency.zipf_frequency(w) == wordfreq.zipf_frequency(w, "en"), w
        assert word_frequency.zipf_frequency("xqzzyvw") == 0.0
        assert word_frequency.rank("the") == 0
    finally:
        monkeypatch.setattr(word_frequency, "_table", None)


def test_the_table_is_much_smaller_than_wordfreqs_objects() -> None:
    table = word_frequency._load()
    arrays = (table.hashes, table.order, table.ends, table.buckets, table.ranks)
    size = sum(a.nbytes for a in arrays) + len(table.blob)
    assert len(table.hashes) > 300_000
    assert size < 12 * 2**20, size
