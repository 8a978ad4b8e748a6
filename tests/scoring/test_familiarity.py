"""Scorer.familiarity: the pre-generation check, before any response exists."""

from __future__ import annotations

import pytest

import trustscore as ts
from trustscore import Sample, Signal

pytestmark = pytest.mark.anyio


class _Familiarity:
    name = "familiarity"
    version = "test"

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def run(self, sample: Sample) -> Signal:
        return await self.familiarity(sample.question)

    async def familiarity(self, question: str) -> Signal:
        self.asked.append(question)
        return Signal(name=self.name, value=0.25, raw={"concepts": ["Zorblax"]}, version=self.version)


async def test_familiarity_asks_the_familiarity_source_with_the_question_only() -> None:
    source = _Familiarity()
    scorer = ts.Scorer(ts.Config(), local_signals=[source])
    signal = await scorer.familiarity("Who founded Zorblax?")
    assert signal.value == 0.25
    assert source.asked == ["Who founded Zorblax?"]


async def test_familiarity_off_is_a_clear_error() -> None:
    scorer = ts.Scorer(ts.Config(signals={"embedding": {"enabled": False}}))
    with pytest.raises(ValueError, match=r"checks a question alone: add \[signals\.familiarity\]"):
        await scorer.familiarity("Who founded Zorblax?")


async def test_familiarity_without_a_model_or_endpoint_is_missing_with_its_reason() -> None:
    config = ts.Config(
        signals={"lexical": {"enabled": False}, "embedding": {"enabled": False}, "familiarity": {}},
    )
    scorer = ts.Scorer(config)
    signal = await scorer.familiarity("Who founded Zorblax?")
    assert signal.value is None
    assert signal.error


def test_familiarity_endpoint_must_name_an_endpoint() -> None:
    with pytest.raises(ts.ConfigError, match=r"signals.familiarity.endpoint = 'gen'"):
        ts.Config.from_dict({"signals": {"familiarity": {"endpoint": "gen"}}})
