"""docs/config.md is generated from the config models: it must match them, and errors point to it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from trustscore import Config, ConfigError
from trustscore._errors import CONFIG_REFERENCE

ROOT = Path(__file__).parents[1]
DOC = ROOT / CONFIG_REFERENCE
_spec = importlib.util.spec_from_file_location("gen_config_docs", ROOT / "scripts" / "gen_config_docs.py")
assert _spec is not None and _spec.loader is not None
gen_config_docs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen_config_docs)
render = gen_config_docs.render


def test_the_reference_is_up_to_date() -> None:
    assert DOC.read_text(encoding="utf-8") == render(), (
        "docs/config.md is stale: run python scripts/gen_config_docs.py"
    )


def test_check_says_whether_the_reference_is_stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert gen_config_docs.main(["--check"]) == 0
    monkeypatch.setattr(gen_config_docs, "render", lambda: "something else")
    assert gen_config_docs.main(["--check"]) == 1
    assert gen_config_docs.main(["--bogus"]) == 2


def test_the_reference_covers_every_section_and_the_environment() -> None:
    text = render()
    for heading in (
        "[endpoints.<name>]",
        "[judges.lynx]",
        "[signals.<name>]",
        "[signals.redeep]",
        "[signals.familiarity]",
        "[signals.lexical]",
        "[signals.embedding]",
        "[fusion]",
        "[cache]",
        "[limits]",
    ):
        assert f"[{heading[1:-1]}]" in text and f"# {heading}" in text, heading
    assert "| `score_budget_s` | float | `120.0` | overall deadline for one score()" in text
    assert "`TRUSTSCORE_ENDPOINT_<NAME>_BASE_URL` | `endpoints.<name>.base_url` | override" in text
    assert "`TRUSTSCORE_CACHE_DIR` | `cache.directory` | default" in text
    assert "- `lexical`: `[signals.lexical]`, on by default" in text
    assert "to write instead: `[grounding]`" in text and "`[whitebox]` (write" in text


def test_config_errors_point_to_the_reference() -> None:
    with pytest.raises(ConfigError, match=r"every setting is described in docs/config\.md"):
        Config.from_dict({"limits": {"score_budget": 3}})
