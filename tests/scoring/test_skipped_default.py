"""A signal on by default whose extra is not installed (claims, with a plain install) is skipped: said
once, with how to add it, and no result is degraded for it. Named in the config, it stays a missing
signal with its reason."""

from __future__ import annotations

import dataclasses
import io
import logging
from pathlib import Path
from typing import Any

import pytest
from scorer_fakes import install_fake_grounding

from trustscore import Config, Scorer
from trustscore.rows import ScoreRunSummary
from trustscore.scoring import _wiring
from trustscore.signals import _registry, registered_signals

pytestmark = pytest.mark.anyio

SAMPLE = {"question": "How long is it?", "context": ["It is 140 metres long."], "response": "140 metres."}
HINT = "pip install '/path/to/trustscore[claims]'"


@pytest.fixture(autouse=True)
def claims_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    install_fake_grounding(monkeypatch)

    def build(config: Any, ctx: Any) -> Any:
        raise ImportError("No module named 'spacy'")

    claims = dataclasses.replace(registered_signals()["claims"], on_by_default=True, build=build)
    monkeypatch.setitem(_registry._REGISTRY, "claims", claims)
    monkeypatch.setattr(_wiring, "_said_skipped", set())


async def test_the_default_skips_it_says_so_once_and_degrades_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="trustscore"):
        first, second = Scorer(Config()), Scorer(Config())
    said = [r.getMessage() for r in caplog.records if "claims" in r.getMessage()]
    assert len(said) == 1 and HINT in said[0] and "it is skipped" in said[0]
    assert first.signal_names == ["lexical", "embedding"] and HINT in second.skipped["claims"]
    result = await first.score(**SAMPLE)
    assert result.degraded is False and "claims" not in result.signals


async def test_named_in_the_config_it_stays_missing_with_its_reason() -> None:
    scorer = Scorer(Config.from_dict({"signals": {"claims": {}}}))
    assert "claims" in scorer.signal_names and scorer.skipped == {}
    result = await scorer.score(**SAMPLE)
    assert result.degraded is True and HINT in result.missing["claims"]


def test_the_cli_summary_prints_the_install_hint_whole() -> None:
    """rich must not read '[claims]' as markup and drop it."""
    scorer = Scorer(Config())
    summary = ScoreRunSummary(output=Path("out.jsonl"), skipped_signals=scorer.skipped)
    summary.degraded, summary.scored = 1, 1
    summary.missing_reasons = {f"claims: install it with {HINT}": 1}
    out = io.StringIO()
    summary.print(out)
    lines = [line for line in out.getvalue().splitlines() if "claims" in line]
    assert len(lines) == 2 and all(HINT in line for line in lines)
    assert lines[1].startswith("not run: claims signal is on by default but not installed")


def test_named_in_a_cascade_stage_it_is_asked_for_too() -> None:
    stages = [
        {"name": "local", "signals": ["lexical", "embedding"]},
        {"name": "claims", "signals": ["claims"], "always": True},
    ]
    scorer = Scorer(Config.from_dict({"cascade": {"stages": stages}}))
    assert "claims" in scorer.unavailable and scorer.skipped == {}
