"""Sampled online monitoring: submit never waits, drops are counted, the queue is flushed on exit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from trustscore import Config, InputError, Sample, Scorer, Signal
from trustscore.monitor import Monitor

pytestmark = pytest.mark.anyio

OFFLINE = Config.from_dict({"signals": {"embedding": {"enabled": False}}, "cache": {"mode": "off"}})
ANSWER = {
    "question": "Who wrote Dune?",
    "context": ["Dune is a 1965 novel by Frank Herbert."],
    "response": "Frank Herbert.",
}


class Gate:
    name = "gate"
    version = "gate@1"

    def __init__(self) -> None:
        self.open = anyio.Event()
        self.entered = anyio.Event()

    async def run(self, sample: Sample) -> Signal:
        self.entered.set()
        await self.open.wait()
        return Signal(name=self.name, value=0.7)


async def test_every_drawn_answer_is_scored_into_the_sink_on_exit(tmp_path: Path) -> None:
    sink = tmp_path / "scores.jsonl"
    async with Scorer(OFFLINE) as scorer, Monitor(scorer, sink=sink, concurrency=2) as monitor:
        for i in range(5):
            assert monitor.submit(**ANSWER, id=f"a{i}", metadata={"route": "/ask"})
    rows = [json.loads(line) for line in sink.read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == [f"a{i}" for i in range(5)]
    assert all(r["route"] == "/ask" and 0 <= r["score"] <= 1 for r in rows)
    assert (monitor.stats.submitted, monitor.stats.sampled, monitor.stats.scored) == (5, 5, 5)


async def test_a_named_domain_is_carried_as_the_input_rows_carry_it(tmp_path: Path) -> None:
    sink = tmp_path / "scores.jsonl"
    async with Scorer(OFFLINE) as scorer, Monitor(scorer, sink=sink) as monitor:
        assert monitor.submit(**ANSWER, id="named", domain="support")
        assert monitor.submit(**ANSWER, id="unnamed")
    rows = {r["id"]: r for r in map(json.loads, sink.read_text().splitlines())}
    assert rows["named"]["sample_domain"] == "support" and "sample_domain" not in rows["unnamed"]
    assert rows["named"]["score"] == rows["unnamed"]["score"]  # the shipped model holds no adaptation


@pytest.mark.parametrize("key", ["score", "id", "trustscore", "signals", "reason"])
async def test_metadata_that_would_replace_the_result_in_its_row_is_refused(key: str, tmp_path: Path) -> None:
    """Written through, {"score": 0.99} would have stood in the sink's row in place of the score found."""
    sink = tmp_path / "scores.jsonl"
    async with Scorer(OFFLINE) as scorer, Monitor(scorer, sink=sink) as monitor:
        refused = rf"metadata: key\(s\) \['{key}'\] would replace the result's own"
        with pytest.raises(InputError, match=refused):
            monitor.submit(**ANSWER, metadata={key: 0.99})
        with pytest.raises(InputError, match="sample_domain"):
            monitor.submit(**ANSWER, metadata={"sample_domain": "x"}, domain="support")
        assert monitor.submit(**ANSWER, metadata={"sample_domain": "kept when no domain is named"})
    assert monitor.stats.submitted == 1
    (row,) = map(json.loads, sink.read_text().splitlines())
    assert row["sample_domain"] == "kept when no domain is named" and 0 <= row["score"] <= 1


async def test_a_full_queue_drops_and_counts_without_waiting() -> None:
    gate = Gate()
    async with (
        Scorer(OFFLINE, local_signals=[gate]) as scorer,
        Monitor(scorer, max_queued=2, concurrency=1) as m,
    ):
        assert m.submit(**ANSWER)
        await gate.entered.wait()  # the one worker holds the first; two more fill the queue
        assert m.submit(**ANSWER) and m.submit(**ANSWER)
        assert not m.submit(**ANSWER) and not m.submit(**ANSWER)
        gate.open.set()
    s = m.stats
    assert (s.submitted, s.sampled, s.dropped, s.scored) == (5, 3, 2, 3)


