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
