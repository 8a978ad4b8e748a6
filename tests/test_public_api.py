"""The promised public surface: exactly these names, each importable, with one version source."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

import pytest

import trustscore

PROMISED = {
    # scoring
    "Config", "Scorer", "score", "score_sync", "configure", "read_jsonl", "__version__",
    # data
    "Sample", "Signal", "Span", "TrustScore", "Usage",
    # writing signals
    "Judge", "JudgeConfig", "SignalConfig", "LocalSignal", "FamiliarityCheck", "SignalContext", "SignalSpec",
    "register_signal", "register_judge", "registered_signals",
    # models
    "LLM", "LLMClient", "from_openai",
    # fusion
    "Fuser", "FusedScore", "DefaultFuser",
    # errors
    "TrustscoreError", "ConfigError", "DegradedScoreError", "EndpointUnavailable", "InputError", "LLMError",
    "CalibratorError", "ProfileError", "ModelLoadError",
}  # fmt: skip


def test_the_public_names_are_exactly_the_promised_ones_and_all_resolve() -> None:
    assert set(trustscore.__all__) == PROMISED
    assert len(trustscore.__all__) == len(PROMISED)
    for name in trustscore.__all__:
        assert getattr(trustscore, name) is not None
    assert sorted(dir(trustscore)) == sorted(PROMISED)


def test_the_version_comes_from_the_distribution_metadata() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    assert trustscore.__version__ == pyproject["project"]["version"]


def test_from_openai_uses_the_clients_own_base_url() -> None:
    import openai

    client = openai.AsyncOpenAI(base_url="http://127.0.0.1:9/v1", api_key="sk-test")
    llm = trustscore.from_openai(client, "gpt-test", context_window=4096)
    assert llm.model == "gpt-test" and llm.flavour == "openai" and llm.context_window == 4096
    with pytest.raises(trustscore.ConfigError, match="from_openai: context_window"):
        trustscore.from_openai(client, "gpt-test", context_window=1)


@pytest.mark.parametrize(
    "package",
    ["trustscore.llm", "trustscore.fusion", "trustscore.fitting", "trustscore.testing", "trustscore.judges"],
)
def test_the_documented_subpackages_keep_their_promises(package: str) -> None:
    module = importlib.import_module(package)
    missing = [name for name in module.__all__ if getattr(module, name, None) is None]
    assert module.__all__ and missing == []
