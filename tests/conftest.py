"""Fixtures shared by every test package."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def signal_registry() -> Iterator[None]:
    """Signals registered during the test are forgotten after it (plug-in discovery included)."""
    from trustscore import registry

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
