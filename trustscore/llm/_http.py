"""The OpenAI-compatible HTTP backend, and the mapping of an HTTP failure to the protocol's errors.

The body it sends and the result it reads are the wire format's (:mod:`trustscore.llm._wire`);
``error_for_status`` turns an HTTP failure into the protocol's error types. The openai adapter reuses
both.
"""

from __future__ import annotations

import email.utils
import functools
import json
import math
import ssl
import time
from collections.abc import Mapping
from typing import Any

import httpx

from trustscore._errors import (
    BadResponse,
    ClientError,
    LLMTimeout,
    LLMUnreachable,
    RateLimited,
    ServerError,
)
from trustscore.llm._bounds import ResponseBounds, read_bounded
from trustscore.llm._config import EndpointConfig, redact_url
from trustscore.llm._connections import ShardedClients
from trustscore.llm._limits import LoopLocal
from trustscore.llm._loops import close_on_loop
from trustscore.llm._protocol import ChatRequest, ChatResult, LLMError
from trustscore.llm._redact import Secrets
from trustscore.llm._special_tokens import served_special_tokens
from trustscore.llm._wire import build_request_body, parse_response, request_path, tag_headers, truncated
from trustscore.telemetry import trace_headers

__all__ = ["HttpBackend", "error_for_status", "parse_retry_after"]

_MAX_ERROR_BODY_BYTES = 64 * 1024
"""How much of an error answer is read: its message is cut to a few hundred characters anyway."""
_CLOSE_ELSEWHERE_S = 5.0
"""How long aclose() waits for another event loop to close its client (it may be blocked on us)."""


# ---------------------------------------------------------------------------------------------
# Errors


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds the server asks us to wait: ``retry-after-ms``, or ``Retry-After`` as seconds or an
    HTTP-date (RFC 9110 section 10.2.3). None when absent or unreadable."""
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis) / 1000.0
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value >= 0:
            return value
    text = lowered.get("retry-after")
    if text is None:
        return None
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        current = time.time() if now is None else now
        return max(0.0, when.timestamp() - current)
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def error_for_status(status: int, headers: Mapping[str, str], body: str) -> LLMError:
    """The protocol error for a non-2xx answer, with the server's own message (truncated). A 3xx is
    never an answer: a ClientError naming where it points."""
    if 300 <= status < 400:
        location = headers.get("location")
        where = f" to {truncated(redact_url(location))}" if location else ""
        return ClientError(
            f"HTTP {status}: the server redirects{where}; trustscore never follows a redirect (the key "
            "must not reach another host) nor reads one as an answer: set base_url to where it answers",
            status=status,
        )
    message = _server_message(body)
    reason = f"HTTP {status}: {message}" if message else f"HTTP {status}"
    if status == 429:
        return RateLimited(reason, retry_after=parse_retry_after(headers))
    if status == 408:
        return LLMTimeout(reason)
    if status >= 500:
        return ServerError(reason, status=status, retry_after=parse_retry_after(headers))
    return ClientError(reason, status=status)


def _server_message(body: str) -> str:
    """The ``message`` of an OpenAI/vLLM error body ({"error": {"message": ...}} or {"message": ...})."""
    try:
        data = json.loads(body)
    except ValueError:
        return truncated(body.strip())
    if isinstance(data, dict):
        inner = data.get("error")
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return truncated(inner["message"])
        if isinstance(inner, str):
            return truncated(inner)
        if isinstance(data.get("message"), str):
            return truncated(data["message"])
    return truncated(body.strip())


# ---------------------------------------------------------------------------------------------
# Backend


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """The CA store every backend verifies TLS with (its server's, or a proxy's), built once per
    process. Loading it costs ~27 ms of CPU, spent on the event loop at a backend's first request:
    one per backend stalled a pool of 4 replicas' loop for ~110 ms."""
    return httpx.create_ssl_context()


