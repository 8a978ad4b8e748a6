"""pytest plugin registered through the ``pytest11`` entry point. Import-light; no autouse fixtures.

Fixtures:
- ``fake_vllm``: a started :class:`~trustscore.testing.FakeVLLMServer` answering every trustscore
  judge (:func:`~trustscore.testing.judge_policy`); set ``fake_vllm.policy`` to script it.
- ``fake_vllm_factory``: ``fake_vllm_factory(policy=None, *, models=..., latency=..., ...)`` starts
  more servers (all stopped after the test).
- ``trustscore_router``: a :class:`~trustscore.testing.MockRouter` (no sockets) for
  ``HttpBackend(endpoint, transport=trustscore_router.transport)``.
- ``trustscore_live_base_url``: the real server named by ``TRUSTSCORE_LIVE_BASE_URL``.

Marker: ``@pytest.mark.trustscore_live`` skips the test unless ``TRUSTSCORE_LIVE_BASE_URL`` is set.

Isolation: ``fake_vllm``, ``fake_vllm_factory`` and ``trustscore_router`` point the default response
cache (``$TRUSTSCORE_CACHE_DIR``) at a fresh temp dir for the test, so a fake's answers never reach
the user's cache nor a later test; a config that names ``[cache] directory`` itself keeps it. The
cache key also names the server (base_url), so two fakes in one test never share answers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from trustscore.testing._router import MockRouter
    from trustscore.testing._server import FakeVLLMServer

LIVE_ENV = "TRUSTSCORE_LIVE_BASE_URL"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"trustscore_live: needs a real vLLM server; skipped unless ${LIVE_ENV} is set"
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("trustscore_live") is not None and not os.environ.get(LIVE_ENV):
        pytest.skip(
            f"trustscore_live: set {LIVE_ENV} (e.g. http://127.0.0.1:8000/v1) to run against a real server"
        )


@pytest.fixture
def _trustscore_tmp_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh response-cache directory for this test, made the default for configs built in it."""
    from trustscore.llm._config import CACHE_DIR_ENV

    directory = tmp_path_factory.mktemp("trustscore-cache")
    monkeypatch.setenv(CACHE_DIR_ENV, str(directory))
    return directory


@pytest.fixture
def fake_vllm_factory(_trustscore_tmp_cache: Path) -> Iterator[Callable[..., FakeVLLMServer]]:
    """Start fake vLLM servers: ``fake_vllm_factory(policy, models=..., latency=..., max_model_len=...)``."""
    from trustscore.testing._server import FakeVLLMServer

    started: list[FakeVLLMServer] = []

    def make(policy: Any = None, **kwargs: Any) -> FakeVLLMServer:
        server = FakeVLLMServer(policy, **kwargs).start()
        started.append(server)
        return server

    try:
        yield make
    finally:
        with ExitStack() as stopping:  # every server stopped, the last first, though one stop raises
            for server in started:
                stopping.callback(server.stop)


@pytest.fixture
def fake_vllm(fake_vllm_factory: Callable[..., FakeVLLMServer]) -> FakeVLLMServer:
    """A started fake vLLM server on 127.0.0.1 answering every trustscore judge."""
    return fake_vllm_factory()


@pytest.fixture
def trustscore_router(_trustscore_tmp_cache: Path) -> MockRouter:
    """An in-process fake vLLM (``httpx.MockTransport``) answering every trustscore judge."""
    from trustscore.testing._router import MockRouter

    return MockRouter()


@pytest.fixture
def trustscore_live_base_url() -> str:
    """The base URL of a real OpenAI-compatible server (``$TRUSTSCORE_LIVE_BASE_URL``); skips when unset."""
    url = os.environ.get(LIVE_ENV)
    if not url:
        pytest.skip(f"set {LIVE_ENV} to run against a real server")
    return url
