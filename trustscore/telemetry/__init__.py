"""OpenTelemetry traces, events and metrics of scoring (the ``telemetry`` extra).

Nothing is recorded, and OpenTelemetry is not imported, until a tracer or meter provider is set up:
process-wide (``opentelemetry.trace.set_tracer_provider``, ``opentelemetry.metrics.set_meter_provider``)
or for trustscore alone with :func:`configure`. Then each ``score`` is a span with a child span per
signal and a ``chat {model}`` span per LLM call, each value a ``gen_ai.evaluation.result`` event (a log
record through the Logs API when a logger provider is set up, else a span event), and
the metrics of :class:`~trustscore.telemetry._state.Instruments` count scores, signals, requests,
retries, tokens and cache hits. Prompt and completion text is recorded only when opted in
(``[telemetry] capture_content``, or ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``).
:mod:`trustscore.telemetry.phoenix` turns the events into Arize Phoenix annotations,
:mod:`trustscore.telemetry.langfuse` into Langfuse scores (both need ``opentelemetry-sdk``). See
docs/service.md.
"""

from __future__ import annotations

from trustscore.telemetry._chat import (
    CAPTURE_CONTENT_ENV,
    CONTENT_MAX_CHARS,
    capturing_content,
    chat_span,
    trace_headers,
)
from trustscore.telemetry._spans import (
    EVALUATION_EVENT,
    FUSED_NAME,
    attached,
    capture,
    score_span,
    signal_span,
)
from trustscore.telemetry._state import configure

__all__ = [
    "CAPTURE_CONTENT_ENV",
    "CONTENT_MAX_CHARS",
    "EVALUATION_EVENT",
    "FUSED_NAME",
    "attached",
    "capture",
    "capturing_content",
    "chat_span",
    "configure",
    "score_span",
    "signal_span",
    "trace_headers",
]
