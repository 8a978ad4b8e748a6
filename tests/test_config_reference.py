"""docs/config.md is generated from the config models: it must match them, and errors point to it."""

from __future__ import annotations

from pathlib import Path

import pytest

from trustscore import Config, ConfigError
from trustscore.config_reference import render
from trustscore.errors import CONFIG_REFERENCE

DOC = Path(__file__).parents[1] / CONFIG_REFERENCE


def test_the_reference_is_up_to_date() -> None:
    assert DOC.read_text(encoding="utf-8") == render(), (
        "docs/config.md is stale: run python -m trustscore.config_reference > docs/config.md"
    )


def test_the_reference_covers_every_section_and_the_environment() -> None:
    text = render()
    for heading in (
        "[endpoints.<name>]",
        "[judges.lynx]",
        "[signals.<name>]",
        "[whitebox]",
        "[whitebox.redeep]",
        "[whitebox.familiarity]",
        "[grounding]",
        "[fusion]",
        "[cache]",
        "[limits]",
    ):
        assert f"[{heading[1:-1]}]" in text and f"# {heading}" in text, heading
    assert "| `score_budget_s` | float | `120.0` | overall deadline for one score()" in text
    assert "`TRUSTSCORE_ENDPOINT_<NAME>_BASE_URL` | `endpoints.<name>.base_url` | override" in text
    assert "`TRUSTSCORE_CACHE_DIR` | `cache.directory` | default" in text
    assert "- `lexical`: `[grounding]`" in text


def test_config_errors_point_to_the_reference() -> None:
    with pytest.raises(ConfigError, match=r"every setting is described in docs/config\.md"):
        Config.from_dict({"limits": {"score_budget": 3}})
