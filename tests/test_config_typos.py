"""A mistyped setting gets a did-you-mean, as a mistyped JSONL field does (trustscore.core._names)."""

from __future__ import annotations

from typing import Any

import pytest

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
            {"endpoints": {"j": {"base_url": "http://127.0.0.1:9/v1", "model": "m"}},
             "judges": {"lynx": {"endpoint": "j", "timeout": 3}}},
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
