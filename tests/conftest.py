"""Fixtures shared by every test package."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lane_watch import LaneSubmissions
from scorer_fakes import FakeLLMClient, install_module

from trustscore.llm._config import CACHE_DIR_ENV
from trustscore.testing.real_model import REAL_MODEL_DIR_ENV, default_real_model_dir

# No test reports usage to ONNX Runtime's or Ray's makers, including those that import onnxruntime or
# start a Ray themselves rather than through trustscore (the test kit's vLLM engine opts out itself).
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

_REAL_MODEL_DIR = str(default_real_model_dir())
"""Where the trained test model is, read before any test moves the cache home."""


def _move_user_folders(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache and config folders (XDG's) into ``home``, the trained model left where it is."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv(CACHE_DIR_ENV, str(home / "cache" / "trustscore" / "responses"))
    monkeypatch.setenv(REAL_MODEL_DIR_ENV, os.environ.get(REAL_MODEL_DIR_ENV) or _REAL_MODEL_DIR)


@pytest.fixture(scope="session", autouse=True)
def _session_caches(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Caches and settings that module- and session-wide fixtures write (before any one test's own)
    live in this run's temporary folder, never in the user's ~/.cache or ~/.config."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        _move_user_folders(tmp_path_factory.mktemp("session-home"), monkeypatch)
        yield


@pytest.fixture(autouse=True)
def _own_caches(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test writes its caches (responses, local signals, copying heads) and any tool's settings
    into a folder of its own: none touches the user's ~/.cache or ~/.config, and no test reads an
    answer another test or an earlier run left there."""
    _move_user_folders(tmp_path_factory.mktemp("home"), monkeypatch)


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def signal_registry() -> Iterator[None]:
    """Signals registered during the test are forgotten after it (plug-in discovery included)."""
    from trustscore.signals import _registry as registry

    registry._load()
    saved = dict(registry._REGISTRY), dict(registry._broken_entry_points)
    try:
        yield
    finally:
        registry._REGISTRY.clear()
        registry._REGISTRY.update(saved[0])
        registry._broken_entry_points.clear()
        registry._broken_entry_points.update(saved[1])
        registry._plugins_loaded = True


@pytest.fixture
def fake_clients(monkeypatch: pytest.MonkeyPatch) -> list[FakeLLMClient]:
    """LLMClient and ResponseCache replaced by recording fakes; returns the clients built."""
    FakeLLMClient.built = []
    install_module(monkeypatch, "trustscore.llm._client", LLMClient=FakeLLMClient)

    class ResponseCache:
        def __init__(self, config: Any) -> None:
            self.config = config
            self.closed = False

        def close(self) -> None:
            self.closed = True

    install_module(monkeypatch, "trustscore.llm._cache", ResponseCache=ResponseCache)
    return FakeLLMClient.built


@pytest.fixture
def lane_submissions(monkeypatch: pytest.MonkeyPatch) -> LaneSubmissions:
    """Counts requests submitted to the encoder lanes: ``.wait_for(n)`` blocks, ``await .reach(n)``."""
    return LaneSubmissions(monkeypatch)
