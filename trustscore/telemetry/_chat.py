"""The CLIENT span and metrics of one LLM call, following the OpenTelemetry GenAI conventions.

Each LLM call is a span ``chat {model}`` (or ``text_completion {model}``) with the ``gen_ai.*``
request, response and usage attributes, a child of the signal's span (:mod:`._spans`); the request
carries the span's W3C trace context (:func:`trace_headers`). Prompt and completion text is recorded
only when opted in (:func:`capturing_content`), as the conventions' ``gen_ai.input.messages`` and
``gen_ai.output.messages`` JSON attributes (Langfuse reads them as the observation's input and
output; Phoenix turns them into its message view), each message's text cut at
:data:`CONTENT_MAX_CHARS` with a marker. Only message text is recorded: endpoints' keys and headers
never reach a span.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from trustscore.telemetry._state import Instruments, instruments, tracer

if TYPE_CHECKING:
    from collections.abc import Sequence

    from opentelemetry.trace import Span

    from trustscore._types import Usage


# What the hooks read of the LLM layer's objects (that layer sits above this one).
class EndpointConfig(Protocol):
    @property
    def base_url(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def flavour(self) -> str: ...


class _Message(Protocol):
    @property
    def role(self) -> str: ...
    @property
    def content(self) -> str: ...


class ChatRequest(Protocol):
    @property
    def endpoint(self) -> str: ...
    @property
    def messages(self) -> Sequence[_Message] | None: ...
    @property
    def prompt(self) -> str | None: ...
    @property
    def temperature(self) -> float: ...
    @property
    def top_p(self) -> float: ...
    @property
    def max_tokens(self) -> int: ...
    @property
    def seed(self) -> int | None: ...
    @property
    def n(self) -> int: ...
    @property
    def tag(self) -> str: ...


class _Choice(Protocol):
    @property
    def text(self) -> str: ...
    @property
    def finish_reason(self) -> str | None: ...


class ChatResult(Protocol):
    @property
    def choices(self) -> Sequence[_Choice]: ...
    @property
    def model(self) -> str: ...
    @property
    def prompt_tokens(self) -> int: ...
    @property
    def completion_tokens(self) -> int: ...
    @property
    def cached_prompt_tokens(self) -> int: ...
    @property
    def usage(self) -> Usage: ...


__all__ = [
    "CAPTURE_CONTENT_ENV",
    "CONTENT_MAX_CHARS",
    "ChatRecorder",
    "capturing_content",
    "chat_span",
    "trace_headers",
]

CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The GenAI instrumentations' opt-in for message content: ``true`` records it."""
CONTENT_MAX_CHARS = 8192
"""The longest message text recorded; a longer one is cut here and marked."""


def _server(base_url: str) -> tuple[str, int]:
    parts = urlsplit(base_url)
    return parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)


def capturing_content(chosen: bool | None = None) -> bool:
    """Whether LLM calls record their message text: ``chosen`` (the Scorer's ``[telemetry]
    capture_content``) when set, else ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``."""
    if chosen is not None:
        return chosen
    return os.environ.get(CAPTURE_CONTENT_ENV, "").strip().lower() == "true"


def bounded(text: str) -> str:
    """``text``, or its first :data:`CONTENT_MAX_CHARS` characters and a marker saying how long it was."""
    if len(text) <= CONTENT_MAX_CHARS:
        return text
    return f"{text[:CONTENT_MAX_CHARS]}...[truncated: {len(text):,} characters in all]"


