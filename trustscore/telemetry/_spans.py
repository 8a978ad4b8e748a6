"""The spans, events and metrics of one score, following the OpenTelemetry GenAI conventions.

A ``score`` call is an INTERNAL span (``openinference.span.kind=EVALUATOR``, so Arize Phoenix shows it
as an evaluator), each signal a child span, each LLM call a CLIENT span ``chat {model}`` (or
``text_completion {model}``) with the ``gen_ai.*`` request, response and usage attributes. Each signal's
value and the fused score are ``gen_ai.evaluation.result`` events of their span: log-based events
(OpenTelemetry's Logs API, the record parented to the span by its trace and span ids) when a logger
provider is set up, span events when none is (:func:`record_evaluation`). The hooks the Scorer
and the LLM client call are context managers that do nothing (one shared object) when telemetry is off.

Prompt and completion text is recorded only when opted in (:func:`capturing_content`), as the
conventions' ``gen_ai.input.messages`` and ``gen_ai.output.messages`` JSON attributes of the chat span
(Langfuse reads them as the observation's input and output; Phoenix turns them into its message view),
each message's text cut at :data:`CONTENT_MAX_CHARS` with a marker. Only message text is recorded:
endpoints' keys and headers never reach a span.

A score's label is ``pass`` at 0.5 or above and ``fail`` below: every trustscore value is the
probability that the answer is faithful (1 = supported), so the label is that probability rounded.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from trustscore.telemetry._state import Instruments, event_logger, instruments, tracer

if TYPE_CHECKING:
    from collections.abc import Sequence

    from opentelemetry.trace import Span

    from trustscore._types import Sample, Signal, TrustScore, Usage


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
    "EVALUATION_EVENT",
    "capturing_content",
    "chat_span",
    "score_span",
    "signal_span",
    "trace_headers",
]

EVALUATION_EVENT = "gen_ai.evaluation.result"
FUSED_NAME = "trustscore.fused"

CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The GenAI instrumentations' opt-in for message content: ``true`` records it."""
CONTENT_MAX_CHARS = 8192
"""The longest message text recorded; a longer one is cut here and marked."""


class _Off:
    """The hook's handle when telemetry is off: records nothing."""

    def done(self, result: Any) -> None:
        return None


_OFF = _Off()


def label(value: float) -> str:
    return "pass" if value >= 0.5 else "fail"


def evaluation_attributes(name: str, value: float | None, explanation: str | None) -> dict[str, Any]:
    """The attributes of one ``gen_ai.evaluation.result`` event (a missing value: ``error.type``)."""
    attrs: dict[str, Any] = {"gen_ai.evaluation.name": name}
    if value is None:
        attrs["error.type"] = "missing"
    else:
        attrs["gen_ai.evaluation.score.value"] = float(value)
        attrs["gen_ai.evaluation.score.label"] = label(value)
    if explanation:
        attrs["gen_ai.evaluation.explanation"] = explanation
    return attrs


def record_evaluation(span: Span, attributes: dict[str, Any]) -> None:
    """One ``gen_ai.evaluation.result`` of ``span``: a log record through the Logs API, parented to
    ``span``, when a logger provider is set up (the GenAI conventions' form); otherwise an event on
    ``span``, so a tracing-only SDK (and the Phoenix and Langfuse writers, which read span events)
    still sees it. Never both: a backend reading spans and logs would count it twice."""
    logger = event_logger()
    if logger is None:
        span.add_event(EVALUATION_EVENT, attributes)
        return
    from opentelemetry._logs import LogRecord
    from opentelemetry.trace import set_span_in_context

    record = LogRecord(
        timestamp=time.time_ns(),
        context=set_span_in_context(span),
        event_name=EVALUATION_EVENT,
        attributes=attributes,
    )
    logger.emit(record)


def _usage_attributes(usage: Usage) -> dict[str, Any]:
    return {
        "gen_ai.usage.input_tokens": usage.prompt_tokens,
        "gen_ai.usage.output_tokens": usage.completion_tokens,
        "trustscore.llm.requests": usage.requests,
        "trustscore.llm.cache_hits": usage.cache_hits,
    }


