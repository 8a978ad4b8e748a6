"""A date the context never states, in a sentence worded anew, decides with the default offline
configuration: a summary that moves the vote to another day is flagged (score < 0.5) while faithful
rewordings pass, and a date that points from the day of writing ("this week") counts for nothing; a
refusal that names what the passage lacks is an abstention, not an error."""

from __future__ import annotations

from functools import cache

import pytest

import trustscore as ts

pytest.importorskip("spacy", reason="the claims signal needs the claims extra")

CONTEXT = (
    "HARTWELL — The Hartwell City Council voted 5-2 on Tuesday, March 12, to approve a $4.8 million plan to "
    "build protected bike lanes along Grant Avenue and Mill Street. The project, championed by "
    "Councilmember Denise Okafor, will add 6.5 miles of separated lanes over the next two years. About 60% "
    "of the funding will come from a state transportation grant, with the remainder drawn from the city's "
    "capital reserve."
)
QUESTION = "Summarize the article."


@cache
def scorer() -> ts.Scorer:
    return ts.Scorer(ts.Config())


def score(response: str, question: str = QUESTION, context: str = CONTEXT) -> ts.TrustScore:
    return scorer().score_sync(question=question, context=[context], response=response)


@pytest.mark.parametrize(
    "summary",
    [
        "Hartwell's council approved a $4.8 million plan for protected bike lanes on Grant Avenue and Mill "
        "Street by a 5-2 vote on March 12.",
        "The council backed Denise Okafor's $4.8 million bike lane plan this week, adding 6.5 miles of "
        "separated lanes over two years.",
    ],
)
def test_a_faithful_rewording_passes(summary: str) -> None:
    result = score(summary)
    assert result.score is not None and result.score >= 0.5, (result.score, result.reason)


def test_a_moved_date_the_context_never_states_is_flagged() -> None:
    result = score(
        "Hartwell's council approved a $4.8 million plan for protected bike lanes on Grant Avenue and Mill "
        "Street by a 5-2 vote on March 21."
    )
    claims = result.signals["claims"]
    assert isinstance(claims.raw, dict) and claims.raw["contradicted"] == 0
    assert claims.raw["unsupported_dates"] == 1
    assert result.score is not None and result.score < 0.5, (result.score, result.reason)


def test_a_refusal_naming_what_the_passage_lacks_is_an_abstention() -> None:
    result = score("The passage does not say how many books she wrote.", "How many books did she write?")
    assert result.abstained and result.score is not None and result.score >= 0.5
