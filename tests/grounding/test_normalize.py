"""Unicode tricks do not move the lexical signal: NFKC, no zero-width or bidi controls, Latin lookalikes
read as Latin inside Latin words; spans point into the original text."""

from __future__ import annotations

import pytest

from trustscore import Sample
from trustscore.grounding import LexicalSupport
from trustscore.grounding._normalize import normalize

CONTEXT = ["The Millennium Dome in Greenwich opened to the public in 1998 after two years of work."]
QUESTION = "When did the Millennium Dome open?"


def lexical(response: str) -> float:
    signal = LexicalSupport().score(Sample(question=QUESTION, context=CONTEXT, response=response))
    assert signal.value is not None
    return signal.value


@pytest.mark.parametrize(
    "spelling",
    ["１９９８", "19\u200b98", "\u202d1998\u202c", "19\u2060\u00ad98"],
    ids=["fullwidth", "zero-width space", "bidi override", "word joiner + soft hyphen"],
)
def test_a_year_written_with_unicode_tricks_scores_like_the_plain_year(spelling: str) -> None:
    plain = lexical("It opened in 1998.")
    assert lexical(f"It opened in {spelling}.") == plain
    assert plain > lexical("It opened in 1997.")


def test_a_cyrillic_o_in_a_latin_word_scores_like_the_latin_word() -> None:
    latin = "The Millennium Dome opened in Greenwich."
    tricked = latin.replace("Dome", "D\u043eme").replace("opened", "\u043epened")
    assert tricked != latin
    assert lexical(tricked) == lexical(latin)


def test_a_combining_accent_composes_like_the_precomposed_letter() -> None:
    context = ["The café opened in 1998."]
    one = LexicalSupport().score(Sample(question="q", context=context, response="The cafe\u0301 opened."))
    two = LexicalSupport().score(Sample(question="q", context=context, response="The café opened."))
    assert one.value == two.value


def test_spans_point_into_the_original_response() -> None:
    response = "It opened in １９９７ at Gre\u200benwich, built by Zеppelin\u200b Ltd."
    signal = LexicalSupport().score(Sample(question=QUESTION, context=CONTEXT, response=response))
    found = {span.text: (span.start, span.end) for span in signal.spans}
    for text, (start, end) in found.items():
        assert response[start:end] == text
    assert "１９９７" in found  # unsupported, reported as written
    assert "Zеppelin" in found  # a Cyrillic е in a Latin word, reported as written
    assert not any("Gre" in text for text in found)  # the zero-width space hid nothing


def test_whole_words_of_another_script_are_compared_as_themselves() -> None:
    assert normalize("Москва и Дубна").text == "Москва и Дубна"
    assert normalize("Frank wrоte").text == "Frank wrote"


def test_the_offset_map_of_folded_and_removed_characters() -> None:
    n = normalize("ﬁne\u200b１２")
    assert n.text == "fine12"
    assert n.original_span(0, 1) == (0, 1) and n.original_span(1, 2) == (0, 1)  # both halves of ﬁ
    assert n.original_span(4, 6) == (4, 6)  # past the removed zero-width space
    assert n.original_span(6, 6) == (6, 6)
    plain = normalize("plain ascii")
    assert plain.text == "plain ascii" and plain.original_span(6, 11) == (6, 11)