async def test_the_sample_rate_draws_a_fraction() -> None:
    async with Scorer(OFFLINE) as scorer:
        async with Monitor(scorer, sample_rate=0.0) as none:
            assert not any(none.submit(**ANSWER) for _ in range(20))
        async with Monitor(scorer, sample_rate=0.25, seed=7) as some:
            drawn = sum(some.submit(**ANSWER) for _ in range(400))
    assert none.stats.scored == 0 and none.stats.submitted == 20
    assert 60 <= drawn <= 140 and some.stats.scored == drawn


async def test_bad_input_and_misuse_are_named() -> None:
    async with Scorer(OFFLINE) as scorer:
        monitor = Monitor(scorer)
        with pytest.raises(InputError, match="async with"):
            monitor.submit(**ANSWER)
        async with monitor:
            with pytest.raises(InputError, match="response"):
                monitor.submit(question="q", response=None)  # type: ignore[arg-type]
        with pytest.raises(InputError, match="sample_rate"):
            Monitor(scorer, sample_rate=1.5)


async def test_a_failing_score_is_counted_not_raised() -> None:
    class Broken(Scorer):
        async def score_sample(self, sample: Sample, *, budget_s: float | None = None):  # type: ignore[override]
            raise RuntimeError("boom")

    async with Broken(OFFLINE) as scorer, Monitor(scorer) as monitor:
        monitor.submit(**ANSWER)
    assert monitor.stats.failed == 1 and monitor.stats.scored == 0


async def test_the_score_span_is_parented_to_the_submitting_request() -> None:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from trustscore import telemetry

    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    telemetry.configure(provider)
    try:
        async with Scorer(OFFLINE) as scorer, Monitor(scorer) as monitor:
            with provider.get_tracer("app").start_as_current_span("answer request") as request:
                monitor.submit(**ANSWER)
    finally:
        telemetry.configure()
    (score,) = [s for s in spans.get_finished_spans() if s.name == "trustscore.score"]
    assert score.parent is not None and score.parent.span_id == request.get_span_context().span_id
    assert any(e.name == telemetry.EVALUATION_EVENT for e in score.events)


async def test_drops_and_queue_depth_are_metrics() -> None:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    from trustscore import telemetry

    reader = InMemoryMetricReader()
    telemetry.configure(meter_provider=MeterProvider(metric_readers=[reader]))

    def points(name: str) -> list[Any]:
        data = reader.get_metrics_data()
        return [
            p
            for rm in (data.resource_metrics if data else [])
            for sm in rm.scope_metrics
            for metric in sm.metrics
            if metric.name == name
            for p in metric.data.data_points
        ]

    gate = Gate()
    try:
        async with (
            Scorer(OFFLINE, local_signals=[gate]) as scorer,
            Monitor(scorer, max_queued=2, concurrency=1, sample_rate=0.5, seed=3) as m,
        ):
            while not gate.entered.is_set():  # the one worker holds the first drawn sample
                m.submit(**ANSWER)
                await anyio.lowlevel.checkpoint()
            while m.stats.dropped < 3:  # two more fill the queue, then drawn ones are dropped
                m.submit(**ANSWER)
            (depth,) = points("trustscore.monitor.queue.depth")
            assert depth.value == 2
            gate.open.set()
        (after,) = points("trustscore.monitor.queue.depth")
        dropped = {
            p.attributes["trustscore.monitor.drop_reason"]: p.value
            for p in points("trustscore.monitor.dropped")
        }
    finally:
        telemetry.configure()
    s = m.stats
    assert dropped == {"sampled_out": s.sampled_out, "queue_full": s.dropped} and s.sampled_out > 0
    assert s.submitted == s.sampled + s.sampled_out + s.dropped
    assert after.value == 0, "the queue is drained on exit"
