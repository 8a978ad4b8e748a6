"""trustscore.textmodels._word_frequency answers exactly what wordfreq answers, from the shipped table."""

from __future__ import annotations

import pytest

from trustscore.textmodels import _word_frequency as word_frequency


def test_the_table_answers_without_wordfreq() -> None:
    assert word_frequency.zipf_frequency("the") > 7.0
    assert word_frequency.zipf_frequency("xqzzyvw") == 0.0
    assert word_frequency.zipf_frequency("") == 0.0
    assert word_frequency.rank("the") == 0
    assert word_frequency.rank("xqzzyvw") is None
    assert word_frequency.table_source().startswith("wordfreq==")


def test_the_first_and_last_words_of_the_sorted_table_are_found() -> None:
    table = word_frequency._load()
    first = table.blob[: table.ends[0]].decode()
    last = table.blob[table.ends[len(table.ends) - 2] :].decode()
    assert table.find(first) == 0 and table.find(last) == len(table.ends) - 1
    assert table.find(first[:-1] if len(first) > 1 else "\x00") == -1


def test_a_table_file_of_another_format_is_refused(tmp_path: object) -> None:
    from pathlib import Path

    bad = Path(str(tmp_path)) / "words.bin"
    bad.write_bytes(b"not a table")
    with pytest.raises(ValueError, match="reinstall trustscore"):
        word_frequency._read(bad)


wordfreq = pytest.importorskip("wordfreq", reason="the reference the table is built from (dev extra)")


@pytest.fixture(scope="module")
def listed() -> list[str]:
    return [w for bucket in wordfreq.get_frequency_list("en") for w in bucket]


def test_the_shipped_table_is_what_the_build_command_makes_from_this_wordfreq() -> None:
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts" / "build_word_table.py"
    spec = importlib.util.spec_from_file_location("build_word_table", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert word_frequency.TABLE.read_bytes() == module.build(), "rerun scripts/build_word_table.py"


def test_zipf_frequency_equals_wordfreq(listed: list[str]) -> None:
    probes = listed[::97] + listed[-50:] + [
        "The", "DON'T", "don’t", "l'arc", "e-mail", "U.S.", "1998", "2024", "3.14", "12,000", "42nd",
        "naïve", "Ｆｕｌｌ", "ﬁne", "two words", "hello, world", "", "   ", "!!!", "xqzzyvw", "café",
        "Straße", "İstanbul", "東京", "😀", "word's", "'quoted'", "2050s", "$100", "A1", "10-12",
    ]  # fmt: skip
    for w in probes:
        assert word_frequency.zipf_frequency(w) == wordfreq.zipf_frequency(w, "en"), w


def test_rank_is_the_index_in_top_n_list(listed: list[str]) -> None:
    top = wordfreq.top_n_list("en", 20000)
    for i, w in enumerate(top):
        assert word_frequency.rank(w) == i
    numbered = [w for w in listed if wordfreq.numbers.has_digit_sequence(w)]
    assert numbered, "the list has numbers"
    assert all(word_frequency.rank(w) is None for w in numbered[:200])


def test_the_table_is_much_smaller_than_wordfreqs_objects() -> None:
    table = word_frequency._read(word_frequency.TABLE)
    size = len(table.blob) + table.ends.nbytes + table.buckets.nbytes + table.ranks.nbytes
    assert len(table.ends) > 300_000
    assert size < 8 * 2**20, size
