"""The school table: with the default offline configuration (lexical, embedding and claims, the shipped
claims calibrator), the context's own words and a correct paraphrase pass README's line (score >= 0.5)
and each answer with one fact changed is flagged (score < 0.5)."""

from __future__ import annotations

from functools import cache

import pytest

import trustscore as ts

pytest.importorskip("spacy", reason="the claims signal needs the claims extra")

CONTEXT = (
    "Westfield primary school was founded in 1953 by the teacher Ruth Abara. It has 420 pupils and 18 "
    "teachers. It has no swimming pool."
)
QUESTION = "What does the context say about Westfield primary school?"
FAITHFUL = {
    "verbatim": CONTEXT,
    "paraphrase": "The teacher Ruth Abara founded Westfield primary school in 1953; it has 18 teachers and "
    "420 pupils, and no swimming pool.",
}
WRONG = {
    "changed number": "Westfield primary school was founded in 1953 by the teacher Ruth Abara. It has 240 "
    "pupils and 18 teachers.",
    "changed date": "Westfield primary school was founded in 1935 by the teacher Ruth Abara. It has 420 "
    "pupils and 18 teachers.",
    "changed name": "Westfield primary school was founded in 1953 by the teacher Helen Marsh. It has 420 "
    "pupils and 18 teachers.",
    "polarity": "Westfield primary school has a swimming pool.",
}


@cache
def scorer() -> ts.Scorer:
    return ts.Scorer(ts.Config())


def score(response: str) -> ts.TrustScore:
    return scorer().score_sync(question=QUESTION, context=[CONTEXT], response=response)


def test_the_default_runs_the_claims_calibrator() -> None:
    result = score(FAITHFUL["verbatim"])
    assert "claims" in result.signals and result.fusion.startswith("calibrator:local_multidomain_claims")


@pytest.mark.parametrize("kind", sorted(FAITHFUL))
def test_a_faithful_answer_passes(kind: str) -> None:
    result = score(FAITHFUL[kind])
    assert result.score is not None and result.score >= 0.5, (kind, result.score)


@pytest.mark.parametrize("kind", sorted(WRONG))
def test_an_answer_with_one_fact_changed_is_flagged(kind: str) -> None:
    result = score(WRONG[kind])
    assert result.score is not None and result.score < 0.5, (kind, result.score, result.signals["claims"].raw)
