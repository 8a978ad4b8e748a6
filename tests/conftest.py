"""Fixtures shared by every test package."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from lane_watch import LaneSubmissions
from scorer_fakes import FakeLLMClient, install_module


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
