"""A score as OpenTelemetry sees it: span tree, gen_ai attributes, evaluation events, metrics."""

from __future__ import annotations

from typing import Any

import pytest

import trustscore
from tests.telemetry.conftest import Recorded
from trustscore import Config, Scorer, telemetry

pytestmark = pytest.mark.anyio

testing = pytest.importorskip("trustscore.testing")
Q = "Who wrote Dune?"
CTX = ["Dune is a 1965 novel by Frank Herbert."]


def config(judges: tuple[str, ...] = ("lynx", "prometheus"), **endpoint: Any) -> Config:
    return Config.from_dict(
        {
            "endpoints": {
                "judge": {"base_url": "http://fake-vllm.test:8123/v1", "model": "fake-judge", **endpoint}
            },
            "judges": {name: {"endpoint": "judge"} for name in judges},
            "signals": {"embedding": {"enabled": False}},
            "cache": {"mode": "off"},
        }
    )


def events(span: Any) -> list[dict[str, Any]]:
    return [dict(e.attributes) for e in span.events if e.name == telemetry.EVALUATION_EVENT]


async def test_a_score_is_a_span_tree_with_judge_and_chat_spans(recorded: Recorded) -> None:
    router = testing.MockRouter(testing.judge_policy())
    async with Scorer(config(), transport=router.transport) as scorer:
        result = await scorer.score(question=Q, context=CTX, response="Frank Herbert.", id="s1")
    spans = {s.name: s for s in recorded.spans.get_finished_spans()}
    root = spans["trustscore.score"]
    assert root.parent is None
    assert root.attributes["openinference.span.kind"] == "EVALUATOR"
    assert root.attributes["trustscore.sample.id"] == "s1"
    for name in ("judge lynx", "judge prometheus", "signal lexical"):
        assert spans[name].parent.span_id == root.context.span_id, name
    chats = [s for s in recorded.spans.get_finished_spans() if s.name.startswith("chat ")]
    assert chats and all(s.name == "chat fake-judge" for s in chats)
    lynx_chat = next(s for s in chats if s.attributes["trustscore.judge"] == "lynx")
    assert lynx_chat.parent.span_id == spans["judge lynx"].context.span_id
    assert lynx_chat.kind.name == "CLIENT"
    a = lynx_chat.attributes
    assert a["gen_ai.operation.name"] == "chat" and a["gen_ai.provider.name"] == "vllm"
    assert a["gen_ai.request.model"] == "fake-judge" and a["gen_ai.request.seed"] == 0
    assert a["gen_ai.request.temperature"] == 0.0 and a["gen_ai.request.max_tokens"] > 0
    assert a["server.address"] == "fake-vllm.test" and a["server.port"] == 8123
    assert a["gen_ai.usage.input_tokens"] > 0 and a["gen_ai.usage.output_tokens"] > 0
    assert list(a["gen_ai.response.finish_reasons"]) and a["trustscore.llm.attempts"] == 1
    assert a["trustscore.llm.cache_hit"] is False
    # One evaluation event per signal on its span, and the fused score's on the root.
    (lynx_event,) = events(spans["judge lynx"])
    assert lynx_event["gen_ai.evaluation.name"] == "lynx"
    assert lynx_event["gen_ai.evaluation.score.value"] == result.signals["lynx"].value
    assert lynx_event["gen_ai.evaluation.score.label"] in ("pass", "fail")
    (fused,) = events(root)
    assert fused["gen_ai.evaluation.name"] == telemetry.FUSED_NAME
    assert fused["gen_ai.evaluation.score.value"] == result.score
    assert root.attributes["trustscore.score"] == result.score
    assert root.attributes["trustscore.reason"] == result.reason and result.reason


async def test_the_trace_context_goes_to_the_server(recorded: Recorded) -> None:
    router = testing.MockRouter(testing.judge_policy())
    async with Scorer(config(("lynx",)), transport=router.transport) as scorer:
        await scorer.score(question=Q, context=CTX, response="Frank Herbert.")
    (chat,) = [s for s in recorded.spans.get_finished_spans() if s.name.startswith("chat ")]
    (request,) = router.engine.completion_requests()
    headers = {k.lower(): v for k, v in request.headers.items()}
    trace_id, span_id = headers["traceparent"].split("-")[1:3]
    assert int(trace_id, 16) == chat.context.trace_id and int(span_id, 16) == chat.context.span_id


async def test_a_failed_judge_marks_its_spans_and_counts_retries(recorded: Recorded) -> None:
    router = testing.MockRouter(testing.judge_policy())
    router.engine.faults.add(testing.Fault.server_error(), when=lambda req: req.judge == "lynx")
    async with Scorer(config(("lynx",), max_retries=1), transport=router.transport) as scorer:
        result = await scorer.score(question=Q, context=CTX, response="Frank Herbert.")
    assert result.signals["lynx"].missing
    spans = {s.name: s for s in recorded.spans.get_finished_spans()}
    chat = spans["chat fake-judge"]
    assert chat.status.status_code.name == "ERROR"
    assert chat.attributes["error.type"] == "ServerError" and chat.attributes["trustscore.llm.attempts"] == 2
    judge = spans["judge lynx"]
    assert judge.status.status_code.name == "ERROR"
    (event,) = events(judge)
    assert event["error.type"] == "missing" and "gen_ai.evaluation.score.value" not in event
    retries = recorded.metric_points("trustscore.llm.retries")
    assert sum(p.value for p in retries if p.attributes["trustscore.judge"] == "lynx") == 1
    missing = recorded.metric_points("trustscore.signal.missing")
    assert {p.attributes["trustscore.signal"]: p.value for p in missing}["lynx"] == 1
    assert [p.value for p in recorded.metric_points("trustscore.score.degraded")] == [1]


