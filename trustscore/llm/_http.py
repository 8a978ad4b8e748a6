"""The OpenAI-compatible HTTP backend, and the one mapping between ChatRequest and the wire.

``build_request_body`` turns a :class:`ChatRequest` into the JSON body of the vLLM or OpenAI dialect;
``parse_response`` turns the server's JSON into a :class:`ChatResult`; ``error_for_status`` turns an
HTTP failure into the protocol's error types. The openai adapter reuses all three.
"""

from __future__ import annotations

import email.utils
import functools
import json
import math
import re
import ssl
import time
from collections.abc import Mapping
from typing import Any, Literal

import httpx

from trustscore._errors import (
    BadResponse,
    ClientError,
    LLMTimeout,
    LLMUnreachable,
    RateLimited,
    ServerError,
    UnsupportedRequest,
)
from trustscore.llm._accounting import Delivery
from trustscore.llm._bounds import ResponseBounds, read_bounded
from trustscore.llm._config import EndpointConfig, redact_url
from trustscore.llm._connections import ShardedClients
from trustscore.llm._limits import LoopLocal
from trustscore.llm._loops import close_on_loop
from trustscore.llm._protocol import (
    LOGPROB_TOLERANCE,
    ChatRequest,
    ChatResult,
    Choice,
    Constraint,
    LLMError,
    TokenLogprob,
    TopLogprob,
)
from trustscore.llm._redact import Secrets
from trustscore.llm._special_tokens import TURN_MARKERS, neutralise, served_special_tokens
from trustscore.telemetry import trace_headers

__all__ = [
    "TAG_HEADER",
    "HttpBackend",
    "build_request_body",
    "error_for_status",
    "parse_response",
    "parse_retry_after",
    "request_path",
    "tag_headers",
    "unsupported_reason",
]

Flavour = Literal["vllm", "openai"]

_MAX_ERROR_CHARS = 300
_MAX_ERROR_BODY_BYTES = 64 * 1024
"""How much of an error answer is read: its message is cut to _MAX_ERROR_CHARS anyway."""
_CLOSE_ELSEWHERE_S = 5.0
"""How long aclose() waits for another event loop to close its client (it may be blocked on us)."""

# vLLM fills any sampling parameter a request leaves out from the model's generation_config.json
# (vLLM PR #12622; see research/judges.md section 8). These are the neutral values we always send.
# top_k=-1 means "disabled" on every vLLM release (newer ones also accept 0).
_VLLM_NEUTRAL_SAMPLING: dict[str, Any] = {"top_k": -1, "min_p": 0.0, "repetition_penalty": 1.0}


TAG_HEADER = "X-Trustscore-Tag"
"""Carries ``ChatRequest.tag`` (who asks, e.g. ``lynx@3f2a1c``): for server logs, and what the test
kit's fake server answers by."""


def tag_headers(request: ChatRequest) -> dict[str, str]:
    """The header that names the request's sender; none for an untagged request."""
    return {TAG_HEADER: request.tag} if request.tag else {}


def request_path(request: ChatRequest) -> str:
    return "/chat/completions" if request.endpoint == "chat" else "/completions"


def build_request_body(
    request: ChatRequest, *, model: str, flavour: Flavour, special_tokens: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """The JSON body for ``request`` in the dialect of ``flavour``. Sampling params are always explicit.

    Message content never carries a control token: turn markers of every model family, and the
    served model's own ``special_tokens``, are broken (:mod:`trustscore.llm._special_tokens`). A raw
    ``prompt`` is sent as given: it is the caller's own rendering of a turn format."""
    body: dict[str, Any] = {"model": model}
    if request.messages is not None:
        body["messages"] = [
            {"role": m.role, "content": neutralise(m.content, TURN_MARKERS, special_tokens)}
            for m in request.messages
        ]
    else:
        body["prompt"] = request.prompt
    body.update(
        n=request.n,
        temperature=request.temperature,
        top_p=request.top_p,
        max_tokens=request.max_tokens,
    )
    if request.seed is not None:
        body["seed"] = request.seed
    if request.stop:
        body["stop"] = list(request.stop)
    if request.logprobs:
        if request.endpoint == "chat":
            body["logprobs"] = True
            body["top_logprobs"] = request.top_logprobs
        else:
            body["logprobs"] = request.top_logprobs
    if request.echo:
        body["echo"] = True
    if flavour == "vllm":
        _add_vllm_extensions(body, request)
    else:
        _add_openai_dialect(body, request)
    return body


def _add_vllm_extensions(body: dict[str, Any], request: ChatRequest) -> None:
    body.update(_VLLM_NEUTRAL_SAMPLING)
    if request.constraint is not None:
        # vLLM >= 0.12 removed guided_choice/guided_regex/guided_json in favour of this field.
        body["structured_outputs"] = _vllm_structured_outputs(request.constraint)
    if request.continue_final_message:
        body["continue_final_message"] = True
        body["add_generation_prompt"] = False
    if request.prompt_logprobs is not None:
        body["prompt_logprobs"] = request.prompt_logprobs


def _vllm_structured_outputs(constraint: Constraint) -> dict[str, Any]:
    if constraint.choice is not None:
        return {"choice": list(constraint.choice)}
    if constraint.regex is not None:
        return {"regex": constraint.regex}
    return {"json": constraint.json_schema}


def unsupported_reason(request: ChatRequest, flavour: Flavour) -> str | None:
    """Why ``flavour`` cannot serve ``request`` at all, or None when it can."""
    if flavour == "openai":
        if request.prompt_logprobs is not None:
            return "prompt_logprobs needs a vLLM endpoint (flavour='vllm'); the OpenAI API has no equivalent"
        if request.echo and request.endpoint == "chat":
            return "echo is a completions-only option on OpenAI endpoints; send a prompt instead of messages"
    return None


def _add_openai_dialect(body: dict[str, Any], request: ChatRequest) -> None:
    """OpenAI cannot enforce choice/regex (dropped: the judges' tolerant parsers cope) nor continue
    an assistant prefix (dropped: the judge parses the full answer)."""
    reason = unsupported_reason(request, "openai")
    if reason is not None:
        raise UnsupportedRequest(reason)
    constraint = request.constraint
    if constraint is not None and constraint.json_schema is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "trustscore_output", "schema": constraint.json_schema},
        }


