"""The scoring service's Prometheus metrics (``GET /metrics``), on a registry of its own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from trustscore.telemetry._spans import label

if TYPE_CHECKING:
    from trustscore._types import TrustScore
    from trustscore.api._admission import Admission

__all__ = ["ServiceMetrics"]

_SECONDS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 60)


class ServiceMetrics:
    def __init__(self, admission: Admission) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "trustscore_api_requests", "HTTP requests answered", ["route", "status"], registry=r
        )
        self.rejected = Counter(
            "trustscore_api_rejected", "Requests refused with 429 because the queue was full", registry=r
        )
        in_flight = Gauge("trustscore_api_in_flight", "Samples being scored", registry=r)
        in_flight.set_function(lambda: admission.running)
        queued = Gauge("trustscore_api_queued", "Samples admitted and waiting for a slot", registry=r)
        queued.set_function(lambda: admission.queued)
        self.scores = Counter("trustscore_scores", "Samples scored", ["label"], registry=r)
        self.failed = Counter("trustscore_samples_failed", "Samples answered with an error", registry=r)
        self.incomplete = Counter(
            "trustscore_scores_incomplete",
            "Scores cut by the budget or missing a transient signal",
            registry=r,
        )
        self.abstained = Counter(
            "trustscore_scores_abstained",
            "Samples whose response declines to answer (not degraded)",
            registry=r,
        )
        self.seconds = Histogram(
            "trustscore_score_seconds", "Seconds per scored sample", buckets=_SECONDS, registry=r
        )
        self.missing = Counter(
            "trustscore_signal_missing", "Signals that gave no value", ["signal"], registry=r
        )
        self.llm_requests = Counter(
            "trustscore_llm_requests", "LLM requests sent (retries included)", ["signal"], registry=r
        )
        self.tokens = Counter("trustscore_llm_tokens", "LLM tokens", ["signal", "type"], registry=r)
        self.cache_hits = Counter(
            "trustscore_llm_cache_hits", "LLM calls answered from the cache", ["signal"], registry=r
        )

    def record(self, result: TrustScore) -> None:
        self.scores.labels("none" if result.score is None else label(result.score)).inc()
        self.seconds.observe(result.seconds)
        if not result.complete:
            self.incomplete.inc()
        if result.abstained:
            self.abstained.inc()
        for name, signal in result.signals.items():
            if signal.missing and not signal.abstention:  # an abstention is counted apart
                self.missing.labels(name).inc()
            usage = signal.usage
            if usage.requests:
                self.llm_requests.labels(name).inc(usage.requests)
                self.tokens.labels(name, "input").inc(usage.prompt_tokens)
                self.tokens.labels(name, "output").inc(usage.completion_tokens)
            if usage.cache_hits:
                self.cache_hits.labels(name).inc(usage.cache_hits)

    def render(self) -> bytes:
        return generate_latest(self.registry)
