"""A response with no content word, number or name ("r", "It is.", "B") has nothing to check: every
grounding signal reports it missing with that reason, so the result is unscored instead of "supported
by the context" on a sentence match that compared the question (a short answer is embedded with it)."""

from __future__ import annotations

import pytest

import trustscore as ts
from trustscore import Sample
from trustscore.grounding._screen import unchecked

CONTEXT = "Westfield primary school was founded in 1953 by the teacher Ruth Abara. It has 420 pupils."
QUESTION = "When was Westfield primary school founded?"
NOTHING = ("nothing_to_check", "the response has no content words, numbers or names to check")


@pytest.mark.parametrize("response", ["r", "It is.", "B", "It has.", "...", "it was", "👍"])
def test_a_response_without_content_is_not_checked(response: str) -> None:
    assert unchecked(Sample(question=QUESTION, context=[CONTEXT], response=response)) == NOTHING


@pytest.mark.parametrize(
    "response",
    [
        "1953.",
        "The school.",
        "No.",
        "It is not.",
        "Ruth Abara",
        "In 1953, by Ruth Abara.",
        "是",
        "李",
        "東京",
    ],
)
def test_a_short_answer_with_a_number_name_or_word_is_checked(response: str) -> None:
    assert unchecked(Sample(question=QUESTION, context=[CONTEXT], response=response)) is None


def test_the_default_scorer_leaves_a_contentless_answer_unscored() -> None:
    pytest.importorskip("spacy", reason="the default configuration runs the claims signal")
    result = ts.Scorer(ts.Config()).score_sync(question=QUESTION, context=[CONTEXT], response="B")
    assert result.score is None and result.used_signals == []
    assert result.reason == f"unscored: lexical: {NOTHING[1]}"
    for signal in result.signals.values():
        assert signal.value is None and signal.raw == {"outcome": "nothing_to_check"}, signal
