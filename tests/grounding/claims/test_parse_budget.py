"""A long text is parsed a piece at a time with the budget checked between pieces: one spaCy call,
which no budget check reaches, never holds more than PIECE_CHARS characters or PIECE_TOKENS tokens."""

from __future__ import annotations

from typing import Any

import pytest
from deadline_clock import DeadlineClock

from trustscore._errors import BudgetExceeded
from trustscore.compute._deadline import Deadline, bound
from trustscore.grounding.claims._pipeline import PIECE_CHARS, PIECE_TOKENS, Pipeline, pieces

SENTENCE = "The museum opened in 1998 after a long renovation. "
LONG = SENTENCE * (5 * PIECE_CHARS // len(SENTENCE))


def test_pieces_rejoin_into_the_text_and_end_at_sentence_ends() -> None:
    parts = pieces(LONG)
    assert "".join(parts) == LONG and len(parts) >= 5
    assert all(len(p) <= PIECE_CHARS for p in parts)
    assert all(p.endswith(". ") for p in parts)
    assert pieces("short text.") == ["short text."]
    assert "".join(pieces("x" * (3 * PIECE_CHARS))) == "x" * (3 * PIECE_CHARS)  # no break: hard cuts


BRACKETS = "([" * 100_000  # every character is a token: 5,000 characters are 5,000 tokens


def test_text_of_punctuation_is_cut_by_tokens_as_well_as_characters() -> None:
    parts = pieces(BRACKETS)
    assert "".join(parts) == BRACKETS
    assert all(len(p) <= PIECE_TOKENS for p in parts) and len(parts) == -(-len(BRACKETS) // PIECE_TOKENS)
    prose = pieces(LONG)
    assert all(len(p) > PIECE_CHARS - len(SENTENCE) for p in prose[:-1]), "prose is still cut by characters"


class SlowParser:
    """Stands in for spaCy: each call takes ``per_token`` s per token (by default 2 s a call) of the
    deadline's (test-moved) clock."""

    def __init__(self, clock: DeadlineClock, per_token: float | None = None) -> None:
        self.clock = clock
        self.per_token = per_token
        self.calls: list[int] = []

    def __call__(self, text: str) -> Any:
        self.calls.append(len(text))
        self.clock.advance(2.0 if self.per_token is None else self.per_token * len(text))
        return text


def test_a_row_of_brackets_ends_within_one_bounded_piece_of_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """2 ms per token, as spaCy took for a 5,000-token piece of brackets on the loaded box: one piece
    of 5,000 characters ran 10 s, twice a 5 s budget; a piece of PIECE_TOKENS runs 3 s."""
    clock = DeadlineClock(monkeypatch)
    pipeline = Pipeline.__new__(Pipeline)
    parser = SlowParser(clock, per_token=0.002)
    pipeline._nlp = parser  # type: ignore[assignment]
    began = clock.monotonic()
    with bound(Deadline(5.0)), pytest.raises(BudgetExceeded):
        pipeline.parse(BRACKETS)
    assert clock.monotonic() - began <= 5.0 + PIECE_TOKENS * 0.002
    assert max(parser.calls) <= PIECE_TOKENS


def test_a_long_text_stops_at_the_budget_between_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = DeadlineClock(monkeypatch)
    pipeline = Pipeline.__new__(Pipeline)
    parser = SlowParser(clock)
    pipeline._nlp = parser  # type: ignore[assignment]
    with bound(Deadline(5.0)), pytest.raises(BudgetExceeded):
        pipeline.parse(LONG)
    assert len(parser.calls) == 3  # 0, 2, 4 s: parsed; at 6 s the check stops it
    assert max(parser.calls) <= PIECE_CHARS


def test_a_long_text_parses_into_one_doc_of_the_whole_text(claims_check: Any) -> None:
    text = ("Ada Brook founded Zorblax in 1999. It had 40 staff in 2001.\n" * 400)[: PIECE_CHARS + 2_000]
    doc = claims_check.pipeline.parse(text)
    assert doc.text == text
    assert len(list(doc.sents)) == len(list(claims_check.pipeline.nlp()(text).sents))
