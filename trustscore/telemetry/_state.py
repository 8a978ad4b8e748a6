"""Whether telemetry is on, and the tracer and instruments it records with.

Telemetry is on when ``opentelemetry-api`` is importable and a tracer (or meter) provider is
configured: the process-wide one (``opentelemetry.trace.set_tracer_provider``), or the one given to
:func:`configure`. Evaluation results go out as log-based events when a logger provider is configured
the same way (:func:`event_logger`), as span events otherwise. Off, every hook costs one function call
and a comparison; OpenTelemetry is never imported until a hook runs, so ``import trustscore`` stays
light.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from opentelemetry._logs import Logger, LoggerProvider
    from opentelemetry.metrics import CallbackOptions, Counter, Histogram, Meter, MeterProvider, Observation
    from opentelemetry.trace import Tracer, TracerProvider

__all__ = ["Instruments", "configure", "event_logger", "instruments", "queue_depths", "tracer"]

_SCOPE = "trustscore"

# gen_ai.client.token.usage's advisory buckets from the GenAI metrics conventions (1 ... 4^13 tokens).
_TOKEN_BUCKETS = [float(4**i) for i in range(14)]
_DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]
_SCORE_BUCKETS = [i / 10 for i in range(1, 11)]


class _State:
    available: bool | None = None  # opentelemetry-api importable (None: not looked yet)
    tracer_provider: Any = None  # configure()'s, else the global one
    meter_provider: Any = None
    logger_provider: Any = None
    tracer_for: tuple[Any, Tracer] | None = None  # the provider a cached tracer came from
    instruments_for: tuple[Any, Instruments] | None = None
    logger_for: tuple[Any, Logger] | None = None
    global_tracer_provider: Any = None  # opentelemetry's getters and "nothing set up" types, once imported
    global_meter_provider: Any = None
    global_logger_provider: Any = None
    tracing_off: tuple[type, ...] = ()
    metrics_off: tuple[type, ...] = ()
    logs_off: tuple[type, ...] = ()


_state = _State()

queue_depths: dict[int, Callable[[], int]] = {}
"""How many samples wait in each live Monitor's queue (by the Monitor's id), read by the depth gauge."""


def _queue_depth(options: CallbackOptions) -> Iterable[Observation]:
    from opentelemetry.metrics import Observation

    return [Observation(sum(depth() for depth in list(queue_depths.values())))]


def configure(
    tracer_provider: TracerProvider | None = None,
    meter_provider: MeterProvider | None = None,
    logger_provider: LoggerProvider | None = None,
) -> None:
    """Send trustscore's spans, metrics and evaluation events to these providers instead of the
    process-wide ones (``None``: back to the process-wide ones). For an application that keeps its own
    providers, and for tests."""
    _state.tracer_provider = tracer_provider
    _state.meter_provider = meter_provider
    _state.logger_provider = logger_provider


def _importable() -> bool:
    """Whether opentelemetry-api is installed; on the first call, keeps what the checks need."""
    if _state.available is None:
        try:
            from opentelemetry import _logs, metrics, trace
            from opentelemetry._logs import NoOpLoggerProvider
            from opentelemetry._logs._internal import ProxyLoggerProvider
            from opentelemetry.metrics import NoOpMeterProvider
            from opentelemetry.metrics._internal import _ProxyMeterProvider
        except ImportError:
            _state.available = False
        else:
            _state.global_tracer_provider = trace.get_tracer_provider
            _state.global_meter_provider = metrics.get_meter_provider
            _state.global_logger_provider = _logs.get_logger_provider
            _state.logs_off = (ProxyLoggerProvider, NoOpLoggerProvider)
            _state.tracing_off = (trace.ProxyTracerProvider, trace.NoOpTracerProvider)
            _state.metrics_off = (_ProxyMeterProvider, NoOpMeterProvider)
            _state.available = True
    return _state.available


def tracer() -> Tracer | None:
    """trustscore's tracer, or None when no tracer provider is configured (telemetry off)."""
    if not (_state.available or _importable()):
        return None
    provider = _state.tracer_provider or _state.global_tracer_provider()
    if type(provider) in _state.tracing_off:
        return None
    cached, _state.tracer_for = _made_for(provider, _state.tracer_for, provider.get_tracer)
    return cached


