"""The shape both score writers share: an OpenTelemetry span exporter that turns the
``gen_ai.evaluation.result`` events of the spans it is given into one JSON POST to a tool's own API
(Phoenix's span annotations, Langfuse's scores), for tools that do not read scores from OTLP."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import httpx
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from trustscore.telemetry._spans import EVALUATION_EVENT

__all__ = ["EvaluationWriter", "evaluations"]


def evaluations(span: ReadableSpan) -> Iterator[Mapping[str, Any]]:
    """The attributes of each evaluation event on ``span``."""
    for event in span.events:
        if event.name == EVALUATION_EVENT:
            yield event.attributes or {}


class EvaluationWriter(SpanExporter):
    """POSTs :meth:`payload` of each exported batch to ``path`` under ``endpoint`` (a base URL)."""

    path: str

    def __init__(self, endpoint: str, *, headers: Mapping[str, str], timeout_s: float) -> None:
        self._client = httpx.Client(base_url=endpoint.rstrip("/"), headers=dict(headers), timeout=timeout_s)

    @abstractmethod
    def payload(self, spans: Sequence[ReadableSpan]) -> dict[str, Any] | None:
        """The request body for these spans, or None when they hold nothing to write."""

    def accepted(self, response: httpx.Response) -> bool:
        """Whether the server took everything sent."""
        return response.is_success

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        body = self.payload(spans)
        if body is None:
            return SpanExportResult.SUCCESS
        try:
            response = self._client.post(self.path, json=body)
        except httpx.HTTPError:
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS if self.accepted(response) else SpanExportResult.FAILURE

    def shutdown(self) -> None:
        self._client.close()
