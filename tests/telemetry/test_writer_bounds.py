"""A score writer reads its server's answer with the judge client's bounds: a huge answer is refused
without reading it all, and a trickled one is cut off at the export's deadline (a fake clock here)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.telemetry.conftest import loopback_server
from trustscore.telemetry import EVALUATION_EVENT
from trustscore.telemetry._writer import MAX_ANSWER_BYTES
from trustscore.telemetry.langfuse import LangfuseScoreExporter

ANSWER_BYTES = 64 * 2**20
PIECE = 64 * 1024


@dataclass
class Hostile:
    """A server that answers ``size`` announced bytes in ``piece``-sized writes until the client hangs
    up; ``sent`` counts what it managed to write, ``done`` is set when it stops."""

    url: str = ""
    size: int = ANSWER_BYTES
    piece: int = PIECE
    pace: Callable[[], None] = lambda: None
    sent: int = 0
    done: threading.Event = field(default_factory=threading.Event)


@pytest.fixture
def hostile() -> Iterator[Hostile]:
    state = Hostile()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(state.size))
            self.end_headers()
            try:
                while state.sent < state.size:
                    state.pace()
                    self.wfile.write(b" " * state.piece)
                    self.wfile.flush()
                    state.sent += state.piece
            except OSError:
                pass  # the client hung up
            finally:
                state.done.set()

        def log_message(self, *args: Any) -> None:
            return None

    with loopback_server(Handler) as state.url:
        yield state


def scored_spans() -> list[Any]:
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    with provider.get_tracer("t").start_as_current_span("trustscore.score") as span:
        span.add_event(
            EVALUATION_EVENT, {"gen_ai.evaluation.name": "lynx", "gen_ai.evaluation.score.value": 0.9}
        )
    return list(spans.get_finished_spans())


def test_a_huge_answer_is_refused_without_reading_it_all(hostile: Hostile) -> None:
    exporter = LangfuseScoreExporter(hostile.url, "pk", "sk")
    assert exporter.export(scored_spans()) is SpanExportResult.FAILURE
    exporter.shutdown()
    assert hostile.done.wait(60)
    assert hostile.sent < ANSWER_BYTES // 4, f"read {hostile.sent:,} bytes; the cap is {MAX_ANSWER_BYTES:,}"


def test_a_trickled_answer_ends_at_the_export_deadline(hostile: Hostile) -> None:
    now = [0.0]
    never = threading.Event()

    def clock() -> float:
        """Each look at the clock is 4 s later: the export's 10 s are over at the third."""
        now[0] += 4.0
        return now[0]

    hostile.size, hostile.piece, hostile.pace = 2000, 1, lambda: never.wait(0.01)  # a byte at a time
    exporter = LangfuseScoreExporter(hostile.url, "pk", "sk", timeout_s=10.0)
    exporter._clock = clock
    assert exporter.export(scored_spans()) is SpanExportResult.FAILURE
    exporter.shutdown()
    assert hostile.done.wait(60)
    assert now[0] <= 20.0, "refused at the first piece past the deadline (0 + 10 s)"
    assert hostile.sent < 20, f"read {hostile.sent} of {hostile.size} trickled bytes"
