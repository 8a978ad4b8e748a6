"""Evaluation events as Arize Phoenix span annotations.

Phoenix shows the spans it receives over OTLP, but a score shows in its evaluation columns only as an
annotation. :class:`PhoenixAnnotationExporter` is an OpenTelemetry span exporter (``opentelemetry-sdk``)
that writes every ``gen_ai.evaluation.result`` event of the spans it is given as one annotation on its
span (``POST /v1/span_annotations``): name, score, label, explanation; ``annotator_kind`` LLM for a
judge's span, CODE for a local signal's and the fused score's. Add it beside the OTLP exporter::

    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(f"{phoenix}/v1/traces")))
    provider.add_span_processor(BatchSpanProcessor(PhoenixAnnotationExporter(phoenix)))

Phoenix queues annotations whose span has not arrived yet, so the two exporters need no ordering.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan

from trustscore.telemetry._writer import EvaluationWriter, evaluations

__all__ = ["PhoenixAnnotationExporter", "annotations_of"]


def annotations_of(span: ReadableSpan) -> list[dict[str, Any]]:
    """The Phoenix annotations for the evaluation events of ``span``."""
    context = span.get_span_context()
    if context is None:
        return []
    attrs = span.attributes or {}
    kind = "LLM" if "trustscore.judge" in attrs else "CODE"
    out = []
    for e in evaluations(span):
        result = {
            "score": e.get("gen_ai.evaluation.score.value"),
            "label": e.get("gen_ai.evaluation.score.label") or e.get("error.type"),
            "explanation": e.get("gen_ai.evaluation.explanation"),
        }
        out.append(
            {
                "span_id": format(context.span_id, "016x"),
                "name": str(e.get("gen_ai.evaluation.name", span.name)),
                "annotator_kind": kind,
                "result": result,
                "metadata": {"source": "trustscore"},
            }
        )
    return out


class PhoenixAnnotationExporter(EvaluationWriter):
    """Writes the evaluation events of exported spans to Phoenix at ``endpoint`` (its base URL, e.g.
    ``http://127.0.0.1:6006``). ``api_key``: for a Phoenix with authentication on."""

    path = "/v1/span_annotations"

    def __init__(self, endpoint: str, *, api_key: str | None = None, timeout_s: float = 10.0) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        super().__init__(endpoint, headers=headers, timeout_s=timeout_s)

    def payload(self, spans: Sequence[ReadableSpan]) -> dict[str, Any] | None:
        data = [annotation for span in spans for annotation in annotations_of(span)]
        return {"data": data} if data else None
