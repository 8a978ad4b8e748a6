"""A key pasted into ``api_key_env`` is refused, and never echoed by any error."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from trustscore.config import Config, ConfigError
from trustscore.llm.config import EndpointConfig

KEYS = [
    "sk-proj-Q3xTz81LmNaBcD4eFgH5iJkL",
    "hf_AbCdEf123456GhIjK789LmNoPq",
    "a1B2c3D4e5F6g7H8i9J0kLmNoPqRs",
    "0123456789abcdef0123456789abcdef0123",
]


@pytest.mark.parametrize("key", KEYS)
def test_a_key_in_api_key_env_is_refused_without_echoing_it(key: str) -> None:
    endpoint = {"base_url": "http://127.0.0.1:8000/v1", "model": "m", "api_key_env": key}
    data = {"endpoints": {"judge": endpoint}}
    with pytest.raises(ConfigError) as from_dict:
        Config.from_dict(data)
    with pytest.raises(ValidationError) as direct:
        EndpointConfig(base_url="http://127.0.0.1:8000/v1", model="m", api_key_env=key)
    with pytest.raises(ValidationError) as nested:
        Config.model_validate(data)
    for error in (from_dict.value, direct.value, nested.value):
        text = f"{error}\n{error!r}"
        assert key not in text and key[:8] not in text
        assert "api_key_env" in text and "environment variable name" in text


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "HF_TOKEN", "VLLM_API_KEY", "my_key", "API_KEY_2"])
def test_ordinary_variable_names_are_accepted(name: str) -> None:
    assert EndpointConfig(base_url="http://x/v1", model="m", api_key_env=name).api_key_env == name


@pytest.mark.parametrize(
    "field", ["base_url", "base_urls"],
)
def test_a_key_in_a_url_is_refused_pointing_at_api_key_env_without_echoing_it(field: str) -> None:
    key = KEYS[0]
    url = f"http://user:{key}@judge.local:8000/v1"
    endpoint = {"model": "m", field: url if field == "base_url" else [url, "http://other.local:8000/v1"]}
    with pytest.raises(ConfigError) as from_dict:
        Config.from_dict({"endpoints": {"judge": endpoint}})
    with pytest.raises(ValidationError) as direct:
        EndpointConfig(**endpoint)  # type: ignore[arg-type]
    for error in (from_dict.value, direct.value):
        text = f"{error}\n{error!r}"
        assert key not in text and f"user:{key[:4]}" not in text
        assert "holds credentials" in text and "api_key_env" in text
        assert "http://***@judge.local:8000/v1" in text


def test_an_unreachable_server_error_never_shows_userinfo() -> None:
    import anyio
    import httpx

    from trustscore.errors import LLMUnreachable
    from trustscore.llm.http import HttpBackend
    from trustscore.llm.protocol import ChatRequest, Message

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused")

    endpoint = EndpointConfig(base_url="http://judge.local:8000/v1", model="m")
    backend = HttpBackend(endpoint, transport=httpx.MockTransport(refuse), base_url="http://u:secret@judge.local/v1")
    request = ChatRequest(messages=[Message(role="user", content="hi")])

    async def send() -> str:
        try:
            await backend.send(request)
        except LLMUnreachable as e:
            return e.reason
        finally:
            await backend.aclose()
        return ""

    reason = anyio.run(send)
    assert "secret" not in reason and "http://***@judge.local/v1" in reason
