"""Judge settings are bounded like vLLM's sampling parameters: a bad one fails at config time,
naming the field, instead of as an HTTP 400 from the server on every request."""

from __future__ import annotations

import pytest

from trustscore import Config, ConfigError


@pytest.mark.parametrize(
    ("judge", "setting", "value"),
    [
        ("likert", "temperature", 2.5),
        ("prometheus", "temperature", 3.0),
        ("lynx", "temperature", 2.1),
        ("chainpoll", "temperature", 4.0),
        ("tlm", "sample_temperature", 2.5),
        ("likert", "temperature", float("inf")),
    ],
)
def test_temperatures_above_vllms_maximum_are_refused(judge: str, setting: str, value: float) -> None:
    data = {
        "endpoints": {"j": {"base_url": "http://127.0.0.1:8000/v1", "model": "m"}},
        "judges": {judge: {"endpoint": "j", setting: value}},
    }
    with pytest.raises(ConfigError, match=rf"judges\.{judge}\.{setting}: Input should be"):
        Config.from_dict(data)


def test_a_temperature_of_two_is_accepted() -> None:
    data = {
        "endpoints": {"j": {"base_url": "http://127.0.0.1:8000/v1", "model": "m"}},
        "judges": {"chainpoll": {"endpoint": "j", "temperature": 2.0}},
    }
    assert Config.from_dict(data).judges.chainpoll is not None
