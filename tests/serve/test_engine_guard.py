"""The middleware a keyed ``trustscore serve`` loads into vLLM: the key on every route but /health."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from trustscore.serve.engine_guard.trustscore_engine_guard import RequireKey


def call(guard: RequireKey, path: str, *, method: str = "POST", auth: bytes | None = None) -> int:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: Any) -> None:
        sent.append(message)

    headers = [(b"authorization", auth)] if auth is not None else []
    scope = {"type": "http", "method": method, "path": path, "root_path": "", "headers": headers}
    anyio.run(guard, scope, receive, send)
    return int(sent[0]["status"])


@pytest.mark.parametrize(
    "path",
    [
        "/invocations",
        "/tokenize",
        "/detokenize",
        "/pooling",
        "/metrics",
        "/v1/chat/completions",
        "/classify",
        "/reset_prefix_cache",
    ],
)
def test_every_route_needs_the_key(monkeypatch: pytest.MonkeyPatch, path: str) -> None:
    monkeypatch.setenv("VLLM_API_KEY", "sk-fleet-secret")
    assert call(RequireKey(_ok), path) == 401
    assert call(RequireKey(_ok), path, auth=b"Bearer wrong") == 401
    assert call(RequireKey(_ok), path, auth=b"Basic sk-fleet-secret") == 401
    assert call(RequireKey(_ok), path, auth=b"Bearer sk-fleet-secret") == 200
    assert call(RequireKey(_ok), path, auth=b"bearer sk-fleet-secret") == 200


def test_health_stays_open_and_a_missing_key_fails_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_API_KEY", "sk-fleet-secret")
    assert call(RequireKey(_ok), "/health", method="GET") == 200
    assert call(RequireKey(_ok), "/health", method="POST") == 401
    monkeypatch.delenv("VLLM_API_KEY")
    assert call(RequireKey(_ok), "/invocations", auth=b"Bearer ") == 401
    assert call(RequireKey(_ok), "/v1/models", auth=b"Bearer anything") == 401
    assert call(RequireKey(_ok), "/health", method="GET") == 200


async def _ok(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
