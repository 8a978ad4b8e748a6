"""One invalid sample in a batch is that sample's error, not the batch's end, when the caller asks for
errors in place (``return_exceptions=True``); without it the batch still refuses bad input loudly."""

from __future__ import annotations

from typing import Any

import pytest
from scorer_fakes import FakeLocal

from trustscore import InputError, Scorer, TrustScore

pytestmark = pytest.mark.anyio


def samples() -> list[Any]:
    good = {"question": "Who wrote Dune?", "context": ["Frank Herbert wrote Dune."], "response": "Herbert."}
    return [
        {**good, "id": "a"},
        {**good, "id": "empty", "response": "   "},  # LLMs do return empty answers
        {**good, "id": "b"},
        {**good, "id": "typed", "question": 42},
        {**good, "id": "c"},
    ]


def scorer() -> Scorer:
    return Scorer(judges=[], local_signals=[FakeLocal("l", lambda s: 0.7)])


async def test_score_many_returns_each_invalid_sample_as_its_error_and_scores_the_rest() -> None:
    results = await scorer().score_many(samples(), return_exceptions=True)
    assert [type(r).__name__ for r in results] == [
        "TrustScore", "InputError", "TrustScore", "InputError", "TrustScore"
    ]
    assert "samples[1].response" in str(results[1]) and "empty" in str(results[1])
    assert "samples[3].question" in str(results[3])
    assert [r.sample_id for r in results if isinstance(r, TrustScore)] == ["a", "b", "c"]


async def test_stream_yields_each_invalid_sample_in_place_and_goes_on() -> None:
    async with scorer().stream(samples(), return_exceptions=True) as results:
        got = {index: result async for index, result in results}
    assert sorted(got) == [0, 1, 2, 3, 4]
    assert isinstance(got[1], InputError) and isinstance(got[3], InputError)
    assert all(isinstance(got[i], TrustScore) for i in (0, 2, 4))


async def test_without_return_exceptions_an_invalid_sample_still_raises_naming_it() -> None:
    with pytest.raises(InputError, match=r"samples\[1\]\.response"):
        await scorer().score_many(samples())
    with pytest.raises(InputError, match=r"samples\[1\]\.response"):
        async with scorer().stream(samples()) as results:
            async for _ in results:
                pass


async def test_one_sample_still_raises() -> None:
    with pytest.raises(InputError, match="response"):
        await scorer().score(question="q", context="c", response="")


def test_score_many_sync_passes_return_exceptions_through() -> None:
    results = scorer().score_many_sync(samples(), return_exceptions=True)
    assert [isinstance(r, InputError) for r in results] == [False, True, False, True, False]
