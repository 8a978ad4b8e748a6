"""An ASGI middleware for the vLLM server ``trustscore serve`` starts: every route needs the key.

vLLM's own ``--api-key`` / ``VLLM_API_KEY`` guards only the ``/v1``, ``/v2``, ``/inference`` and
``/cohere`` prefixes: ``POST /invocations`` runs completions, and ``/tokenize``, ``/pooling``,
``/metrics`` and the rest answer anyone. vLLM loads extra middleware by import path
(``--middleware trustscore_engine_guard.RequireKey``); ``trustscore serve`` puts this file's folder on
the server's ``PYTHONPATH``, so it runs in the engine's own environment. It therefore imports nothing
outside the standard library (not trustscore, not starlette).

Every HTTP or websocket request needs ``Authorization: Bearer <VLLM_API_KEY>``, except ``GET /health``
(liveness: it runs nothing and says nothing). With no key in the environment, every other route is
refused: the guard fails closed.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["OPEN_PATHS", "RequireKey"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

OPEN_PATHS = frozenset({"/health"})
"""Routes anyone may call: liveness only."""


def _digest(value: bytes) -> bytes:
    return hashlib.sha256(value).digest()


class RequireKey:
    """Refuse (401) every request without the server's key, on any route but :data:`OPEN_PATHS`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        key = os.environ.get("VLLM_API_KEY", "")
        self._key = _digest(key.encode()) if key else None

    def _allowed(self, scope: Scope) -> bool:
        path = str(scope.get("path", "")).removeprefix(str(scope.get("root_path", "")))
        if path.rstrip("/") in OPEN_PATHS and scope.get("method", "GET") in ("GET", "HEAD"):
            return True
        if self._key is None:
            return False
        given = b""
        for name, value in scope.get("headers") or ():
            if name.lower() == b"authorization":
                scheme, _, given = bytes(value).partition(b" ")
                if scheme.lower() != b"bearer":
                    return False
        return bool(given) and hmac.compare_digest(_digest(given), self._key)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") not in ("http", "websocket") or self._allowed(scope):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        body = json.dumps({"error": "Unauthorized: this server requires its API key on every route"}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b"Bearer"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
