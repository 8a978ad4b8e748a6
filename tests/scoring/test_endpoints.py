"""Endpoints: the LLMs a signal factory may ask for, built once and shared; what a factory sees of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from scorer_fakes import FakeLLM, FakeLLMClient

from trustscore import Config, ConfigError, EndpointUnavailable, SignalContext
from trustscore.scoring._endpoints import Endpoints

ENDPOINT = {"base_url": "http://127.0.0.1:9/v1", "model": "m"}


def test_an_endpoint_is_built_once_with_the_shared_cache_and_the_transport(
    fake_clients: list[FakeLLMClient], tmp_path: Path
) -> None:
    config = Config.from_dict(
        {"endpoints": {"a": ENDPOINT, "b": ENDPOINT}, "cache": {"directory": str(tmp_path)}}
    )
    transport: Any = object()
    ctx = Endpoints(config.endpoints, config.cache, transport=transport)
    assert ctx.llm("a") is ctx.llm("a") and ctx.llm("b") is not ctx.llm("a")
    assert [c.transport for c in fake_clients] == [transport, transport]
    assert fake_clients[0].cache is fake_clients[1].cache is ctx.cache is not None
    assert ctx.cache.config is config.cache and ctx.names == ["a", "b"]
    ctx.close_cache()
    assert ctx.cache.closed


def test_injected_llms_win_and_no_cache_is_built_when_it_is_off(fake_clients: list[FakeLLMClient]) -> None:
    mine = FakeLLM()
    config = Config.from_dict({"cache": {"mode": "off"}})
    ctx = Endpoints(config.endpoints, config.cache, llms={"mine": mine})
    assert ctx.llm("mine") is mine and ctx.cache is None and ctx.local_cache is None and fake_clients == []


def test_unknown_and_unusable_endpoints_are_config_errors(
    fake_clients: list[FakeLLMClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRUSTSCORE_TEST_NO_KEY", raising=False)
    config = Config.from_dict({"endpoints": {"keyed": {**ENDPOINT, "api_key_env": "TRUSTSCORE_TEST_NO_KEY"}}})
    ctx = Endpoints(config.endpoints, config.cache)
    with pytest.raises(ConfigError, match=r"endpoint 'nope' is neither under \[endpoints\] .*known: keyed"):
        ctx.llm("nope")
    with pytest.raises(EndpointUnavailable, match=r"\$TRUSTSCORE_TEST_NO_KEY, which is not set"):
        ctx.llm("keyed")
    assert fake_clients == []


def test_a_factory_sees_the_llms_by_name_and_the_local_cache_not_the_config() -> None:
    mine = FakeLLM()
    store: Any = object()
    ctx = SignalContext(llm={"mine": mine}.__getitem__, endpoint_names=["mine"], local_cache=lambda: store)
    assert ctx.llm("mine") is mine and ctx.endpoint_names == ["mine"] and ctx.local_cache is store
    assert not hasattr(ctx, "config")
    with pytest.raises(ConfigError, match=r"endpoint 'judge' is not available here .*\[endpoints\.judge\]"):
        SignalContext().llm("judge")