class ScoreRecorder:
    def __init__(self, span: Span | None, meters: Instruments | None) -> None:
        self._span = span
        self._meters = meters
        self._started = time.perf_counter()

    def done(self, result: TrustScore) -> None:
        span, meters = self._span, self._meters
        if span is not None:
            span.set_attributes(
                {
                    "trustscore.complete": result.complete,
                    "trustscore.degraded": result.degraded,
                    "trustscore.calibrated": result.calibrated,
                    "trustscore.fusion": result.fusion,
                    "trustscore.used_signals": list(result.used_signals),
                    **_usage_attributes(result.usage),
                }
            )
            if result.score is not None:
                span.set_attribute("trustscore.score", result.score)
            if result.reason is not None:
                span.set_attribute("trustscore.reason", result.reason)
            missing = result.missing
            reasons = "; ".join(f"{name}: {why}" for name, why in missing.items())
            explanation = f"{result.fusion}" + (f"; missing {reasons}" if reasons else "")
            record_evaluation(span, evaluation_attributes(FUSED_NAME, result.score, explanation))
        if meters is not None:
            meters.score_duration.record(time.perf_counter() - self._started)
            if result.score is not None:
                meters.scores.record(result.score)
            if not result.complete:
                meters.incomplete_scores.add(1)
            if result.degraded:
                meters.degraded_scores.add(1)
            for name in result.missing:
                meters.missing_signals.add(1, {"trustscore.signal": name})


@contextmanager
def score_span(sample: Sample) -> Iterator[ScoreRecorder | _Off]:
    """Around one ``score``: its span, the fused score's event, and the score metrics."""
    trace_to, meters = tracer(), instruments()
    if trace_to is None and meters is None:
        yield _OFF
        return
    if trace_to is None:
        yield ScoreRecorder(None, meters)
        return
    attrs: dict[str, Any] = {"openinference.span.kind": "EVALUATOR", "langfuse.observation.type": "evaluator"}
    if sample.id is not None:
        attrs["trustscore.sample.id"] = sample.id
    with trace_to.start_as_current_span("trustscore.score", attributes=attrs) as span:
        yield ScoreRecorder(span, meters)


class SignalRecorder:
    def __init__(self, span: Span | None) -> None:
        self._span = span

    def done(self, signal: Signal) -> Signal:
        span = self._span
        if span is not None:
            from opentelemetry.trace import StatusCode

            explanation = signal.error if signal.missing else signal.explanation
            record_evaluation(span, evaluation_attributes(signal.name, signal.value, explanation))
            span.set_attributes(_usage_attributes(signal.usage))
            if signal.missing:
                span.set_status(StatusCode.ERROR, signal.error or "missing")
            else:
                span.set_attribute("trustscore.signal.value", float(signal.value or 0.0))
        return signal


class _SignalOff:
    def done(self, signal: Signal) -> Signal:
        return signal


_SIGNAL_OFF = _SignalOff()


@contextmanager
def signal_span(name: str, is_judge: bool) -> Iterator[SignalRecorder | _SignalOff]:
    """Around one signal of a score: its span and its value's event (the LLM calls made inside name
    the signal themselves: :func:`chat_span`)."""
    trace_to = tracer()
    if trace_to is None:
        yield _SIGNAL_OFF
        return
    attrs: dict[str, Any] = {"openinference.span.kind": "EVALUATOR", "trustscore.signal": name}
    if is_judge:
        attrs["trustscore.judge"] = name
    kind = "judge" if is_judge else "signal"
    with trace_to.start_as_current_span(f"{kind} {name}", attributes=attrs) as span:
        yield SignalRecorder(span)


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


def capture() -> object | None:
    """The current trace context (None when tracing is off), to parent work done later elsewhere."""
    if tracer() is None:
        return None
    from opentelemetry import context

    return context.get_current()


@contextmanager
def attached(captured: object | None) -> Iterator[None]:
    """Run the block in a trace context from :func:`capture` (nothing to do for None)."""
    if captured is None:
        yield
        return
    from opentelemetry import context

    token = context.attach(captured)  # type: ignore[arg-type]
    try:
        yield
    finally:
        context.detach(token)