# ---------------------------------------------------------------------------------------------
# Responses


_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _text(value: str) -> str:
    """A server's text as valid Unicode: a lone surrogate (JSON escapes can spell one; it cannot be
    written as UTF-8, to the cache or to an output file) becomes U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", value)


def _logprob(value: Any) -> float:
    """A log-probability from the wire; BadResponse unless it is finite and <= 0 (rounding allowed)."""
    number = float(value)
    if not (math.isfinite(number) and number <= LOGPROB_TOLERANCE):
        raise BadResponse(f"the server sent a log-probability of {value!r} (must be finite and <= 0)")
    return min(number, 0.0)


def parse_response(data: object, bounds: ResponseBounds | None = None) -> ChatResult:
    """A chat or text completion JSON body as a ChatResult; BadResponse when it is not one.

    Log-probabilities must be finite and <= 0; text is made valid Unicode (see :func:`_text`); token
    counts must be non-negative integers. With the request's ``bounds``, more choices than it asked
    for, or token counts it cannot have cost, are a server fault too."""
    if not isinstance(data, dict):
        raise BadResponse(f"expected a JSON object, got {type(data).__name__}")
    raw_choices = data.get("choices")
    if not isinstance(raw_choices, list) or not raw_choices:
        raise BadResponse("the response has no choices")
    if bounds is not None and len(raw_choices) > bounds.max_choices:
        raise BadResponse(
            f"the server sent {len(raw_choices):,} choices for a request of n={bounds.max_choices}"
        )
    try:
        ordered = sorted(raw_choices, key=lambda c: c.get("index", 0) if isinstance(c, dict) else 0)
        choices = [_parse_choice(c) for c in ordered]
        usage = data.get("usage") or {}
        if not isinstance(usage, dict):
            raise BadResponse("the response's usage is not a JSON object")
        prompt_logprobs, prompt_token_strs = _parse_prompt_logprobs(data, ordered[0])
        return ChatResult(
            choices=choices,
            model=_text(str(data.get("model") or "")),
            prompt_tokens=_token_count(
                usage, "prompt_tokens", None if bounds is None else bounds.max_prompt_tokens
            ),
            completion_tokens=_token_count(
                usage, "completion_tokens", None if bounds is None else bounds.max_completion_tokens
            ),
            cached_prompt_tokens=_token_count(
                usage.get("prompt_tokens_details") or {},
                "cached_tokens",
                None if bounds is None else bounds.max_prompt_tokens,
            ),
            prompt_logprobs=prompt_logprobs,
            prompt_token_strs=prompt_token_strs,
        )
    except BadResponse:
        raise
    except (AttributeError, KeyError, TypeError, ValueError) as e:
        raise BadResponse(f"malformed completion: {type(e).__name__}: {_truncate(str(e))}") from None


def _token_count(usage: dict[str, Any], field: str, bound: int | None) -> int:
    """A token count the server reports: a non-negative integer within what the request allows."""
    value = usage.get(field)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadResponse(f"the server reports usage.{field} = {_truncate(repr(value))}: not a token count")
    if bound is not None and value > bound:
        raise BadResponse(
            f"the server reports usage.{field} = {value:,}, more than the request can cost ({bound:,})"
        )
    return value


def _parse_choice(raw: Any) -> Choice:
    if not isinstance(raw, dict):
        raise BadResponse("a choice is not a JSON object")
    message = raw.get("message")
    if isinstance(message, dict):
        text = message.get("content") or ""
        logprobs = _chat_logprobs(raw.get("logprobs"))
    elif "text" in raw:
        text = raw["text"] or ""
        logprobs = _completion_logprobs(raw.get("logprobs"))
    else:
        raise BadResponse("a choice has neither message nor text")
    if not isinstance(text, str):
        raise BadResponse("a choice's text is not a string")
    finish = raw.get("finish_reason")
    reason = None if finish is None else _text(str(finish))
    return Choice(text=_text(text), logprobs=logprobs, finish_reason=reason)


def _chat_logprobs(raw: Any) -> list[TokenLogprob] | None:
    """Chat shape: {"content": [{token, logprob, top_logprobs: [{token, logprob}]}]}."""
    if not raw or raw.get("content") is None:
        return None
    return [
        TokenLogprob(
            token=_text(entry["token"]),
            logprob=_logprob(entry["logprob"]),
            top_logprobs=[
                TopLogprob(token=_text(t["token"]), logprob=_logprob(t["logprob"]))
                for t in entry.get("top_logprobs") or []
            ],
        )
        for entry in raw["content"]
    ]


def _completion_logprobs(raw: Any) -> list[TokenLogprob] | None:
    """Completions shape: {tokens: [...], token_logprobs: [...], top_logprobs: [{token: lp} | None]}.

    Positions whose logprob is null (the first prompt token when ``echo`` is on: it has no context
    to be predicted from) are left out rather than given an invented value.
    """
    if not raw:
        return None
    tokens = raw.get("tokens") or []
    values = raw.get("token_logprobs") or []
    tops = raw.get("top_logprobs") or [None] * len(tokens)
    if not (len(tokens) == len(values) == len(tops)):
        raise BadResponse("completion logprobs: tokens, token_logprobs and top_logprobs differ in length")
    out = []
    for token, value, top in zip(tokens, values, tops, strict=True):
        if value is None:
            continue
        alternatives = [TopLogprob(token=_text(t), logprob=_logprob(lp)) for t, lp in (top or {}).items()]
        out.append(TokenLogprob(token=_text(token), logprob=_logprob(value), top_logprobs=alternatives))
    return out


def _parse_prompt_logprobs(
    data: dict[str, Any], first_choice: dict[str, Any]
) -> tuple[list[dict[str, float] | None] | None, list[str] | None]:
    """vLLM's prompt_logprobs: per prompt token None | {token_id: {logprob, rank, decoded_token}}.

    Completions put it on each choice, chat on the response. vLLM lists the prompt's own token
    first in each position's dict (then the top-k), so that entry gives ``prompt_token_strs``. When
    two ids decode to the same string, the first (the prompt's own token) keeps its logprob. The
    first position has no logprobs; its token string comes from echoed logprobs when the request
    had ``echo``, else it is unknown ("").
    """
    raw = first_choice.get("prompt_logprobs")
    if raw is None:
        raw = data.get("prompt_logprobs")
    if raw is None:
        return None, None
    if not isinstance(raw, list):
        raise BadResponse("prompt_logprobs is not a list")
    logprobs: list[dict[str, float] | None] = []
    token_strs: list[str] = []
    for position in raw:
        if position is None:
            logprobs.append(None)
            token_strs.append("")
            continue
        by_token: dict[str, float] = {}
        for token_id, entry in position.items():
            by_token.setdefault(_decoded(token_id, entry), _logprob(entry["logprob"]))
        logprobs.append(by_token)
        token_strs.append(next(iter(by_token), ""))
    echoed = _echoed_first_token(first_choice.get("logprobs"))
    if token_strs and not token_strs[0] and echoed is not None:
        token_strs[0] = echoed
    return logprobs, token_strs


def _echoed_first_token(logprobs: Any) -> str | None:
    """The prompt's first token when completion logprobs begin with the echoed prompt (its first
    token is the one without a logprob), else None."""
    if not isinstance(logprobs, dict) or not logprobs.get("tokens"):
        return None
    values = logprobs.get("token_logprobs") or []
    return _text(str(logprobs["tokens"][0])) if values and values[0] is None else None


def _decoded(token_id: str, entry: dict[str, Any]) -> str:
    token = entry.get("decoded_token")
    return _text(token) if isinstance(token, str) else f"token_id:{_text(str(token_id))}"


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
        where = f" to {_truncate(redact_url(location))}" if location else ""
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
        return _truncate(body.strip())
    if isinstance(data, dict):
        inner = data.get("error")
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return _truncate(inner["message"])
        if isinstance(inner, str):
            return _truncate(inner)
        if isinstance(data.get("message"), str):
            return _truncate(data["message"])
    return _truncate(body.strip())


def _truncate(text: str) -> str:
    text = _text(text)
    return text if len(text) <= _MAX_ERROR_CHARS else text[: _MAX_ERROR_CHARS - 3] + "..."


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
        delivery = Delivery.current() if self._transport is None else None
        extensions: dict[str, Any] = {}
        if delivery is not None:
            delivery.tracked = True

            async def trace(event: str, info: dict[str, Any]) -> None:
                if event.endswith("send_request_body.complete"):
                    delivery.reached = True

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
            if delivery is not None:
                delivery.reached = True
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
            text = _truncate(self._secrets.redact(str(e)))
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
