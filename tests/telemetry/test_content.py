"""Prompt and completion text on the chat spans: off by default, on by config or the GenAI env variable,
cut to a bound with a marker, and never an endpoint's key."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.telemetry.conftest import Recorded
from trustscore import Config, Scorer, telemetry

pytestmark = pytest.mark.anyio

testing = pytest.importorskip("trustscore.testing")
Q = "Who wrote Dune?"
CTX = ["Dune is a 1965 novel by Frank Herbert."]
SECRET = "sk-test-never-on-a-span-4711"
CONTENT = ("gen_ai.input.messages", "gen_ai.output.messages")


def config(capture: bool | None = None) -> Config:
    return Config.from_dict(
        {
            "endpoints": {
                "judge": {
                    "base_url": "http://fake-vllm.test:8123/v1",
                    "model": "fake-judge",
                    "api_key_env": "TRUSTSCORE_TEST_JUDGE_KEY",
                }
            },
            "judges": {"lynx": {"endpoint": "judge"}},
            "signals": {"embedding": {"enabled": False}, "claims": {"enabled": False}},
            "cache": {"mode": "off"},
            "telemetry": {} if capture is None else {"capture_content": capture},
        }
    )


@pytest.fixture(autouse=True)
def judge_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRUSTSCORE_TEST_JUDGE_KEY", SECRET)
    monkeypatch.delenv(telemetry.CAPTURE_CONTENT_ENV, raising=False)


async def chat_span(recorded: Recorded, cfg: Config, response: str = "Frank Herbert.") -> Any:
    router = testing.MockRouter(testing.judge_policy())
    async with Scorer(cfg, transport=router.transport) as scorer:
        await scorer.score(question=Q, context=CTX, response=response)
    (request,) = router.engine.completion_requests()
    assert request.headers["authorization"] == f"Bearer {SECRET}", "the key did go to the server"
    (chat,) = [s for s in recorded.spans.get_finished_spans() if s.name.startswith("chat ")]
    return chat


def everything_recorded(recorded: Recorded) -> str:
    """Every attribute value of every span and event, as one text."""
    values: list[Any] = []
    for span in recorded.spans.get_finished_spans():
        values += [span.name, *span.attributes.values()]
        values += [v for event in span.events for v in (event.attributes or {}).values()]
    return json.dumps(values, default=str)


async def test_off_by_default(recorded: Recorded) -> None:
    chat = await chat_span(recorded, config())
    assert not set(CONTENT) & set(chat.attributes)
    assert Q not in everything_recorded(recorded)


async def test_config_records_the_messages_and_the_completion(recorded: Recorded) -> None:
    chat = await chat_span(recorded, config(capture=True))
    sent = json.loads(chat.attributes["gen_ai.input.messages"])
    assert {m["role"] for m in sent} <= {"system", "user", "assistant"}
    text = " ".join(p["content"] for m in sent for p in m["parts"] if p["type"] == "text")
    assert Q in text and CTX[0] in text and "Frank Herbert." in text
    (answer,) = json.loads(chat.attributes["gen_ai.output.messages"])
    assert answer["role"] == "assistant" and answer["finish_reason"] == "stop"
    assert answer["parts"][0]["type"] == "text" and answer["parts"][0]["content"]
    assert SECRET not in everything_recorded(recorded)


async def test_the_environment_variable_opts_in_and_the_config_overrides_it(
    recorded: Recorded, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(telemetry.CAPTURE_CONTENT_ENV, "True")
    on = await chat_span(recorded, config())
    assert set(CONTENT) <= set(on.attributes)
    recorded.spans.clear()
    off = await chat_span(recorded, config(capture=False))
    assert not set(CONTENT) & set(off.attributes)


async def test_long_text_is_cut_with_a_marker(recorded: Recorded) -> None:
    long_answer = "Frank Herbert wrote it. " * 400  # 9,600 characters
    chat = await chat_span(recorded, config(capture=True), response=long_answer)
    parts = [p["content"] for m in json.loads(chat.attributes["gen_ai.input.messages"]) for p in m["parts"]]
    cut = [p for p in parts if "[truncated:" in p]
    assert cut, "the prompt holding the long answer is cut"
    assert all(len(p) < telemetry.CONTENT_MAX_CHARS + 60 for p in parts)
    assert all(p.endswith("characters in all]") for p in cut)
    assert SECRET not in everything_recorded(recorded)