async def test_metrics_count_requests_tokens_and_cache_hits_per_judge(
    recorded: Recorded, tmp_path: Any
) -> None:
    router = testing.MockRouter(testing.judge_policy())
    cache = Config().cache.model_copy(update={"directory": tmp_path})
    cfg = config(("lynx",)).model_copy(update={"cache": cache})
    async with Scorer(cfg, transport=router.transport) as scorer:
        for _ in range(2):
            await scorer.score(question=Q, context=CTX, response="Frank Herbert.")
    requests = {
        p.attributes["trustscore.judge"]: p.value for p in recorded.metric_points("trustscore.llm.requests")
    }
    hits = {
        p.attributes["trustscore.judge"]: p.value for p in recorded.metric_points("trustscore.llm.cache_hits")
    }
    assert requests["lynx"] == 1 and hits["lynx"] == 1, "the second score is answered from the cache"
    chats = [s for s in recorded.spans.get_finished_spans() if s.name.startswith("chat ")]
    assert [s.attributes["trustscore.llm.cache_hit"] for s in chats] == [False, True]
    tokens = recorded.metric_points("gen_ai.client.token.usage")
    assert {p.attributes["gen_ai.token.type"] for p in tokens} == {"input", "output"}
    (scores,) = recorded.metric_points("trustscore.score")
    assert scores.count == 2
    (duration,) = recorded.metric_points("trustscore.score.duration")
    assert duration.count == 2


async def test_a_caller_span_parents_the_score(recorded: Recorded) -> None:
    tracer = recorded.tracer_provider.get_tracer("app")
    async with Scorer(config(())) as scorer:
        with tracer.start_as_current_span("generate answer") as parent:
            await scorer.score(question=Q, context=CTX, response="Frank Herbert.")
    (root,) = [s for s in recorded.spans.get_finished_spans() if s.name == "trustscore.score"]
    assert root.parent.span_id == parent.get_span_context().span_id


async def test_off_records_nothing_and_sends_no_traceparent() -> None:
    router = testing.MockRouter(testing.judge_policy())
    async with Scorer(config(("lynx",)), transport=router.transport) as scorer:
        await scorer.score(question=Q, context=CTX, response="Frank Herbert.")
    (request,) = router.engine.completion_requests()
    assert "traceparent" not in {k.lower() for k in request.headers}


async def test_the_trace_context_goes_through_the_callers_openai_client(recorded: Recorded) -> None:
    openai = pytest.importorskip("openai")
    import httpx

    router = testing.MockRouter(testing.judge_policy())
    client = openai.AsyncOpenAI(
        base_url=router.base_url, api_key="k", http_client=httpx.AsyncClient(transport=router.transport)
    )
    llm = trustscore.from_openai(client, "fake-judge", flavour="vllm")
    async with Scorer(config(("lynx",)), llms={"judge": llm}) as scorer:
        await scorer.score(question=Q, context=CTX, response="Frank Herbert.")
    await llm.aclose()
    await client.close()
    (chat,) = [s for s in recorded.spans.get_finished_spans() if s.name.startswith("chat ")]
    (request,) = router.engine.completion_requests()
    headers = {k.lower(): v for k, v in request.headers.items()}
    ctx = chat.context
    assert headers["traceparent"] == f"00-{ctx.trace_id:032x}-{ctx.span_id:016x}-{ctx.trace_flags:02x}"
    assert headers["x-trustscore-tag"].startswith("lynx")


async def test_with_a_logs_pipeline_evaluation_results_are_log_records_parented_to_their_span(
    recorded_logs: tuple[Recorded, Any],
) -> None:
    recorded, logs = recorded_logs
    router = testing.MockRouter(testing.judge_policy())
    async with Scorer(config(("lynx",)), transport=router.transport) as scorer:
        result = await scorer.score(question=Q, context=CTX, response="Frank Herbert.")
    spans = {s.name: s for s in recorded.spans.get_finished_spans()}
    assert all(not events(span) for span in spans.values())  # one form only, never both
    records = {
        r.log_record.attributes["gen_ai.evaluation.name"]: r.log_record for r in logs.get_finished_logs()
    }
    assert set(records) == {*result.signals, telemetry.FUSED_NAME} and {"lynx", "lexical"} <= set(records)
    for name, span_name in (
        ("lynx", "judge lynx"),
        ("lexical", "signal lexical"),
        (telemetry.FUSED_NAME, "trustscore.score"),
    ):
        record, span = records[name], spans[span_name]
        assert record.event_name == telemetry.EVALUATION_EVENT
        assert (record.trace_id, record.span_id) == (span.context.trace_id, span.context.span_id), name
    fused = records[telemetry.FUSED_NAME].attributes
    assert fused["gen_ai.evaluation.score.value"] == result.score
    assert fused["gen_ai.evaluation.score.label"] == ("pass" if (result.score or 0) >= 0.5 else "fail")
    explanation = f"{result.reason}; not calibrated; fusion {result.fusion}"
    assert fused["gen_ai.evaluation.explanation"] == explanation
    lynx = records["lynx"].attributes
    assert lynx["gen_ai.evaluation.score.value"] == result.signals["lynx"].value
    assert lynx["gen_ai.evaluation.explanation"] == result.signals["lynx"].explanation
