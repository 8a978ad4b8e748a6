"""A real receiver: Arize Phoenix on loopback gets a score's trace over OTLP and its scores as annotations.

Phoenix lives in its own virtual environment (``bash scripts/setup --phoenix`` makes ``.venv-phoenix``):
it pulls many dependencies the product does not need. Run with ``pytest -m phoenix tests/phoenix``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from trustscore import Config, Scorer, TrustScore, telemetry
from trustscore.telemetry.phoenix import PhoenixAnnotationExporter
from trustscore.testing import FakeVLLMServer

pytestmark = pytest.mark.phoenix

PHOENIX = Path(__file__).parents[2] / ".venv-phoenix" / "bin" / "phoenix"
PROJECT = "trustscore-test"
JUDGES = ("lynx", "prometheus")
STARTUP_S = 240.0
READ_BACK_S = 60.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _until(what: str, limit_s: float, probe: Callable[[], Any]) -> Any:
    """Ask ``probe`` until it answers something truthy: Phoenix ingests in the background."""
    end = time.monotonic() + limit_s
    while True:
        got = probe()
        if got:
            return got
        if time.monotonic() > end:
            pytest.fail(f"Phoenix did not show {what} within {limit_s:g}s")
        time.sleep(0.5)


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not PHOENIX.exists():
        pytest.skip("no .venv-phoenix: run `bash scripts/setup --phoenix` first")
    port = _free_port()
    env = {
        **os.environ,
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(_free_port()),
        "PHOENIX_WORKING_DIR": str(tmp_path_factory.mktemp("phoenix")),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    env.pop("PYTHONPATH", None)
    log = tmp_path_factory.mktemp("phoenix-log") / "phoenix.log"
    with log.open("w") as out:
        proc = subprocess.Popen([str(PHOENIX), "serve"], env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:

        def healthy() -> bool:
            assert proc.poll() is None, log.read_text()[-3000:]
            try:
                return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
            except httpx.TransportError:
                return False

        _until("its health check", STARTUP_S, healthy)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def exported_to(phoenix: str) -> Iterator[TracerProvider]:
    resource = Resource.create({"service.name": "trustscore-test", "openinference.project.name": PROJECT})
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(f"{phoenix}/v1/traces")))
    provider.add_span_processor(BatchSpanProcessor(PhoenixAnnotationExporter(phoenix)))
    telemetry.configure(provider)
    try:
        yield provider
    finally:
        telemetry.configure()
        provider.shutdown()


def test_a_scored_sample_shows_in_phoenix_with_judge_spans_and_scores(
    phoenix: str, exported_to: TracerProvider, fake_vllm: FakeVLLMServer
) -> None:
    config = Config.from_dict(
        {
            "endpoints": {"judge": {"base_url": fake_vllm.base_url, "model": "fake-judge"}},
            "judges": {name: {"endpoint": "judge"} for name in JUDGES},
            "signals": {"embedding": {"enabled": False}},
            "cache": {"mode": "off"},
        }
    )

    async def score() -> TrustScore:
        async with Scorer(config) as scorer:
            return await scorer.score(
                question="Who wrote Dune?",
                context=["Dune is a 1965 novel by Frank Herbert."],
                response="Frank Herbert.",
                id="dune-1",
            )

    result = anyio.run(score)
    assert exported_to.force_flush(30_000)
    assert all(result.signals[j].value is not None for j in JUDGES)

    def spans() -> list[dict[str, Any]]:
        r = httpx.get(f"{phoenix}/v1/projects/{PROJECT}/spans", params={"limit": 100}, timeout=10)
        found = r.json().get("data", []) if r.status_code == 200 else []
        return found if len(found) >= 2 + len(JUDGES) * 2 else []

    by_name: dict[str, list[dict[str, Any]]] = {}
    for span in _until("the trace", READ_BACK_S, spans):
        by_name.setdefault(span["name"], []).append(span)
    (root,) = by_name["trustscore.score"]
    assert root["span_kind"] == "EVALUATOR", root
    assert root["attributes"]["trustscore.sample.id"] == "dune-1"
    root_id = root["context"]["span_id"]
    judges = {name: by_name[f"judge {name}"][0] for name in JUDGES}
    assert all(span["parent_id"] == root_id for span in judges.values()), (
        "one span per judge, under the score"
    )
    chats = by_name["chat fake-judge"]
    assert {c["parent_id"] for c in chats} == {j["context"]["span_id"] for j in judges.values()}
    chat = chats[0]["attributes"]
    assert chat["gen_ai.operation.name"] == "chat" and chat["gen_ai.request.model"] == "fake-judge"
    assert chat["gen_ai.usage.input_tokens"] > 0 and chat["server.address"] == "127.0.0.1"

    wanted = {*JUDGES, telemetry.FUSED_NAME}
    span_ids = [root_id, *(j["context"]["span_id"] for j in judges.values())]

    def annotations() -> list[dict[str, Any]]:
        r = httpx.get(
            f"{phoenix}/v1/projects/{PROJECT}/span_annotations",
            params={"span_ids": span_ids, "limit": 100},
            timeout=10,
        )
        found = r.json().get("data", []) if r.status_code == 200 else []
        return found if wanted <= {a["name"] for a in found} else []

    scores = {a["name"]: a for a in _until("the scores", READ_BACK_S, annotations)}
    assert scores[telemetry.FUSED_NAME]["result"]["score"] == pytest.approx(result.score)
    assert scores[telemetry.FUSED_NAME]["span_id"] == root_id
    for name in JUDGES:
        assert scores[name]["result"]["score"] == pytest.approx(result.signals[name].value)
        assert scores[name]["annotator_kind"] == "LLM"
        assert scores[name]["span_id"] == judges[name]["context"]["span_id"]
