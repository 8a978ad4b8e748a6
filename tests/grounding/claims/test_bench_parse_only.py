"""benchmarks.speed.claims_parse_only: the claims signal's floor parses every text it reads, each
context once however many answers share it, and checks nothing."""

from __future__ import annotations

from typing import Any

from benchmarks.speed import claims_parse_only
from trustscore._types import Sample


def test_parse_only_parses_each_answer_and_each_context_once_and_checks_nothing(
    claims_check: Any, monkeypatch: Any
) -> None:
    parsed: list[str] = []
    parse = claims_check.pipeline.parse

    def recorded(text: str) -> Any:
        parsed.append(text)
        return parse(text)

    monkeypatch.setattr(claims_check.pipeline, "parse", recorded)
    context = ["The parse-only floor reads a context of its own: founded in 1953 by Ruth Abara."]
    answers = ["It was founded in 1953.", "It was founded in 1935.", "Ruth Abara founded it."]
    samples = [Sample(question="Who founded it?", context=context, response=a) for a in answers]
    signals = [claims_parse_only.parse_only(claims_check, s) for s in samples]
    assert all(s.value is None and s.error == "parse only" for s in signals)
    assert parsed.count(samples[0].context_text) == 1
    assert parsed.count("Who founded it?") == 1
    assert all(parsed.count(a) == 1 for a in answers)