@dataclass(frozen=True)
class Instruments:
    """The metrics trustscore records, on one meter."""

    scores: Histogram
    score_duration: Histogram
    missing_signals: Counter
    incomplete_scores: Counter
    degraded_scores: Counter
    abstained_scores: Counter
    llm_requests: Counter
    llm_retries: Counter
    llm_cache_hits: Counter
    token_usage: Histogram
    operation_duration: Histogram
    monitor_dropped: Counter

    @classmethod
    def on(cls, meter: Meter) -> Instruments:
        meter.create_observable_gauge(  # observed at collection: no handle to keep
            "trustscore.monitor.queue.depth",
            callbacks=[_queue_depth],
            unit="{sample}",
            description="Samples waiting in the queues of the live Monitors",
        )
        made: dict[str, Any] = {}
        for field, name, unit, description, buckets in _INSTRUMENTS:
            if buckets is None:
                made[field] = meter.create_counter(name, unit=unit, description=description)
            else:
                made[field] = meter.create_histogram(
                    name, unit=unit, description=description, explicit_bucket_boundaries_advisory=buckets
                )
        return cls(**made)


_INSTRUMENTS: tuple[tuple[str, str, str, str, Sequence[float] | None], ...] = (
    ("scores", "trustscore.score", "1", "Fused scores", _SCORE_BUCKETS),
    ("score_duration", "trustscore.score.duration", "s", "Seconds per score call", _DURATION_BUCKETS),
    ("missing_signals", "trustscore.signal.missing", "{signal}", "Signals that gave no value", None),
    (
        "incomplete_scores",
        "trustscore.score.incomplete",
        "{score}",
        "Scores cut by the budget or missing a signal for a reason a rerun may fix",
        None,
    ),
    (
        "degraded_scores",
        "trustscore.score.degraded",
        "{score}",
        "Scores fused without every signal that ran (TrustScore.degraded)",
        None,
    ),
    (
        "abstained_scores",
        "trustscore.score.abstained",
        "{score}",
        "Scores of responses that decline to answer (TrustScore.abstained; not degraded)",
        None,
    ),
    ("llm_requests", "trustscore.llm.requests", "{request}", "LLM requests sent, retries included", None),
    ("llm_retries", "trustscore.llm.retries", "{request}", "LLM requests beyond the first of a call", None),
    ("llm_cache_hits", "trustscore.llm.cache_hits", "{request}", "LLM calls answered from the cache", None),
    ("token_usage", "gen_ai.client.token.usage", "{token}", "Tokens per LLM call", _TOKEN_BUCKETS),
    (
        "operation_duration",
        "gen_ai.client.operation.duration",
        "s",
        "Seconds per LLM call",
        _DURATION_BUCKETS,
    ),
    (
        "monitor_dropped",
        "trustscore.monitor.dropped",
        "{sample}",
        "Samples submitted to a Monitor and not queued (trustscore.monitor.drop_reason)",
        None,
    ),
)
"""Each instrument of :class:`Instruments`: its field, OpenTelemetry name, unit, description, and its
bucket boundaries for a histogram (None: a counter)."""


def instruments() -> Instruments | None:
    """trustscore's metric instruments, or None when no meter provider is configured."""
    if not (_state.available or _importable()):
        return None
    provider = _state.meter_provider or _state.global_meter_provider()
    if type(provider) in _state.metrics_off:
        return None
    cached = _state.instruments_for
    if cached is not None and cached[0] is provider:
        return cached[1]
    from trustscore._version import __version__

    made = Instruments.on(provider.get_meter(_SCOPE, __version__))
    _state.instruments_for = (provider, made)
    return made


def event_logger() -> Logger | None:
    """trustscore's logger for log-based events, or None when no logger provider is configured (the
    user's SDK has no logs pipeline: evaluation results then stay span events)."""
    if not (_state.available or _importable()):
        return None
    provider = _state.logger_provider or _state.global_logger_provider()
    if type(provider) in _state.logs_off:
        return None
    cached, _state.logger_for = _made_for(provider, _state.logger_for, provider.get_logger)
    return cached


T = TypeVar("T")


def _made_for(
    provider: Any, cached: tuple[Any, T] | None, make: Callable[[str, str], T]
) -> tuple[T, tuple[Any, T]]:
    """trustscore's tracer or logger from ``provider``: the cached one while the provider is the same
    (providers can be swapped, as tests do), else a new one; with what to cache."""
    if cached is not None and cached[0] is provider:
        return cached[1], cached
    from trustscore._version import __version__

    made = make(_SCOPE, __version__)
    return made, (provider, made)
