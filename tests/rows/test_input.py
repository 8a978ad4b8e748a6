"""``trustscore.read_jsonl``: the samples of a JSONL file for ``Scorer.stream``, extra fields kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scorer_fakes import FakeLocal

import trustscore
from trustscore import Config, InputError, Scorer
from trustscore.rows import parse_row, row_line


@pytest.mark.anyio
async def test_read_jsonl_streams_samples_into_the_scorer_with_their_extra_fields(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    rows = [
        {
            "id": "a",
            "question": "Who?",
            "context": "Herbert wrote Dune.",
            "response": "Herbert.",
            "hallucinated": 0,
        },
        {"question": "Who?", "context": ["Herbert wrote Dune."], "response": "Asimov.", "hallucinated": 1},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    samples = list(trustscore.read_jsonl(path))
    assert [s.metadata for s in samples] == [{"hallucinated": 0}, {"hallucinated": 1}]
    assert samples[0].id == "a" and samples[1].id and len(samples[1].id) == 16  # the content's hash
    scorer = Scorer(Config(), judges=[], local_signals=[FakeLocal("grounded", lambda s: 0.8)])

    async def score_all() -> list[float | None]:
        scores = []
        async with scorer, scorer.stream(trustscore.read_jsonl(path)) as results:
            async for _, result in results:
                scores.append(result.score)  # type: ignore[union-attr]
        return scores

    assert await score_all() == [pytest.approx(0.8)] * 2


def test_read_jsonl_names_a_bad_line_when_it_reaches_it(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text('{"question": "q", "response": "r"}\n\n{"question": "q"}\n', encoding="utf-8")
    samples = trustscore.read_jsonl(path)
    assert next(samples).response == "r"
    with pytest.raises(InputError, match=r"in.jsonl:3: .*response"):
        next(samples)


def test_a_row_parsed_here_is_written_back_as_strict_json() -> None:
    row = parse_row('{"question": "q", "response": "r", "weight": 0.5}', "in:1", 1)
    assert row.carried == {"weight": 0.5} and row.line == 1
    assert row_line({"id": "x", **row.carried}) == '{"id": "x", "trustscore": "result/1", "weight": 0.5}\n'
    with pytest.raises(ValueError):
        row_line({"id": "x", "weight": float("nan")})


def test_a_row_s_domain_names_the_adaptation_it_belongs_to() -> None:
    row = parse_row('{"question": "q", "response": "r", "domain": "support", "label": 1}', "in:1", 1)
    assert row.sample.domain == "support" and "domain" not in row.carried
    with pytest.raises(InputError, match="domain"):
        parse_row('{"question": "q", "response": "r", "domain": 3}', "in:2", 2)
    assert parse_row('{"question": "q", "response": "r"}', "in:3", 3).sample.domain is None
