"""A judge server that echoes the key it got (a 401 quoting ``Authorization``) leaks it nowhere: not on
a span, not in a missing signal's reason, not in a result row, not in the service's answer."""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.telemetry.conftest import Recorded
from trustscore import Config, Scorer
from trustscore.llm._redact import Secrets
from trustscore.rows import result_row

pytestmark = pytest.mark.anyio

SECRET = "sk-echo/4711+never-leaks"
BASIC = "Basic " + base64.b64encode(b"team:pw-0815-secret").decode()
ROW = {"question": "Who wrote Dune?", "context": ["Dune is by Frank Herbert."], "response": "Herbert."}


def forms(secret: str) -> list[str]:
    b64 = base64.b64encode(secret.encode()).decode()
    return [secret, json.dumps(secret)[1:-1], quote(secret, safe=""), b64]


def leaked(text: str) -> list[str]:
    return [f for s in (SECRET, "pw-0815-secret", BASIC.split()[1]) for f in forms(s) if f in text]


def echo_401(request: httpx.Request) -> httpx.Response:
    """What a careless gateway answers: everything it got, in every way it might write it."""
    auth = request.headers["authorization"]
    text = (
        f"Incorrect API key provided: {auth}; escaped {json.dumps(auth)}; "
        f"in a URL ?key={quote(auth, safe='')}; "
        f"as base64 {base64.b64encode(SECRET.encode()).decode()}; team header {request.headers['x-team']}; "
        f"decoded team:pw-0815-secret"
    )
    return httpx.Response(401, json={"error": {"message": text, "type": "AuthenticationError"}})


def config() -> Config:
    return Config.from_dict(
        {
            "endpoints": {
                "judge": {
                    "base_url": "http://judge.test:8123/v1",
                    "model": "fake-judge",
                    "api_key_env": "TRUSTSCORE_TEST_JUDGE_KEY",
                    "headers": {"X-Team": BASIC},
                    "max_retries": 0,
                }
            },
            "judges": {"lynx": {"endpoint": "judge"}, "likert": {"endpoint": "judge"}},
            "signals": {"embedding": {"enabled": False}, "claims": {"enabled": False}},
            "cache": {"mode": "off"},
        }
    )


@pytest.fixture(autouse=True)
def judge_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRUSTSCORE_TEST_JUDGE_KEY", SECRET)


def recorded_text(recorded: Recorded) -> str:
    values: list[Any] = []
    for span in recorded.spans.get_finished_spans():
        values += [span.name, *span.attributes.values(), span.status.description]
        values += [v for event in span.events for v in (event.attributes or {}).values()]
    return json.dumps(values, default=str)


async def test_an_echoed_key_is_on_no_span_reason_or_row(recorded: Recorded) -> None:
    async with Scorer(config(), transport=httpx.MockTransport(echo_401)) as scorer:
        result = await scorer.score(**ROW)
    reasons = [s.error or "" for s in result.signals.values() if s.missing]
    assert reasons and all("HTTP 401" in r and "***" in r for r in reasons), reasons
    assert leaked(" ".join(reasons)) == []
    assert recorded.spans.get_finished_spans() and leaked(recorded_text(recorded)) == []
    assert leaked(json.dumps(result_row("a", result, {}))) == []


async def test_an_echoed_key_is_not_in_the_service_answer() -> None:
    pytest.importorskip("starlette")
    from trustscore.api import create_app

    async with Scorer(config(), transport=httpx.MockTransport(echo_401)) as scorer:
        app = create_app(scorer)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://api.test") as c:
            answer = await c.post("/v1/score", json=ROW)
    assert answer.status_code == 200 and "HTTP 401" in answer.text
    assert leaked(answer.text) == []


def test_every_written_form_is_blanked_anywhere_in_the_text() -> None:
    secrets = Secrets([f"Bearer {SECRET}", BASIC])
    for form in [*forms(SECRET), *forms("pw-0815-secret"), "team:pw-0815-secret", quote(SECRET).lower()]:
        assert secrets.redact(f"before{form}after") == "before***after", form
    assert Secrets([None, "", "abc"]).redact("abc") == "abc", "values too short to be secrets stay"


def test_a_secret_cut_by_the_read_limit_is_blanked_too() -> None:
    secrets = Secrets([SECRET])
    body = f'{{"error": "bad key {SECRET[:9]}'.encode()
    assert SECRET[:9].encode() not in secrets.redact_bytes(body, cut=True)
    assert secrets.redact_bytes(b"nothing secret", cut=True) == b"nothing secret"
