"""The general word tables the claims checks read: WordNet's direct antonyms and pint's unit words."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

from trustscore.grounding.claims._lexicon import antonyms, base_forms, unit
from trustscore.grounding.claims._polarity import opposites

ANTONYMS_TSV = Path(__file__).resolve().parents[3] / "trustscore/grounding/claims/data/antonyms.tsv"


def test_wordnet_antonyms_are_symmetric_and_kept_apart_by_part_of_speech() -> None:
    assert "decrease" in antonyms("increase") and "increase" in antonyms("decrease")
    assert antonyms("guilty") == {"innocent"}
    assert "late" in antonyms("early", "a") and "late" in antonyms("early", "r")
    assert "failure" in antonyms("success") and not antonyms("success", "av")
    assert not antonyms("teacher") and not antonyms("")


def test_every_words_antonyms_are_the_tables_pairs_in_each_part_of_speech_and_any_set_of_them() -> None:
    pairs: dict[tuple[str, str], set[str]] = {}
    for line in ANTONYMS_TSV.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            one, two, pos = line.split("\t")
            pairs.setdefault((one, pos), set()).add(two)
            pairs.setdefault((two, pos), set()).add(one)
    assert len(pairs) > 6000
    ways = ["".join(c) for n in range(1, 5) for c in combinations("avrn", n)]
    for word in {word for word, _ in pairs}:
        for way in ways:
            expected = set().union(*(pairs.get((word, pos), set()) for pos in way))
            assert antonyms(word, way) == expected, (word, way)
            assert isinstance(antonyms(word, way), frozenset)


def test_a_predicates_opposites_are_the_listed_pairs_and_wordnets_adjectives() -> None:
    assert "small" in opposites("large")  # WordNet only
    assert "drop" in opposites("rise")  # the listed pairs only
    assert "failure" not in opposites("success")  # a noun is no predicate
    assert "go" in antonyms("come") and "go" not in opposites("come")  # too general a verb pair


def test_a_unit_is_one_however_it_is_written() -> None:
    assert unit("km") == unit("kilometre") == unit("kilometers") == "kilometer"
    assert unit("miles") == unit("mile") == "mile" != unit("km")
    assert unit("inches") == "inch" and unit("feet") == "foot"
    assert unit("%") == unit("percent") != unit("points")
    assert unit("hours") != unit("minutes") and unit("min") == unit("minute")


def test_a_common_word_or_a_single_letter_is_no_unit() -> None:
    assert [unit(w) for w in ("in", "at", "a", "m", "b", "pupils", "teachers", "")] == [None] * 8


def test_an_abbreviation_is_no_plural_of_a_single_letter_or_a_symbol() -> None:
    """pint's rule: a plural "s" is taken off a stem of two letters or more only, so "ms" is the
    millisecond (pint's prefix "m" and second), never the metre; "cs", "gs", "ds" are no units."""
    assert unit("ms") == unit("milliseconds") == unit("MS") == "millisecond" != unit("seconds")
    assert unit("ns") == "nanosecond" and unit("µs") == unit("μs") == "microsecond"
    assert unit("mm") == unit("millimetres") == "millimeter" and unit("kW") == unit("kilowatts")
    assert [unit(w) for w in ("cs", "gs", "ds", "hs", "%s", "ins", "mass")] == [None] * 7
    assert unit("mins") == "minute" and unit("hrs") == "hour" and unit("lbs") == "pound"


def test_pt_is_the_point_of_running_text_and_an_english_plural_takes_es_after_a_hiss() -> None:
    assert unit("pt") == unit("pts") == unit("points") == "point" != unit("pints") == "pint"
    assert unit("inches") == "inch" and unit("luxes") == "lux"
    assert unit("mines") is None and unit("tones") is None  # not "min" or "ton" plus "es"


def test_a_comparative_or_superlative_is_read_as_its_adjective() -> None:
    assert base_forms("later") == {"late"} and base_forms("longest") == {"long"}
    assert base_forms("closer") >= {"close"}
    assert not base_forms("late") and not base_forms("river")


def test_a_unit_per_unit_is_a_rate_as_pint_names_it() -> None:
    assert unit("km/h") == unit("kph") == unit("kilometer_per_hour") == "kilometer_per_hour"
    assert unit("mi/h") == unit("mph") == unit("miles/hour") == "mile_per_hour"
    assert unit("m/s") == "meter_per_second"  # a letter is a unit where the slash marks it as one
    assert unit("and/or") is None and unit("w/o") is None and unit("24/7") is None
