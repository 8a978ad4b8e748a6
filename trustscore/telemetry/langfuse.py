"""Evaluation events as Langfuse scores.

Langfuse takes the spans over OTLP (``{host}/api/public/otel/v1/traces``): a ``chat`` span becomes a
generation (model, usage, and with content capture on its input and output), a signal's span an
evaluator observation. It makes no score of a span event, though: scores enter only through its scores
API. :class:`LangfuseScoreExporter` is an OpenTelemetry span exporter (``opentelemetry-sdk``) that
writes every ``gen_ai.evaluation.result`` event of the spans it is given as a NUMERIC score on its span's
observation, in one ``POST /api/public/ingestion`` batch of ``score-create`` events per export: name,
value, the explanation as comment, the label in the metadata. A missing signal has no value and so no
score (its span is an ERROR observation with the reason as status message; a signal that abstained
is not an error, and its span says ``trustscore.signal.abstained``). Add it beside the OTLP
exporter::

    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(f"{host}/api/public/otel/v1/traces",
        headers={"Authorization": f"Basic {token}", "x-langfuse-ingestion-version": "4"})))
    provider.add_span_processor(BatchSpanProcessor(LangfuseScoreExporter(host, public_key, secret_key)))

Langfuse links a score to its trace and observation by id (OpenTelemetry's trace and span ids in hex),
whichever arrives first. A score's id is derived from its span and name, so a batch sent again
overwrites the same scores instead of adding copies.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import httpx
from opentelemetry.sdk.trace import ReadableSpan

from trustscore.telemetry._writer import EvaluationWriter, evaluations

__all__ = ["LangfuseScoreExporter", "scores_of"]


def scores_of(span: ReadableSpan) -> list[dict[str, Any]]:
    """The Langfuse score bodies for the evaluation events of ``span`` that hold a value."""
    context = span.get_span_context()
    if context is None:
        return []
    trace_id, span_id = format(context.trace_id, "032x"), format(context.span_id, "016x")
    annotator = "LLM" if "trustscore.judge" in (span.attributes or {}) else "CODE"
    out = []
    for e in evaluations(span):
        value = e.get("gen_ai.evaluation.score.value")
        if value is None:
            continue
        name = str(e.get("gen_ai.evaluation.name", span.name))
        body: dict[str, Any] = {
            "id": f"trustscore-{trace_id}-{span_id}-{name}",
            "traceId": trace_id,
            "observationId": span_id,
            "name": name,
            "value": float(value),  # type: ignore[arg-type]
            "dataType": "NUMERIC",
            "metadata": {
                "source": "trustscore",
                "label": e.get("gen_ai.evaluation.score.label"),
                "annotator": annotator,
            },
        }
        if explanation := e.get("gen_ai.evaluation.explanation"):
            body["comment"] = str(explanation)
        out.append(body)
    return out


class LangfuseScoreExporter(EvaluationWriter):
    """Writes the evaluation events of exported spans as scores to Langfuse at ``endpoint`` (its base
    URL: ``https://cloud.langfuse.com``, ``http://localhost:3000``), authenticated with the project's
    public and secret key (HTTP Basic, as Langfuse's own SDKs do)."""

    path = "/api/public/ingestion"

    def __init__(self, endpoint: str, public_key: str, secret_key: str, *, timeout_s: float = 10.0) -> None:
        token = base64.b64encode(f"{public_key}:{secret_key}".encode()).decode("ascii")
        super().__init__(endpoint, headers={"Authorization": f"Basic {token}"}, timeout_s=timeout_s)

    def payload(self, spans: Sequence[ReadableSpan]) -> dict[str, Any] | None:
        now = datetime.now(UTC).isoformat()
        batch = [
            {"id": str(uuid.uuid4()), "timestamp": now, "type": "score-create", "body": score}
            for span in spans
            for score in scores_of(span)
        ]
        return {"batch": batch} if batch else None

    def accepted(self, response: httpx.Response) -> bool:
        """Langfuse answers a batch with 207 and a list of the events it refused: none may be."""
        if not response.is_success:
            return False
        try:
            answer = response.json()
        except ValueError:
            return False
        return isinstance(answer, Mapping) and not answer.get("errors")
