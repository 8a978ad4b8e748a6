"""The scoring service through httpx's ASGI transport: routes, keys, limits, queue, shutdown."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import pytest
from pydantic import SecretStr

from tests.api.conftest import GatedSignal, wait_until
from trustscore import Config, Scorer
from trustscore.api import ApiSettings, create_app
from trustscore.rows import parse_row, result_row

pytestmark = pytest.mark.anyio

ROW = {
    "question": "Who wrote Dune?",
    "context": ["Dune is a 1965 novel by Frank Herbert."],
    "response": "Frank Herbert.",
}
OFFLINE = Config.from_dict({"signals": {"embedding": {"enabled": False}}, "cache": {"mode": "off"}})


def client(app: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://api.test")


@pytest.fixture
async def scorer() -> AsyncIterator[Scorer]:
    async with Scorer(OFFLINE) as s:
        yield s


async def test_score_answers_the_cli_result_row(scorer: Scorer) -> None:
    async with client(create_app(scorer)) as c:
        r = await c.post("/v1/score", json={**ROW, "id": "a", "task": "QA"})
    assert r.status_code == 200, r.text
    body = r.json()
    row = parse_row(json.dumps({**ROW, "id": "a", "task": "QA"}), "x")
    expected = result_row("a", await scorer.score_sample(row.sample), row.carried)
    assert list(body) == list(expected), "the CLI's fields, in the CLI's order, carried fields last"
    assert body["task"] == "QA" and body["id"] == "a"
    assert body["score"] == expected["score"]


async def test_a_bad_sample_is_400_naming_the_field(scorer: Scorer) -> None:
    async with client(create_app(scorer)) as c:
        r = await c.post("/v1/score", json={"question": "q", "context": "c"})
        assert r.status_code == 400 and "response" in r.json()["error"]
        r = await c.post("/v1/score", content=b"not json")
        assert r.status_code == 400 and "not valid JSON" in r.json()["error"]
        r = await c.post("/v1/score?budget_s=-1", json=ROW)
        assert r.status_code == 400 and "budget_s" in r.json()["error"]


async def test_a_budget_over_the_cap_is_refused(scorer: Scorer) -> None:
    async with client(create_app(scorer, ApiSettings(max_budget_s=5))) as c:
        r = await c.post("/v1/score?budget_s=60", json=ROW)
        assert r.status_code == 400 and "max_budget_s=5" in r.json()["error"]
        assert (await c.post("/v1/score?budget_s=2", json=ROW)).status_code == 200


async def test_api_keys(scorer: Scorer) -> None:
    app = create_app(scorer, ApiSettings(api_keys=[SecretStr("k-one"), SecretStr("k-two")]))
    async with client(app) as c:
        assert (await c.post("/v1/score", json=ROW)).status_code == 401
        bad = await c.post("/v1/score", json=ROW, headers={"Authorization": "Bearer k-on"})
        assert bad.status_code == 401 and "k-on" not in bad.text
        ok = await c.post("/v1/score", json=ROW, headers={"Authorization": "Bearer k-two"})
        assert ok.status_code == 200
        assert (await c.get("/metrics")).status_code == 401
        assert (await c.get("/openapi.json")).status_code == 401
        headers = {"Authorization": "Bearer k-one"}
        assert (await c.get("/openapi.json", headers=headers)).status_code == 200
        assert (await c.get("/healthz")).status_code == 200, "probes need no key"
        assert (await c.get("/readyz")).status_code == 200, "probes need no key"


async def test_an_oversized_body_is_413(scorer: Scorer) -> None:
    app = create_app(scorer, ApiSettings(max_body_bytes=2048))
    big = {**ROW, "response": "x" * 4000}
    async with client(app) as c:
        assert (await c.post("/v1/score", json=big)).status_code == 413

        async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted while read
            for _ in range(4):
                yield b" " * 1000

        assert (await c.post("/v1/score", content=chunks())).status_code == 413


async def test_batch_streams_every_row_an_answer(scorer: Scorer) -> None:
    lines = [json.dumps({**ROW, "id": f"r{i}"}) for i in range(5)]
    lines.insert(2, '{"question": "no response"}')
    lines.insert(4, "")
    async with client(create_app(scorer)) as c:
        r = await c.post("/v1/score/batch", content="\n".join(lines).encode())
    assert r.status_code == 200 and r.headers["content-type"] == "application/x-ndjson"
    rows = [json.loads(line) for line in r.text.splitlines()]
    assert sorted(row["id"] for row in rows if "score" in row) == [f"r{i}" for i in range(5)]
    (bad,) = [row for row in rows if "error" in row]
    assert bad["line"] == 3 and "response" in bad["error"]


async def test_batch_row_limit(scorer: Scorer) -> None:
    body = "\n".join(json.dumps(ROW) for _ in range(3))
    async with client(create_app(scorer, ApiSettings(max_batch_rows=2))) as c:
        r = await c.post("/v1/score/batch", content=body.encode())
    assert r.status_code == 413 and "max_batch_rows" in r.json()["error"]


async def test_a_full_queue_answers_429_with_retry_after() -> None:
    gated = GatedSignal()
    async with Scorer(OFFLINE, local_signals=[gated]) as scorer:
        app = create_app(scorer, ApiSettings(max_in_flight=1, max_queued=1, retry_after_s=3))
        async with client(app) as c, anyio.create_task_group() as tg:
            answers: list[int] = []

            async def send() -> None:
                answers.append((await c.post("/v1/score", json=ROW)).status_code)

            tg.start_soon(send)
            await gated.expect(1).wait()
            tg.start_soon(send)  # queued behind the first
            await wait_until(lambda: app.state.service.admission.reserved >= 2)
            refused = await c.post("/v1/score", json=ROW)
            assert refused.status_code == 429 and refused.headers["Retry-After"] == "3"
            metrics = (await c.get("/metrics")).text
            assert "trustscore_api_rejected_total 1.0" in metrics
            assert "trustscore_api_queued 1.0" in metrics and "trustscore_api_in_flight 1.0" in metrics
            gated.gate.set()
        assert answers == [200, 200]


async def test_shutdown_fails_unfinished_work_with_a_reason() -> None:
    gated = GatedSignal()
    async with Scorer(OFFLINE, local_signals=[gated]) as scorer:
        app = create_app(scorer, ApiSettings(shutdown_grace_s=0, batch_concurrency=2))
        service = app.state.service
        batch = "\n".join(json.dumps({**ROW, "id": f"b{i}"}) for i in range(3))
        async with client(app) as c, anyio.create_task_group() as tg:
            got: dict[str, httpx.Response] = {}

            async def one() -> None:
                got["one"] = await c.post("/v1/score", json={**ROW, "id": "s"})

            async def many() -> None:
                got["batch"] = await c.post("/v1/score/batch", content=batch.encode())

            tg.start_soon(one)
            tg.start_soon(many)
            await gated.expect(3).wait()
            await service.admission.drain(0)
            assert (await c.get("/healthz")).status_code == 503
            assert (await c.post("/v1/score", json=ROW)).status_code == 503
        assert got["one"].status_code == 503 and "shutting down" in got["one"].json()["error"]
        rows = [json.loads(line) for line in got["batch"].text.splitlines()]
        assert sorted(r["id"] for r in rows) == ["b0", "b1", "b2"], "every row answered"
        assert all("shutting down" in r["error"] for r in rows)


async def test_shutdown_lets_work_in_flight_finish_within_the_grace() -> None:
    gated = GatedSignal()
    async with Scorer(OFFLINE, local_signals=[gated]) as scorer:
        app = create_app(scorer, ApiSettings(shutdown_grace_s=60))
        admission = app.state.service.admission
        got: list[httpx.Response] = []
        async with client(app) as c, anyio.create_task_group() as tg:

            async def one() -> None:
                got.append(await c.post("/v1/score", json=ROW))

            tg.start_soon(one)
            await gated.expect(1).wait()
            tg.start_soon(admission.drain, 60)
            await wait_until(lambda: admission.draining)
            gated.gate.set()
        assert got[0].status_code == 200


async def test_metrics_count_scores_and_signals(scorer: Scorer) -> None:
    async with client(create_app(scorer)) as c:
        await c.post("/v1/score", json=ROW)
        text = (await c.get("/metrics")).text
    assert 'trustscore_api_requests_total{route="/v1/score",status="200"} 1.0' in text
    assert "trustscore_score_seconds_count 1.0" in text
    assert "trustscore_scores_total{" in text


async def test_openapi_matches_the_docs_copy(scorer: Scorer) -> None:
    from pathlib import Path

    async with client(create_app(scorer)) as c:
        served = (await c.get("/openapi.json")).json()
    docs = Path(__file__).parents[2] / "docs" / "openapi.json"
    assert json.loads(docs.read_text()) == served, (
        "regenerate: python -m trustscore.api._openapi > docs/openapi.json"
    )
    assert set(served["paths"]) == {"/v1/score", "/v1/score/batch", "/healthz", "/readyz", "/metrics"}


async def test_a_batch_takes_the_room_that_is_free() -> None:
    gated = GatedSignal()
    async with Scorer(OFFLINE, local_signals=[gated]) as scorer:
        app = create_app(scorer, ApiSettings(max_in_flight=1, max_queued=1, batch_concurrency=8))
        admission = app.state.service.admission
        batch = "\n".join(json.dumps({**ROW, "id": f"b{i}"}) for i in range(3))
        got: dict[str, httpx.Response] = {}
        async with client(app) as c, anyio.create_task_group() as tg:

            async def one() -> None:
                got["one"] = await c.post("/v1/score", json=ROW)

            async def many() -> None:
                got["batch"] = await c.post("/v1/score/batch", content=batch.encode())

            tg.start_soon(one)
            await gated.expect(1).wait()
            tg.start_soon(many)  # one place is free of the two: the batch runs its rows one at a time
            await wait_until(lambda: admission.reserved >= 2)
            assert (await c.post("/v1/score", json=ROW)).status_code == 429
            gated.gate.set()
        assert got["one"].status_code == 200
        rows = [json.loads(line) for line in got["batch"].text.splitlines()]
        assert sorted(r["id"] for r in rows) == ["b0", "b1", "b2"] and all("score" in r for r in rows)


async def test_an_unexpected_failure_is_answered_with_its_reason() -> None:
    class Broken(Scorer):
        async def score_sample(self, sample: Any, *, budget_s: float | None = None) -> Any:
            raise RuntimeError("boom")

    async with Broken(OFFLINE) as scorer, client(create_app(scorer)) as c:
        one = await c.post("/v1/score", json={**ROW, "id": "x"})
        batch = await c.post("/v1/score/batch", content=json.dumps({**ROW, "id": "y"}).encode())
    assert one.status_code == 500 and one.json() == {"id": "x", "error": "RuntimeError: boom"}
    assert batch.status_code == 200
    error = {"id": "y", "trustscore": "result/1", "line": 1, "error": "RuntimeError: boom"}
    assert json.loads(batch.text) == error
