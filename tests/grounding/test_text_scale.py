"""Sentence splitting and word finding stay linear in the text length (they were quadratic)."""

from __future__ import annotations

import pytest

from trustscore._errors import BudgetExceeded
from trustscore.compute._deadline import Deadline, bound
from trustscore.grounding._text import split_sentences, support_keys, words

# Many dots, few line breaks: the shape that made the abbreviation look-back scan from the start.
PARAGRAPH = "Dr. Smith paid 1,200 dollars on Jan. 5. It rained in the U.S. that week, e.g. in Ohio. "


def test_split_sentences_on_300_kb_of_dotted_text() -> None:
    """The input that made the quadratic splitter take minutes (its speed is measured by
    benchmarks.speed.bench_budget, not asserted here)."""
    text = PARAGRAPH * (300_000 // len(PARAGRAPH))
    pieces = split_sentences(text)
    assert len(pieces) == 2 * (300_000 // len(PARAGRAPH))
    assert pieces[0].text == "Dr. Smith paid 1,200 dollars on Jan. 5."


@pytest.mark.parametrize(
    ("run", "sentences"),
    [("?" * 200_000, []), ("." * 200_000 + "x", ["." * 200_000 + "x"]), ("!?" * 100_000 + " end.", ["end."])],
)
def test_split_sentences_on_a_200_kb_run_of_end_marks(run: str, sentences: list[str]) -> None:
    """A run of end marks with no space after it ends no sentence, and one without a word is none; it
    was read from every one of its characters (quadratic: a minute for 80 KB)."""
    assert [p.text for p in split_sentences(run)] == sentences


def test_abbreviation_rules_survive_the_bounded_look_back() -> None:
    text = "See (e.g. page 3) now. A very-long-hyphenated-word-beyond-sixteen. Next one."
    assert [p.text for p in split_sentences(text)] == [
        "See (e.g. page 3) now.",
        "A very-long-hyphenated-word-beyond-sixteen.",
        "Next one.",
    ]
    assert [p.text for p in split_sentences("Word .Then more")] == ["Word .Then more"]


@pytest.mark.parametrize(
    "work",
    [
        lambda t: split_sentences(t),
        lambda t: words(t),
        lambda t: support_keys(t + " unique-key-for-the-cache"),
    ],
    ids=["split_sentences", "words", "support_keys"],
)
def test_text_work_stops_at_an_expired_deadline(work: object) -> None:
    text = PARAGRAPH * 5000
    deadline = Deadline(60)
    deadline.cancel()
    with bound(deadline), pytest.raises(BudgetExceeded):
        work(text)  # type: ignore[operator]
    work(text)  # type: ignore[operator]  # unbound: runs to the end