class HttpBackend:
    """One attempt at one request over httpx (no retries, cache or limiter: the client does those).

    One ``httpx.AsyncClient`` per event loop, created lazily inside the running loop: pooled
    connections bind to the loop that opened them, so sharing a client across ``anyio.run`` calls
    fails. Pass ``transport`` (e.g. ``httpx.MockTransport``) to test without a server.
    """

    def __init__(
        self,
        endpoint: EndpointConfig,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        base_url: str | None = None,
    ) -> None:
        self._endpoint = endpoint
        self._base_url = (base_url or endpoint.base_url).rstrip("/")
        self._transport = transport
        # Only what read_bounded decodes within its limit (httpx would also offer br and zstd).
        self._headers = {"Accept-Encoding": "gzip, deflate", **endpoint.headers}
        key = endpoint.api_key()  # a named but unset variable fails here, not mid-run
        if key is not None:
            self._headers["Authorization"] = f"Bearer {key}"
        self._secrets = Secrets([key, *endpoint.headers.values()])
        weights = (endpoint.model_identity or endpoint.model).partition("@")[0]
        self._special_tokens = served_special_tokens(weights)
        # Absolute URLs built once: httpx joins a relative path onto base_url by re-parsing both on
        # every request (build_request: 110 -> 50 us of CPU per request, of the client's ~2 ms).
        self._urls = {
            path: httpx.URL(self._base_url + path) for path in ("/chat/completions", "/completions")
        }
        self._health_url = httpx.URL(self._base_url.removesuffix("/v1") + "/health")
        self._clients: LoopLocal[ShardedClients] = LoopLocal(
            lambda: ShardedClients(self._new_client, endpoint.max_concurrency)
        )

    @property
    def endpoint(self) -> EndpointConfig:
        return self._endpoint

    def _new_client(self, width: int) -> httpx.AsyncClient:
        """One shard: ``width`` connections, all kept alive (the limiter above bounds what is in
        flight, the shards bound what one httpx pool holds: see :mod:`trustscore.llm._connections`)."""
        limits = httpx.Limits(max_connections=width, max_keepalive_connections=width)
        return httpx.AsyncClient(
            base_url=self._base_url,
            headers=self._headers,
            timeout=httpx.Timeout(self._endpoint.timeout_s),
            limits=limits,
            transport=self._transport,
            verify=_tls_context(),
        )

    async def send(self, request: ChatRequest) -> ChatResult:
        body = build_request_body(
            request,
            model=self._endpoint.model,
            flavour=self._endpoint.flavour,
            special_tokens=self._special_tokens,
        )
        shards = self._clients.get()
        shard = shards.acquire()
        # httpx's own transport reports when the request body is written; a transport given in its
        # place (a test's MockTransport) may not, and then the attempt counts as sent.
        record = request.context.record if request.context is not None and self._transport is None else None
        extensions: dict[str, Any] = {}
        if record is not None:
            record.track_delivery()

            async def trace(event: str, info: dict[str, Any]) -> None:
                if event.endswith("send_request_body.complete"):
                    record.delivered()

            extensions["trace"] = trace
        bounds = ResponseBounds.of(request, body, context_window=self._endpoint.context_window)
        client = shards.clients[shard]
        try:
            sent = client.build_request(
                "POST",
                self._urls[request_path(request)],
                json=body,
                headers=trace_headers(tag_headers(request)),
                extensions=extensions,
            )
            response = await client.send(sent, stream=True)
            if record is not None:
                record.delivered()
            try:
                ok = 200 <= response.status_code < 300
                # An error body is only read for its message: the first bytes are enough.
                limit = bounds.max_bytes if ok else _MAX_ERROR_BODY_BYTES
                # Where server text enters: an echoed key or header never goes further.
                raw = await read_bounded(response, limit, refuse=ok)
                content = self._secrets.redact_bytes(raw, cut=len(raw) >= limit)
            finally:
                await response.aclose()
        except httpx.TimeoutException as e:
            raise LLMTimeout(f"{type(e).__name__} after {self._endpoint.timeout_s}s") from None
        except httpx.TransportError as e:
            where = redact_url(self._base_url)
            # httpx quotes a header it refuses (the key included): no error text leaves unredacted.
            text = truncated(self._secrets.redact(str(e)))
            raise LLMUnreachable(f"{where}: {type(e).__name__}: {text}") from None
        finally:
            shards.release(shard)
        if not ok:
            text = content.decode("utf-8", "replace")
            headers = {name: self._secrets.redact(value) for name, value in response.headers.items()}
            raise error_for_status(response.status_code, headers, text)
        try:
            data = json.loads(content)
        except ValueError:
            raise BadResponse(f"HTTP {response.status_code} with a body that is not JSON") from None
        return parse_response(data, bounds)

    async def healthy(self, timeout_s: float) -> bool:
        """True when the server's ``GET /health`` (vLLM's liveness route, at the root: no ``/v1``)
        answers 200 within ``timeout_s``."""
        shards = self._clients.get()
        shard = shards.acquire()
        try:
            response = await shards.clients[shard].get(self._health_url, timeout=timeout_s)
        except httpx.HTTPError:
            return False
        finally:
            shards.release(shard)
        return response.status_code == 200

    async def release_loop(self) -> None:
        """Close the current event loop's HTTP client (a new one opens on next use in this loop)."""
        client = self._clients.pop_current()
        if client is not None:
            await client.aclose()

    async def aclose(self) -> None:
        """Close the HTTP client of every event loop this backend was used on, each on its own loop:
        this one's here, a live loop's (the sync facade's background portal, another thread's) there.
        A client whose loop has ended cannot be closed any more; it is dropped."""
        here = LoopLocal.current_key()
        for loop, client in self._clients.pop_all():
            if loop is here:
                await client.aclose()
            else:
                await close_on_loop(loop, client.aclose, timeout_s=_CLOSE_ELSEWHERE_S)
