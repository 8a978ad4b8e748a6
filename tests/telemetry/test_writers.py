"""The score writers against a fake receiver on loopback: Langfuse scores and Phoenix annotations
from the evaluation events of a real score's spans."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from opentelemetry.sdk.trace.export import SpanExportResult

from tests.telemetry.conftest import Recorded, loopback_server
from trustscore import Config, Scorer, TrustScore
from trustscore.telemetry.langfuse import LangfuseScoreExporter
from trustscore.telemetry.phoenix import PhoenixAnnotationExporter

testing = pytest.importorskip("trustscore.testing")
Q = "Who wrote Dune?"
CTX = ["Dune is a 1965 novel by Frank Herbert."]
SECRET = "sk-lf-test-secret"


@dataclass
class Receiver:
    url: str
    requests: list[tuple[str, dict[str, str], Any]] = field(default_factory=list)
    status: int = 200
    answer: Any = field(default_factory=dict)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """An HTTP server on loopback that records each POST and answers ``status`` with ``answer``."""
    state = Receiver(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            reply = json.dumps(state.answer).encode()
            self.send_response(state.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args: Any) -> None:
            return None

    with loopback_server(Handler) as state.url:
        yield state


def config() -> Config:
    return Config.from_dict(
        {
            "endpoints": {"judge": {"base_url": "http://fake-vllm.test:8123/v1", "model": "fake-judge"}},
            "judges": {"lynx": {"endpoint": "judge"}},
            "signals": {"embedding": {"enabled": False}, "claims": {"enabled": False}},
            "cache": {"mode": "off"},
        }
    )


async def scored(recorded: Recorded, router: Any = None) -> TrustScore:
    router = router or testing.MockRouter(testing.judge_policy())
    async with Scorer(config(), transport=router.transport) as scorer:
        return await scorer.score(question=Q, context=CTX, response="Frank Herbert.")


@pytest.mark.anyio
async def test_langfuse_scores_sit_on_their_spans(recorded: Recorded, receiver: Receiver) -> None:
    result = await scored(recorded)
    spans = {s.name: s for s in recorded.spans.get_finished_spans()}
    receiver.answer = {"successes": [], "errors": []}
    exporter = LangfuseScoreExporter(receiver.url + "/", "pk-lf-test", SECRET)
    assert exporter.export(list(spans.values())) is SpanExportResult.SUCCESS
    assert exporter.export(list(spans.values())) is SpanExportResult.SUCCESS  # sent again
    exporter.shutdown()
    (path, headers, body), (_, _, again) = receiver.requests
    assert path == "/api/public/ingestion"
    assert headers["authorization"] == "Basic " + base64.b64encode(f"pk-lf-test:{SECRET}".encode()).decode()
    assert {e["type"] for e in body["batch"]} == {"score-create"}
    scores = {e["body"]["name"]: e["body"] for e in body["batch"]}
    root = spans["trustscore.score"]
    expected = {
        "trustscore.fused": (root, result.score, "CODE"),
        "lynx": (spans["judge lynx"], result.signals["lynx"].value, "LLM"),
        "lexical": (spans["signal lexical"], result.signals["lexical"].value, "CODE"),
    }
    assert set(scores) == set(expected)
    for name, (span, value, annotator) in expected.items():
        score = scores[name]
        assert score["traceId"] == format(root.context.trace_id, "032x"), name
        assert score["observationId"] == format(span.context.span_id, "016x"), name
        assert score["value"] == value and score["dataType"] == "NUMERIC", name
        assert score["metadata"]["annotator"] == annotator and score["metadata"]["label"] in ("pass", "fail")
    assert "missing" not in scores["trustscore.fused"].get("comment", "")
    assert sorted(e["body"]["id"] for e in again["batch"]) == sorted(s["id"] for s in scores.values())
    assert SECRET not in json.dumps(body)


@pytest.mark.anyio
async def test_a_missing_signal_has_no_langfuse_score(recorded: Recorded, receiver: Receiver) -> None:
    router = testing.MockRouter(testing.judge_policy())
    router.engine.faults.add(testing.Fault.server_error(), when=lambda req: req.judge == "lynx")
    await scored(recorded, router)
    exporter = LangfuseScoreExporter(receiver.url, "pk", "sk")
    assert exporter.export(recorded.spans.get_finished_spans()) is SpanExportResult.SUCCESS
    (_, _, body) = receiver.requests[0]
    scores = {e["body"]["name"]: e["body"] for e in body["batch"]}
    assert "lynx" not in scores and "lexical" in scores
    assert "missing lynx" in scores["trustscore.fused"]["comment"]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("status", "answer"),
    [(207, {"successes": [], "errors": [{"id": "x", "status": 400, "message": "bad"}]}), (401, {})],
)
async def test_langfuse_refusals_fail_the_export(
    recorded: Recorded, receiver: Receiver, status: int, answer: Any
) -> None:
    await scored(recorded)
    receiver.status, receiver.answer = status, answer
    exporter = LangfuseScoreExporter(receiver.url, "pk", "sk")
    assert exporter.export(recorded.spans.get_finished_spans()) is SpanExportResult.FAILURE


def test_an_unreachable_receiver_fails_the_export_and_no_scores_send_nothing(receiver: Receiver) -> None:
    down = LangfuseScoreExporter("http://127.0.0.1:9", "pk", "sk", timeout_s=2.0)
    span = _span_with_one_score()
    assert down.export([span]) is SpanExportResult.FAILURE
    assert LangfuseScoreExporter(receiver.url, "pk", "sk").export([]) is SpanExportResult.SUCCESS
    assert receiver.requests == []


def _span_with_one_score() -> Any:
    from opentelemetry.sdk.trace import TracerProvider

    from trustscore import telemetry

    with TracerProvider().get_tracer("t").start_as_current_span("signal lexical") as span:
        span.add_event(
            telemetry.EVALUATION_EVENT,
            {"gen_ai.evaluation.name": "lexical", "gen_ai.evaluation.score.value": 0.9},
        )
    return span


@pytest.mark.anyio
async def test_phoenix_annotations_through_the_shared_writer(recorded: Recorded, receiver: Receiver) -> None:
    result = await scored(recorded)
    exporter = PhoenixAnnotationExporter(receiver.url, api_key="phx-key")
    assert exporter.export(recorded.spans.get_finished_spans()) is SpanExportResult.SUCCESS
    (path, headers, body) = receiver.requests[0]
    assert path == "/v1/span_annotations" and headers["authorization"] == "Bearer phx-key"
    annotations = {a["name"]: a for a in body["data"]}
    assert annotations["lynx"]["annotator_kind"] == "LLM"
    assert annotations["trustscore.fused"]["result"]["score"] == result.score
    receiver.status = 500
    assert exporter.export(recorded.spans.get_finished_spans()) is SpanExportResult.FAILURE
