"""Shared pieces of the end-to-end tests: a real Config for the five judges, the two ways the test
kit serves it (a fake vLLM on a loopback socket, or the in-process router), and request-log readers.

The e2e tests build everything the way a user does (Config -> Scorer -> LLMClient -> HttpBackend ->
httpx) and only swap the model server for trustscore.testing's fake.
"""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from trustscore import Config, Scorer
from trustscore.testing import FakeEngine, RecordedRequest, judge_of

JUDGES = ("likert", "prometheus", "lynx", "chainpoll", "tlm")
QUESTION = "Who wrote the novel Dune?"
CONTEXT = ["Dune is a 1965 science fiction novel by Frank Herbert.", "It won the first Nebula Award."]
RESPONSE = "Frank Herbert wrote Dune."
SAMPLE = {"question": QUESTION, "context": CONTEXT, "response": RESPONSE}

TLM_REQUESTS = 2 + 1 + 5
"""Two self-reflections, one request drawing the 5 sampled answers, one agreement check per answer."""
REQUESTS_PER_SAMPLE = 4 + TLM_REQUESTS


def ensemble_dict(
    base_url: str,
    *,
    model: str = "fake-judge",
    endpoint: dict[str, Any] | None = None,
    judges: dict[str, dict[str, Any]] | None = None,
    endpoints: dict[str, dict[str, Any]] | None = None,
    cache_dir: Path | None = None,
    limits: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Config data: endpoint "judge" at ``base_url`` serving all five judges, local signals off.

    ``endpoint`` overrides settings of "judge"; ``judges`` overrides per-judge sections; ``endpoints``
    adds more endpoints; the response cache is off unless ``cache_dir`` is given.
    """
    judge_endpoint = {"base_url": base_url, "model": model, "max_retries": 1, **(endpoint or {})}
    sections = {name: {"endpoint": "judge", **(judges or {}).get(name, {})} for name in JUDGES}
    data: dict[str, Any] = {
        "endpoints": {"judge": judge_endpoint, **(endpoints or {})},
        "judges": sections,
        "signals": {name: {"enabled": False} for name in ("lexical", "embedding", "claims")},
        "cache": {"mode": "readwrite", "directory": str(cache_dir)} if cache_dir else {"mode": "off"},
    }
    if limits:
        data["limits"] = limits
    return data


def ensemble_config(base_url: str, **kwargs: Any) -> Config:
    return Config.from_dict(ensemble_dict(base_url, **kwargs))


@dataclass
class Kit:
    """One way of serving the fake vLLM: ``server`` (real sockets) or ``router`` (httpx.MockTransport)."""

    kind: str
    base_url: str
    engine: FakeEngine
    transport: httpx.AsyncBaseTransport | None

    def scorer(self, config: Config) -> Scorer:
        return Scorer.from_config(config, transport=self.transport)

    def config(self, **kwargs: Any) -> Config:
        return ensemble_config(self.base_url, **kwargs)

    def bodies(self) -> list[dict[str, Any]]:
        """JSON bodies of the completion requests received, oldest first."""
        return [r.body for r in self.engine.completion_requests()]

    def requests(self) -> list[RecordedRequest]:
        """The completion requests received, oldest first."""
        return self.engine.completion_requests()


def make_kit(request: pytest.FixtureRequest) -> Kit:
    """The kit named by ``request.param``, from the test kit's pytest fixtures."""
    if request.param == "server":
        server = request.getfixturevalue("fake_vllm")
        return Kit("server", server.base_url, server.engine, None)
    router = request.getfixturevalue("trustscore_router")
    return Kit("router", router.base_url, router.engine, router.transport)


def prompt_text(body: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in body.get("messages") or []) or str(body.get("prompt") or "")


def judge_kind(request: RecordedRequest) -> str | None:
    """Which judge sent this request (from the tag header the LLM client sends)."""
    return judge_of(request.headers.get("x-trustscore-tag"))


def by_kind(requests: list[RecordedRequest]) -> dict[str, list[dict[str, Any]]]:
    """The request bodies by the judge kind that sent them."""
    out: dict[str, list[dict[str, Any]]] = {}
    for request in requests:
        out.setdefault(judge_kind(request) or "?", []).append(request.body)
    return out


def closed_port_url() -> str:
    """A base URL on 127.0.0.1 whose port nobody listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    # Lines end at "\n" only: a JSON string may hold a raw U+2028, which str.splitlines() splits on.
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def to_toml(data: dict[str, Any], table: str = "") -> str:
    """TOML for the config dicts above: nested tables of strings, numbers and booleans."""
    lines = [f"[{table}]"] if table else []
    nested = []
    for key, value in data.items():
        if isinstance(value, dict):
            nested.append((key, value))
        else:
            lines.append(f"{key} = {json.dumps(value)}")
    out = "\n".join(lines) + "\n"
    for key, value in nested:
        out += "\n" + to_toml(value, f"{table}.{key}" if table else key)
    return out
