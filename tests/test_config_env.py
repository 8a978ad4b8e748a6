"""TRUSTSCORE_* environment variables override the settings people change per deployment."""

from __future__ import annotations

from pathlib import Path

import pytest

from trustscore import Config, ConfigError
from trustscore._config import ENV_DEFAULTS, ENV_OVERRIDES

ENDPOINT = {"base_url": "http://127.0.0.1:9/v1", "model": "m"}


def test_each_documented_variable_overrides_its_setting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TRUSTSCORE_SCORE_BUDGET_S", "7.5")
    monkeypatch.setenv("TRUSTSCORE_MAX_CONCURRENT_SAMPLES", "3")
    monkeypatch.setenv("TRUSTSCORE_ENDPOINT_JUDGE_2_BASE_URL", "https://judges.internal/v1")
    toml = tmp_path / "trustscore.toml"
    toml.write_text(
        '[endpoints.judge-2]\nbase_url = "http://127.0.0.1:8000/v1"\nmodel = "m"\n'
        '[limits]\nscore_budget_s = 60\n[cache]\nmode = "read"\n'
    )
    config = Config.from_toml(toml)
    assert config.cache.mode == "read"
    assert config.limits.score_budget_s == 7.5 and config.limits.max_concurrent_samples == 3
    assert config.endpoints["judge-2"].base_url == "https://judges.internal/v1"
    assert config.endpoints["judge-2"].model == "m"
    assert Config().limits.score_budget_s == 7.5  # the code-built default config too
    assert set(ENV_OVERRIDES) | set(ENV_DEFAULTS) == {
        "TRUSTSCORE_CACHE_DIR",
        "TRUSTSCORE_SCORE_BUDGET_S",
        "TRUSTSCORE_MAX_CONCURRENT_SAMPLES",
        "TRUSTSCORE_ENDPOINT_<NAME>_BASE_URL",
    }


def test_the_cache_dir_variable_is_the_default_a_configured_folder_wins_over(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TRUSTSCORE_CACHE_DIR", str(tmp_path / "env"))
    assert Config().cache.directory == tmp_path / "env"
    toml = tmp_path / "trustscore.toml"
    toml.write_text('[cache]\ndirectory = "mine"\n')
    assert Config.from_toml(toml).cache.directory == tmp_path / "mine"


def test_an_override_of_a_section_given_as_a_model_keeps_its_other_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from trustscore._config import LimitsConfig

    monkeypatch.setenv("TRUSTSCORE_SCORE_BUDGET_S", "5")
    config = Config(limits=LimitsConfig(max_concurrent_samples=9))
    assert config.limits.score_budget_s == 5 and config.limits.max_concurrent_samples == 9


def test_bad_values_name_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRUSTSCORE_SCORE_BUDGET_S", "soon")
    with pytest.raises(
        ConfigError, match=r"limits\.score_budget_s \(from \$TRUSTSCORE_SCORE_BUDGET_S\): Input"
    ):
        Config.from_dict({})
    monkeypatch.delenv("TRUSTSCORE_SCORE_BUDGET_S")
    monkeypatch.setenv("TRUSTSCORE_ENDPOINT_E_BASE_URL", "ftp://x")
    with pytest.raises(ConfigError, match=r"endpoints\.e \(from \$TRUSTSCORE_ENDPOINT_E_BASE_URL\)"):
        Config.from_dict({"endpoints": {"e": ENDPOINT}})


def test_an_endpoint_variable_for_an_unknown_endpoint_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRUSTSCORE_ENDPOINT_JUDEG_BASE_URL", "http://127.0.0.1:1/v1")
    with pytest.raises(
        ConfigError, match=r"\$TRUSTSCORE_ENDPOINT_JUDEG_BASE_URL names endpoint 'JUDEG'.*known: judge"
    ):
        Config.from_dict({"endpoints": {"judge": ENDPOINT}})
