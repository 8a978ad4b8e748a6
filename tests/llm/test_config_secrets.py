"""A key pasted into ``api_key_env`` is refused, and never echoed by any error."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from trustscore import Config, ConfigError
from trustscore._errors import LLMUnreachable
from trustscore.llm import ChatRequest, EndpointConfig, HttpBackend, Message

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
    "field",
    ["base_url", "base_urls"],
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

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused")

    endpoint = EndpointConfig(base_url="http://judge.local:8000/v1", model="m")
    backend = HttpBackend(
        endpoint, transport=httpx.MockTransport(refuse), base_url="http://u:secret@judge.local/v1"
    )
    reason = anyio.run(_unreachable_reason, backend)
    assert "secret" not in reason and "http://***@judge.local/v1" in reason


@pytest.mark.parametrize("tail", ["\r", "\n", " ", "\t\r\n"])
def test_a_key_is_read_without_surrounding_whitespace(monkeypatch: pytest.MonkeyPatch, tail: str) -> None:
    monkeypatch.setenv("JUDGE_KEY", " sk-abcd1234" + tail)
    endpoint = EndpointConfig(base_url="http://x/v1", model="m", api_key_env="JUDGE_KEY")
    assert endpoint.api_key() == "sk-abcd1234"


@pytest.mark.parametrize("key", ["sk-ab\r\ncd1234", "sk-ab\x07cd1234", "sk-abcd1234\u00e9"])
def test_a_key_no_header_may_carry_is_refused_without_showing_it(
    monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    from trustscore import EndpointUnavailable

    monkeypatch.setenv("JUDGE_KEY", key)
    endpoint = EndpointConfig(base_url="http://x/v1", model="m", api_key_env="JUDGE_KEY")
    with pytest.raises(EndpointUnavailable) as caught:
        endpoint.api_key()
    text = str(caught.value)
    assert "JUDGE_KEY" in text and "abcd" not in text and "cd1234" not in text


def test_a_header_value_no_header_may_carry_is_refused_without_showing_it() -> None:
    with pytest.raises(ValidationError) as caught:
        EndpointConfig(base_url="http://x/v1", model="m", headers={"X-Token": "tok-abcd1234\r\n"})
    assert "headers.X-Token" in str(caught.value) and "abcd1234" not in str(caught.value)


def test_error_text_quoting_a_sent_header_is_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    """httpx quotes a header value it refuses (``Illegal header value b'Bearer ...'``): the backend
    blanks the key out of any transport error, as written and as Python escapes it."""
    import anyio
    import httpx

    monkeypatch.setenv("JUDGE_KEY", "sk-abcd1234")

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.LocalProtocolError(f"Illegal header value {request.headers['authorization'].encode()!r}")

    endpoint = EndpointConfig(base_url="http://judge.local:8000/v1", model="m", api_key_env="JUDGE_KEY")
    backend = HttpBackend(endpoint, transport=httpx.MockTransport(refuse))
    reason = anyio.run(_unreachable_reason, backend)
    assert "abcd1234" not in reason and "Bearer ***" in reason


async def _unreachable_reason(backend: HttpBackend) -> str:
    """The reason a request through ``backend`` fails with (its transport refuses), the backend closed."""
    try:
        await backend.send(ChatRequest(messages=[Message(role="user", content="hi")]))
    except LLMUnreachable as e:
        return e.reason
    finally:
        await backend.aclose()
    return ""