def _message(role: str, text: str, **more: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": bounded(text)}], **more}


def input_messages(request: ChatRequest) -> str:
    """``gen_ai.input.messages``: the request's messages (a completion's prompt as one user message)."""
    if request.messages is not None:
        messages = [_message(m.role, m.content) for m in request.messages]
    else:
        messages = [_message("user", request.prompt or "")]
    return json.dumps(messages, ensure_ascii=False)


def output_messages(result: ChatResult) -> str:
    """``gen_ai.output.messages``: one assistant message per choice, with its finish reason."""
    messages = [_message("assistant", c.text, finish_reason=c.finish_reason or "") for c in result.choices]
    return json.dumps(messages, ensure_ascii=False)


class ChatRecorder:
    def __init__(
        self, span: Span | None, meters: Instruments | None, attrs: dict[str, Any], capture: bool = False
    ) -> None:
        self._span = span
        self._meters = meters
        self._attrs = attrs
        self._capture = capture
        self._started = time.perf_counter()

    def done(self, result: ChatResult) -> None:
        self._record(result.usage)
        span = self._span
        if span is None:
            return
        attrs: dict[str, Any] = {
            "gen_ai.response.finish_reasons": [c.finish_reason or "" for c in result.choices],
            "trustscore.llm.attempts": result.usage.requests,
            "trustscore.llm.cache_hit": result.usage.cache_hits > 0,
            "gen_ai.usage.input_tokens": result.prompt_tokens,
            "gen_ai.usage.output_tokens": result.completion_tokens,
        }
        if result.model:
            attrs["gen_ai.response.model"] = result.model
        if result.cached_prompt_tokens:
            attrs["gen_ai.usage.cache_read.input_tokens"] = result.cached_prompt_tokens
        if self._capture:
            attrs["gen_ai.output.messages"] = output_messages(result)
        span.set_attributes(attrs)

    def failed(self, error: BaseException, usage: Usage | None) -> None:
        if usage is not None:
            self._record(usage)
        span = self._span
        if span is None:
            return
        from opentelemetry.trace import StatusCode

        span.set_attribute("error.type", type(error).__name__)
        if usage is not None:
            span.set_attribute("trustscore.llm.attempts", usage.requests)
        span.set_status(StatusCode.ERROR, str(error)[:300])

    def _record(self, usage: Usage) -> None:
        meters = self._meters
        if meters is None:
            return
        judge = {"trustscore.judge": self._attrs.get("trustscore.judge", "")}
        meters.llm_requests.add(usage.requests, judge)
        meters.llm_retries.add(max(0, usage.requests - 1), judge)
        meters.llm_cache_hits.add(usage.cache_hits, judge)
        base = {
            "gen_ai.operation.name": self._attrs["gen_ai.operation.name"],
            "gen_ai.provider.name": self._attrs["gen_ai.provider.name"],
            "gen_ai.request.model": self._attrs["gen_ai.request.model"],
            **judge,
        }
        meters.operation_duration.record(time.perf_counter() - self._started, base)
        if usage.requests:
            meters.token_usage.record(usage.prompt_tokens, {**base, "gen_ai.token.type": "input"})
            meters.token_usage.record(usage.completion_tokens, {**base, "gen_ai.token.type": "output"})


class _ChatOff:
    def done(self, result: ChatResult) -> None:
        return None

    def failed(self, error: BaseException, usage: Usage | None) -> None:
        return None


_CHAT_OFF = _ChatOff()


@contextmanager
def chat_span(
    endpoint: EndpointConfig,
    request: ChatRequest,
    *,
    signal: str | None = None,
    capture_content: bool | None = None,
) -> Iterator[ChatRecorder | _ChatOff]:
    """Around one LLM call (cache lookup, attempts and retries): its CLIENT span and metrics, naming
    ``signal`` as the judge that asks (else the request's tag); message text recorded as
    :func:`capturing_content` says for ``capture_content``. The caller reports the outcome with
    ``done(result)`` or ``failed(error, usage)``."""
    trace_to, meters = tracer(), instruments()
    if trace_to is None and meters is None:
        yield _CHAT_OFF
        return
    operation = "chat" if request.endpoint == "chat" else "text_completion"
    host, port = _server(endpoint.base_url)
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": operation,
        "gen_ai.provider.name": endpoint.flavour,
        "gen_ai.request.model": endpoint.model,
        "gen_ai.request.temperature": request.temperature,
        "gen_ai.request.top_p": request.top_p,
        "gen_ai.request.max_tokens": request.max_tokens,
        "server.address": host,
        "server.port": port,
    }
    if request.seed is not None:
        attrs["gen_ai.request.seed"] = request.seed
    if request.n != 1:
        attrs["gen_ai.request.choice.count"] = request.n
    judge = signal or request.tag.partition("@")[0]
    if judge:
        attrs["trustscore.judge"] = judge
    if trace_to is None:
        yield ChatRecorder(None, meters, attrs)
        return
    from opentelemetry.trace import SpanKind

    capture = capturing_content(capture_content)
    span_attrs = {**attrs, "gen_ai.input.messages": input_messages(request)} if capture else attrs
    with trace_to.start_as_current_span(
        f"{operation} {endpoint.model}", kind=SpanKind.CLIENT, attributes=span_attrs, record_exception=False
    ) as span:
        yield ChatRecorder(span, meters, attrs, capture)


def trace_headers(headers: dict[str, str]) -> dict[str, str]:
    """``headers`` plus the W3C ``traceparent`` (and ``tracestate``) of the current span, so a vLLM
    server started with ``--otlp-traces-endpoint`` continues the trace; ``headers`` as they are when
    tracing is off."""
    if tracer() is None:
        return headers
    from opentelemetry.propagate import inject

    out = dict(headers)
    inject(out)
    return out
