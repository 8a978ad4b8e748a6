"""A mistyped setting gets a did-you-mean, as a mistyped JSONL field does (trustscore.core._names)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import trustscore
from trustscore import Config, ConfigError
from trustscore.rows import suggest_field


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (
            {"fusion": {"calibrater": "x.json"}},
            "fusion.calibrater: unknown setting: did you mean 'calibrator'?",
        ),
        ({"limts": {}}, "limts: unknown setting: did you mean 'limits'?"),
        (
            {"signals": {"claims": {"enabeld": False}}},
            "signals.claims.enabeld: unknown setting: did you mean 'enabled'?",
        ),
        (
            {"endpoints": {"j": {"base_url": "http://127.0.0.1:9/v1", "model": "m", "modle": "m"}}},
            "endpoints.j.modle: unknown setting: did you mean 'model'?",
        ),
        (
            {
                "endpoints": {"j": {"base_url": "http://127.0.0.1:9/v1", "model": "m"}},
                "judges": {"lynx": {"endpoint": "j", "timeout": 3}},
            },
            "judges.lynx.timeout: unknown setting: did you mean 'timeout_s'?",
        ),
    ],
)
def test_a_mistyped_setting_names_the_one_meant(data: dict[str, Any], line: str) -> None:
    with pytest.raises(ConfigError) as e:
        Config.from_dict(data)
    assert f"  {line}" in str(e.value).splitlines()


def test_a_setting_like_none_known_keeps_the_plain_message() -> None:
    with pytest.raises(ConfigError) as e:
        Config.from_dict({"fusion": {"zzzz": 1}})
    assert "  fusion.zzzz: unknown setting (check the spelling)" in str(e.value).splitlines()


def test_jsonl_fields_and_settings_share_the_rule() -> None:
    assert suggest_field("contexts") == "context" and suggest_field("answer") == "response"
    assert suggest_field("retrieved_contexts") == "context" and suggest_field("user_input") == "question"
    assert suggest_field("answer", present=["response"]) is None


def test_a_mistyped_setting_in_a_file_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """score() finds ./trustscore.toml by itself, so its error must say which file to fix."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRUSTSCORE_CONFIG", raising=False)
    (tmp_path / "trustscore.toml").write_text('[fusion]\ncalibrater = "mine.json"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        trustscore.score_sync(question="q?", context=["c."], response="r.")
    first, typo = str(e.value).splitlines()[:2]
    assert first == f"invalid trustscore config in {(tmp_path / 'trustscore.toml').resolve()}:"
    assert typo == "  fusion.calibrater: unknown setting: did you mean 'calibrator'?"


def test_a_mistyped_setting_in_pyproject_names_its_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRUSTSCORE_CONFIG", raising=False)
    (tmp_path / "pyproject.toml").write_text("[tool.trustscore.limts]\n", encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        trustscore.score_sync(question="q?", context=["c."], response="r.")
    pyproject = (tmp_path / "pyproject.toml").resolve()
    assert str(e.value).startswith(f"invalid trustscore config in {pyproject} [tool.trustscore]:\n")
    assert "  limts: unknown setting: did you mean 'limits'?" in str(e.value).splitlines()
