"""A server that answers 200 with values no model produces: NaN or positive log-probabilities, text
holding a lone surrogate. Nothing is made up, nothing crashes, and the cache changes nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_helpers import CONTEXT, JUDGES, QUESTION, RESPONSE, ensemble_dict, to_toml

import trustscore.cli._score as cli_score
from trustscore import Scorer
from trustscore.cli import main

BASE_URL = "http://hostile.local/v1"


def answering(content: str, logprob: str) -> httpx.MockTransport:
    """Every completion answers ``content`` with every log-probability spelled ``logprob`` (raw JSON)."""

    def handle(request: httpx.Request) -> httpx.Response:
        entry = '{"token": "PASS", "logprob": LP, "top_logprobs": [{"token": "PASS", "logprob": LP}]}'
        entry = entry.replace("LP", logprob)
        text = json.dumps(content)  # escapes a lone surrogate as \\udXXX, as a server's JSON would
        body = (
            '{"model": "fake-judge", "usage": {"prompt_tokens": 5, "completion_tokens": 1}, "choices": ['
            f'{{"index": 0, "message": {{"role": "assistant", "content": {text}}}, "text": {text}, '
            f'"logprobs": {{"content": [{entry}], "tokens": ["PASS"], "token_logprobs": [{logprob}], '
            f'"top_logprobs": [{{"PASS": {logprob}}}]}}, "finish_reason": "stop"}}]}}'
        )
        return httpx.Response(200, content=body.encode(), headers={"content-type": "application/json"})

    return httpx.MockTransport(handle)


def run_cli(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    transport: httpx.MockTransport,
    *flags: str,
    out: str = "out.jsonl",
    cache: bool = True,
) -> tuple[int, list[dict[str, Any]]]:
    config = tmp_path / "trustscore.toml"
    data = ensemble_dict(BASE_URL, cache_dir=tmp_path / "cache" if cache else None)
    config.write_text(to_toml(data), encoding="utf-8")
    src = tmp_path / "in.jsonl"
    src.write_text(
        json.dumps({"id": "a", "question": QUESTION, "context": CONTEXT, "response": RESPONSE}) + "\n"
    )

    def build(path: Path | None, *, no_cache: bool) -> Scorer:
        return Scorer.from_config(path, no_cache=no_cache, transport=transport)

    monkeypatch.setattr(cli_score, "build_scorer", build)
    status = main(
        ["score", str(src), "-o", str(tmp_path / out), "--config", str(config), "--no-progress", *flags]
    )
    text = (tmp_path / out).read_text(encoding="utf-8") if (tmp_path / out).exists() else ""
    strict: Callable[[str], Any] = lambda c: (_ for _ in ()).throw(ValueError(c))  # noqa: E731
    return status, [json.loads(line, parse_constant=strict) for line in text.splitlines()]


@pytest.mark.parametrize("logprob", ["NaN", "-Infinity", "50.0"])
def test_impossible_logprobs_leave_every_judge_missing_with_the_reason_never_a_made_up_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, logprob: str
) -> None:
    lynx_pass = '{"REASONING": ["fine"], "SCORE": "PASS"}'
    status, rows = run_cli(tmp_path, monkeypatch, answering(lynx_pass, logprob))
    (row,) = rows
    assert status == 0 or status == 1  # 1: every judge failed for a reason a rerun may fix
    assert row["complete"] is False and row["score"] is None
    for name in JUDGES:
        signal = row["signals"][name]
        assert signal["value"] is None, (name, signal)
    assert any("log-probability" in (row["signals"][n]["error"] or "") for n in JUDGES)
    assert not list((tmp_path / "cache").glob("**/*.val"))
    status, again = run_cli(tmp_path, monkeypatch, answering(lynx_pass, logprob), out="again.jsonl")
    assert again[0]["signals"]["lynx"]["value"] is None  # nothing was cached to replay


def test_a_lone_surrogate_in_server_text_neither_crashes_nor_changes_a_signal_with_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    transport = answering('{"REASONING": ["fine \ud800"], "SCORE": "PASS"}', "-0.01")
    status, uncached = run_cli(tmp_path, monkeypatch, transport, "--no-cache", out="uncached.jsonl")
    assert status == 0 and len(uncached) == 1
    status, cached = run_cli(tmp_path, monkeypatch, transport, out="cached.jsonl")
    assert status == 0
    status, replayed = run_cli(tmp_path, monkeypatch, transport, out="replayed.jsonl")
    assert status == 0
    values = [{n: r[0]["signals"][n]["value"] for n in JUDGES} for r in (uncached, cached, replayed)]
    assert values[0] == values[1] == values[2]
    assert values[0]["lynx"] is not None
    assert replayed[0]["usage"]["cache_hits"] > 0
