"""The spans, events and metrics of one score, following the OpenTelemetry GenAI conventions.

A ``score`` call is an INTERNAL span (``openinference.span.kind=EVALUATOR``, so Arize Phoenix shows it
as an evaluator), each signal a child span, each LLM call a CLIENT span under its signal's
(:mod:`._chat`). Each signal's value and the fused score are ``gen_ai.evaluation.result`` events of
their span: log-based events (OpenTelemetry's Logs API, the record parented to the span by its trace
and span ids) when a logger provider is set up, span events when none is (:func:`record_evaluation`).
The hooks the Scorer and the LLM client call are context managers that do nothing (one shared object)
when telemetry is off.

A value's label is ``pass`` at 0.5 or above and ``fail`` below: every trustscore value is the
probability that the answer is faithful (1 = supported), so the label is that probability rounded. A
signal that read the response as declining to answer has no value and the label ``abstained`` (no
``error.type``: declining is an outcome, not a failure). The fused event's explanation leads with the
result's one-line reason, then calibrated or not; the span carries each outcome field of the result as
``trustscore.<field>``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from trustscore.telemetry._state import Instruments, event_logger, instruments, tracer

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from trustscore._types import Sample, Signal, TrustScore, Usage

__all__ = [
    "ABSTAINED",
    "EVALUATION_EVENT",
    "FUSED_NAME",
    "attached",
    "capture",
    "score_span",
    "signal_span",
]

EVALUATION_EVENT = "gen_ai.evaluation.result"
FUSED_NAME = "trustscore.fused"


class _Off:
    """The hook's handle when telemetry is off: records nothing."""

    def done(self, result: Any) -> None:
        return None


_OFF = _Off()


def label(value: float) -> str:
    return "pass" if value >= 0.5 else "fail"


ABSTAINED = "abstained"
"""The evaluation label of a signal that read the response as declining to answer."""


def evaluation_attributes(
    name: str, value: float | None, explanation: str | None, *, abstained: bool = False
) -> dict[str, Any]:
    """The attributes of one ``gen_ai.evaluation.result`` event (a missing value: ``error.type``,
    unless the signal ``abstained``: then the label says so)."""
    attrs: dict[str, Any] = {"gen_ai.evaluation.name": name}
    if value is None and abstained:
        attrs["gen_ai.evaluation.score.label"] = ABSTAINED
    elif value is None:
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
            span.set_attributes(_outcome_attributes(result))
            record_evaluation(
                span, evaluation_attributes(FUSED_NAME, result.score, fused_explanation(result))
            )
        if meters is not None:
            meters.score_duration.record(time.perf_counter() - self._started)
            if result.score is not None:
                meters.scores.record(result.score)
            if not result.complete:
                meters.incomplete_scores.add(1)
            if result.degraded:
                meters.degraded_scores.add(1)
            if result.abstained:
                meters.abstained_scores.add(1)
            for name, signal in result.signals.items():
                if signal.missing and not signal.abstention:  # an abstention is counted apart
                    meters.missing_signals.add(1, {"trustscore.signal": name})


def _outcome_attributes(result: TrustScore) -> dict[str, Any]:
    """The span attributes of a result's outcome: each field as ``trustscore.<field>`` (one left out
    where it is None)."""
    attrs: dict[str, Any] = {
        "trustscore.complete": result.complete,
        "trustscore.degraded": result.degraded,
        "trustscore.abstained": result.abstained,
        "trustscore.calibrated": result.calibrated,
        "trustscore.fusion": result.fusion,
        "trustscore.used_signals": list(result.used_signals),
        **_usage_attributes(result.usage),
    }
    if result.incomplete_signals:
        attrs["trustscore.incomplete_signals"] = list(result.incomplete_signals)
    optional = {
        "trustscore.score": result.score,
        "trustscore.reason": result.reason,
        "trustscore.not_calibrated_reason": result.not_calibrated_reason,
        "trustscore.config_source": result.config_source,
    }
    attrs.update({key: value for key, value in optional.items() if value is not None})
    return attrs


def fused_explanation(result: TrustScore) -> str:
    """The fused event's explanation: the reason, calibrated or not, the fusion, and when degraded
    the signals that failed and why (an abstaining signal's own event says it abstained)."""
    calibrated = "calibrated" if result.calibrated else "not calibrated"
    failed = "; ".join(
        f"{name}: {signal.error or ''}"
        for name, signal in result.signals.items()
        if signal.missing and not signal.abstention
    )
    head = f"{result.reason}; " if result.reason else ""
    return f"{head}{calibrated}; fusion {result.fusion}" + (f"; degraded, missing {failed}" if failed else "")


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
            attrs = evaluation_attributes(signal.name, signal.value, explanation, abstained=signal.abstention)
            record_evaluation(span, attrs)
            span.set_attributes(_usage_attributes(signal.usage))
            if signal.abstention:
                span.set_attribute("trustscore.signal.abstained", True)
            elif signal.missing:
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
