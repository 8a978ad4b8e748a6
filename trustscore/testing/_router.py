"""An in-process fake vLLM for fast unit tests: an ``httpx.MockTransport``, no sockets.

It answers with the same engine as :class:`~trustscore.testing._server.FakeVLLMServer`, so bodies
are identical. Each router has a host of its own in :attr:`MockRouter.base_url`: the response cache
keys answers by the server's URL, so two routers with different policies never replay each other's
answers, not even through the persistent cache. A request the policy has no answer for raises
:class:`~trustscore.testing._engine.UnmatchedRequest` inside the client call, like pytest-httpx.

    router = MockRouter(judge_policy({"lynx": lynx_answer("FAIL", p_pass=0.1)}))
    backend = HttpBackend(endpoint, transport=router.transport)
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING

from trustscore.testing._engine import EngineView, FakeEngine
from trustscore.testing._latency import LatencyModel
from trustscore.testing._script import Policy

if TYPE_CHECKING:
    import httpx

__all__ = ["MockRouter"]


class MockRouter(EngineView):
    """A fake vLLM behind an ``httpx.MockTransport``. Any host works; :attr:`base_url` is this router's
    own (``http://fake-vllm-<random>.test/v1``), so the cache never mixes two routers' answers."""

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        models: str | Sequence[str] = "fake-judge",
        latency: LatencyModel | None = None,
        max_model_len: int = 8192,
    ) -> None:
        self.engine = FakeEngine(
            policy, models=models, latency=latency, max_model_len=max_model_len
        )
        self._transport: httpx.MockTransport | None = None
        self.base_url = f"http://fake-vllm-{secrets.token_hex(6)}.test/v1"

    @property
    def transport(self) -> httpx.MockTransport:
        """The transport for ``httpx.AsyncClient(transport=...)`` or ``HttpBackend(transport=...)``."""
        if self._transport is None:
            import httpx

            self._transport = httpx.MockTransport(self._handle)
        return self._transport

    def client(self, **kwargs: object) -> httpx.AsyncClient:
        """An ``httpx.AsyncClient`` on :attr:`transport` with :attr:`base_url` (close it after use)."""
        import httpx

        return httpx.AsyncClient(transport=self.transport, base_url=self.base_url, **kwargs)  # type: ignore[arg-type]

    async def _handle(self, request: httpx.Request) -> httpx.Response:
        import httpx

        body = await request.aread()
        headers = {k.lower(): v for k, v in request.headers.items()}
        response = await self.engine.handle(request.method, request.url.path, headers, body)
        if response.disconnect:
            raise httpx.RemoteProtocolError(
                "Server disconnected without sending a response.", request=request
            )
        return httpx.Response(response.status, headers=response.headers, content=response.body)
