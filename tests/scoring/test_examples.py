"""The shipped examples stay valid: configs parse, the sample file is good `trustscore score` input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from trustscore import Config
from trustscore.cli._score import read_input

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("name", ["trustscore.vllm.toml", "trustscore.openai.toml"])
def test_example_configs_parse(name: str) -> None:
    config = Config.from_toml(EXAMPLES / name)
    assert config.judges.enabled()
    assert all(j.endpoint in config.endpoints for j in config.judges.enabled().values())


def test_example_samples_are_valid_score_input() -> None:
    rows = read_input(EXAMPLES / "rag_samples.jsonl")
    assert len(rows) == 12
    labels = [r.carried["hallucinated"] for r in rows]
    assert 4 <= sum(labels) <= 8
    assert all(len(r.sample.context) >= 1 for r in rows)


@pytest.mark.slow
def test_quickstart_runs_offline() -> None:
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / "quickstart.py")],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    assert "score_sync:" in out.stdout and "ex12" in out.stdout


def test_example_samples_lie_inside_the_shipped_calibrators_domain_by_length() -> None:
    """A newcomer's first run must not warn on every row: the example's responses and contexts are as
    long as the shipped calibrator's data (its features are checked by tests/calibrators)."""
    import json

    from trustscore.fusion import FusionModel
    from trustscore.fusion._domain import LENGTHS

    shipped = Path(__file__).resolve().parents[2] / "trustscore" / "calibrators" / "local_multidomain.json"
    domain = FusionModel.from_json(shipped.read_text(encoding="utf-8")).domain
    assert domain is not None
    for row in read_input(EXAMPLES / "rag_samples.jsonl"):
        words = {
            "response_words": float(len(row.sample.response.split())),
            "context_words": float(len(row.sample.context_text.split())),
        }
        assert set(words) == set(LENGTHS)
        reasons = domain.check(words)
        assert reasons == [], (row.sample.id, reasons, json.dumps(words))


def test_the_offline_default_puts_each_example_on_its_side_of_the_line() -> None:
    """What a newcomer's first run shows: with the offline default (claims included) every faithful
    example scores at or above 0.5 and every hallucinated one under it, each with its reason."""
    pytest.importorskip("spacy", reason="the offline default's claims signal needs the claims extra")
    from trustscore import Scorer

    rows = read_input(EXAMPLES / "rag_samples.jsonl")
    scorer = Scorer(Config.from_dict({"cache": {"mode": "off"}}))
    results = scorer.score_many_sync([r.sample for r in rows])
    wrong = [
        f"{r.sample.id} {res.score:.3f} ({res.reason})"
        for r, res in zip(rows, results, strict=True)
        if res.score is None or (res.score >= 0.5) == r.carried["hallucinated"]
    ]
    assert not wrong, f"examples on the wrong side of 0.5: {wrong}"
