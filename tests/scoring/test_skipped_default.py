"""A signal on by default whose extra is not installed (claims, with a plain install) is skipped: said
once, with how to add it, and no result is degraded for it: once per process to a library user (a
warning), once per run by the CLI (its summary's ``not run:`` line, no warning besides). Named in the
config, it stays a missing signal with its reason."""

from __future__ import annotations

import dataclasses
import io
import json
import logging
from pathlib import Path
from typing import Any

import anyio
import pytest
from scorer_fakes import install_fake_grounding

import trustscore
from trustscore import Config, Scorer
from trustscore.cli import main
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


def claims_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "claims" in r.getMessage()]


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


def test_the_cli_says_it_once_in_its_summary_with_the_install_hint(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.chdir(tmp_path)  # no trustscore.toml here: the offline default
    rows = tmp_path / "in.jsonl"
    rows.write_text("".join(json.dumps({"id": f"r{i}", **SAMPLE}) + "\n" for i in range(3)), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="trustscore"):
        status = main(["score", str(rows), "-o", str(tmp_path / "out.jsonl"), "--no-progress"])
    printed = capsys.readouterr()
    said = [line for line in (printed.out + printed.err).splitlines() if "claims" in line]
    assert status == 0 and claims_lines(caplog) == []  # no warning beside the summary's line
    assert (
        len(said) == 1 and said[0].startswith("not run: claims signal is on by default") and HINT in said[0]
    )
    results = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(results) == 3 and not any(r["degraded"] for r in results)


def test_a_library_user_gets_one_warning_per_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRUSTSCORE_CONFIG", raising=False)

    async def score_once() -> bool:
        return (await trustscore.score(**SAMPLE)).degraded

    with caplog.at_level(logging.WARNING, logger="trustscore"):
        degraded = [anyio.run(score_once), anyio.run(score_once)]  # a Scorer per event loop: two built
    said = claims_lines(caplog)
    assert degraded == [False, False]
    assert len(said) == 1 and HINT in said[0] and "it is skipped" in said[0]
