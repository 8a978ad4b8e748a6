"""The shape both score writers share: an OpenTelemetry span exporter that turns the
``gen_ai.evaluation.result`` events of the spans it is given into one JSON POST to a tool's own API
(Phoenix's span annotations, Langfuse's scores), for tools that do not read scores from OTLP.

The tool's answer is read as the judge client reads a judge's: at most :data:`MAX_ANSWER_BYTES`
(decoded; a larger or gzip-bombed answer is refused without reading the rest), and the whole export
within ``timeout_s`` (a server trickling its answer is cut off at that deadline, checked as each piece
arrives, so a piece that never comes costs at most one read timeout more). A refused answer is a failed
export; nothing is raised into the span processor."""

from __future__ import annotations

import time
from abc import abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import httpx
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from trustscore._errors import BadResponse
from trustscore.core._bounded_body import read_bounded_sync
from trustscore.telemetry._spans import EVALUATION_EVENT

__all__ = ["MAX_ANSWER_BYTES", "EvaluationWriter", "evaluations"]

MAX_ANSWER_BYTES = 4 * 2**20
"""Largest answer read from a score writer's server (a batch's answer lists at most its refusals)."""


def evaluations(span: ReadableSpan) -> Iterator[Mapping[str, Any]]:
    """The attributes of each evaluation event on ``span``."""
    for event in span.events:
        if event.name == EVALUATION_EVENT:
            yield event.attributes or {}


class EvaluationWriter(SpanExporter):
    """POSTs :meth:`payload` of each exported batch to ``path`` under ``endpoint`` (a base URL)."""

    path: str

    def __init__(
        self,
        endpoint: str,
        *,
        headers: Mapping[str, str],
        timeout_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        # Only what read_bounded_sync decodes within its limit (httpx would also offer br and zstd).
        headers = {"Accept-Encoding": "gzip, deflate", **headers}
        self._client = httpx.Client(base_url=endpoint.rstrip("/"), headers=headers, timeout=timeout_s)
        self._timeout_s = timeout_s
        self._clock = clock

    @abstractmethod
    def payload(self, spans: Sequence[ReadableSpan]) -> dict[str, Any] | None:
        """The request body for these spans, or None when they hold nothing to write."""

    def accepted(self, response: httpx.Response) -> bool:
        """Whether the server took everything sent (``response.content`` is the bounded answer)."""
        return response.is_success

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        body = self.payload(spans)
        if body is None:
            return SpanExportResult.SUCCESS
        deadline = self._clock() + self._timeout_s
        try:
            with self._client.stream("POST", self.path, json=body) as response:
                encoding = response.headers.get("content-encoding", "")
                content = read_bounded_sync(
                    response.iter_raw(),
                    encoding,
                    limit=MAX_ANSWER_BYTES,
                    deadline=deadline,
                    clock=self._clock,
                )
        except (httpx.HTTPError, BadResponse):
            return SpanExportResult.FAILURE
        kept = {"content-type": response.headers.get("content-type", "")}  # content is decoded already
        answer = httpx.Response(response.status_code, headers=kept, content=content)
        return SpanExportResult.SUCCESS if self.accepted(answer) else SpanExportResult.FAILURE

    def shutdown(self) -> None:
        self._client.close()
