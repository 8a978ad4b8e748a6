"""Sentence splitting, word kinds and match keys used by the grounding signals."""

from __future__ import annotations

import json

import pytest

from trustscore.grounding._text import (
    Piece,
    context_units,
    fold,
    normalise_number,
    split_long,
    split_sentences,
    support_keys,
    words,
)


def test_sentences_keep_exact_offsets_and_skip_abbreviations() -> None:
    text = "  Dr. Smith paid $4.50 in the U.S. today.  He left!\nNext line without stop"
    pieces = split_sentences(text)
    assert [p.text for p in pieces] == [
        "Dr. Smith paid $4.50 in the U.S. today.",
        "He left!",
        "Next line without stop",
    ]
    for p in pieces:
        assert text[p.start : p.end] == p.text


def test_sentences_of_blank_or_punctuation_only_text_are_empty() -> None:
    assert split_sentences("") == []
    assert split_sentences(" ... !!! \n ") == []


def test_split_long_windows_keep_offsets() -> None:
    text = "x " * 5 + "one two three four five six seven"
    piece = split_sentences(text)[0]
    parts = split_long(piece, 4)
    assert len(parts) == 3
    for p in parts:
        assert text[p.start : p.end] == p.text
        assert len(p.text.split()) <= 4
    assert split_long(Piece(0, 3, "abc"), 10) == [Piece(0, 3, "abc")]
    with pytest.raises(ValueError, match="max_words"):
        split_long(piece, 0)


@pytest.mark.parametrize(
    ("surface", "key"),
    [
        ("1,000", "1000"),
        ("1000", "1000"),
        ("4.0", "4"),
        ("2.50", "2.5"),
        ("3rd", "3"),
        ("007", "7"),
        ("0", "0"),
    ],
)
def test_number_normalisation(surface: str, key: str) -> None:
    assert normalise_number(surface) == key


def test_number_words_match_digits() -> None:
    keys = {w.text: w.key for w in words("He has five cats and twenty dogs, the third one.")}
    assert keys["five"] == "5" and keys["twenty"] == "20" and keys["third"] == "3"
    kinds = {w.text: w.kind for w in words("He has five cats and 1,200 dogs")}
    assert kinds["five"] == "number" and kinds["1,200"] == "number" and kinds["cats"] == "word"


def test_names_are_capitalised_words_not_opening_a_sentence() -> None:
    ws = {w.text: w.kind for w in words("Yesterday Barack Obama met NASA staff. Officials smiled.")}
    assert ws["Barack"] == "name" and ws["Obama"] == "name" and ws["NASA"] == "name"
    assert ws["Yesterday"] == "word" and ws["Officials"] == "word" and ws["staff"] == "word"


def test_stopwords_and_list_markers_are_skipped() -> None:
    found = [w.text for w in words("Reasons:\n1. The food is good\n2) It is cheap at 5 dollars")]
    assert found == ["Reasons", "food", "good", "cheap", "5", "dollars"]


def test_connectives_prepositions_and_contracted_function_words_claim_nothing() -> None:
    text = "Therefore, despite the rain, everyone came. Here's why it's fine: they'll stay. Ann's dog didn't."
    found = [w.text for w in words(text)]
    assert found == ["rain", "came", "fine", "stay", "Ann's", "dog", "didn't"]


def test_fold_unifies_inflections() -> None:
    assert fold("reported") == fold("reports") == fold("reporting") == fold("Report")
    assert fold("studies") == fold("studied") == "study"
    assert fold("Obama's") == "obama"
    assert fold("business") == "business"


def test_support_keys_understand_identifiers_dates_and_clock_times() -> None:
    keys = support_keys(
        '{"BusinessParking": true, "RestaurantsTakeOut": true, "WiFi": "free", '
        '"review_date": "2022-01-09", "Monday": "17:30-23:0", "Sunday": "9:0-14:0"}'
    )
    assert {"business", "park", "takeout", "wifi", "january", "2022", "5", "11", "2", "pm", "am"} <= keys


def test_context_units_flatten_json_records() -> None:
    record = {
        "name": "Finch & Fork",
        "attributes": {"WiFi": "free", "Music": False},
        "categories": ["Bars", "Brunch"],
        "review": "What a great brunch we had there with the whole family today. We will come back soon.",
    }
    units = context_units(json.dumps(record))
    assert "name: Finch & Fork" in units
    assert "attributes WiFi: free" in units and "attributes Music: no" in units
    assert "categories: Bars, Brunch" in units
    assert units[-2].startswith("review: What a great brunch") and units[-1] == "We will come back soon."
    assert context_units("Plain text. Two sentences.") == ["Plain text.", "Two sentences."]
    assert context_units("{not json. really}") == ["{not json.", "really}"]


def test_a_year_opening_an_answer_is_a_number_not_a_list_marker() -> None:
    def digits(text: str) -> list[str]:
        return [w.text for w in words(text) if w.kind == "number" and w.text.isdigit()]

    assert digits("1997. That is when the river was mapped.") == ["1997"]
    assert digits("1. That is when the river was mapped.") == []


def test_fold_reads_a_british_spelling_as_the_american_one() -> None:
    assert fold("colours") == fold("Colors") == fold("colour")
    assert fold("organisation's") == fold("organization")
    assert fold("licence") == fold("license")
    assert fold("colourless") != fold("color")  # a word the table does not list keeps its own key
