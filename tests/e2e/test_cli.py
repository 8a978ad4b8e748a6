"""End to end through the command line: ``trustscore score`` with a TOML config pointing at the test
kit's fake vLLM server. The response cache replays a run without one HTTP request; an interrupted
output file is completed without re-scoring the rows it already holds."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e_helpers import (
    CONTEXT,
    JUDGES,
    QUESTION,
    REQUESTS_PER_SAMPLE,
    RESPONSE,
    ensemble_dict,
    prompt_text,
    read_jsonl,
    to_toml,
    write_jsonl,
)

from trustscore import Scorer
from trustscore.cli import main
from trustscore.cli._score import read_input, score_file
from trustscore.testing import FakeRequest, FakeVLLMServer, Fault


def rows(n: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"r{i}",
            "question": f"{QUESTION} (case {i})",
            "context": CONTEXT,
            "response": RESPONSE,
            "label": i % 2,
        }
        for i in range(n)
    ]


def write_config(
    tmp_path: Path, server: FakeVLLMServer, *, cache: bool, name: str = "trustscore.toml"
) -> Path:
    data = ensemble_dict(server.base_url, cache_dir=tmp_path / "cache" if cache else None)
    path = tmp_path / name
    path.write_text(to_toml(data), encoding="utf-8")
    return path


def cli(*args: str | Path) -> int:
    return main(["score", *map(str, args), "--no-progress"])


def comparable(row: dict[str, Any]) -> dict[str, Any]:
    """What a replay must reproduce exactly: everything but timings and what the run cost."""
    signals = {name: {k: v for k, v in s.items() if k != "usage"} for name, s in row["signals"].items()}
    return {k: v for k, v in row.items() if k not in ("seconds", "usage", "signals")} | {"signals": signals}


def test_a_second_run_is_served_from_the_cache(
    fake_vllm: FakeVLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, fake_vllm, cache=True)
    source = write_jsonl(tmp_path / "in.jsonl", rows(2))

    assert cli(source, "-o", tmp_path / "first.jsonl", "--config", config) == 0
    first = read_jsonl(tmp_path / "first.jsonl")
    sent = [r["usage"]["requests"] for r in first]
    assert len(fake_vllm.engine.completion_requests()) == sum(sent)
    assert all(
        r["usage"]["requests"] + r["usage"]["cache_hits"] == REQUESTS_PER_SAMPLE and r["complete"]
        for r in first
    )
    assert all(list(r["signals"]) == list(JUDGES) and r["label"] in (0, 1) for r in first)

    fake_vllm.reset()
    capsys.readouterr()
    assert cli(source, "-o", tmp_path / "second.jsonl", "--config", config) == 0
    second = read_jsonl(tmp_path / "second.jsonl")
    assert fake_vllm.requests == [], "a replay sends no HTTP request at all"
    by_id = {r["id"]: r for r in first}
    assert {r["id"] for r in second} == set(by_id)
    for row in second:
        assert comparable(row) == comparable(by_id[row["id"]])
        assert row["usage"]["requests"] == 0
        assert row["usage"]["cache_hits"] == REQUESTS_PER_SAMPLE
    assert f"cache hits {2 * REQUESTS_PER_SAMPLE}" in capsys.readouterr().out

    assert cli(source, "-o", tmp_path / "third.jsonl", "--config", config, "--no-cache") == 0
    assert len(fake_vllm.engine.completion_requests()) == 2 * REQUESTS_PER_SAMPLE
    third = read_jsonl(tmp_path / "third.jsonl")
    assert all(r["usage"]["cache_hits"] == 0 for r in third)
    assert {r["id"]: comparable(r) for r in third} == {i: comparable(r) for i, r in by_id.items()}


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_an_interrupted_run_is_completed_without_rescoring(
    backend: str,
    fake_vllm: FakeVLLMServer,
    fake_vllm_factory: Callable[..., FakeVLLMServer],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = write_config(tmp_path, fake_vllm, cache=False)
    source = write_jsonl(tmp_path / "in.jsonl", rows(4))
    output = tmp_path / "out.jsonl"
    # Samples go one at a time; from the third one scored on (trio picks the order), the server
    # hangs: the run is interrupted while that sample is in flight.
    scored_cases: list[str] = []

    def after_two_samples(request: FakeRequest) -> bool:
        case = re.search(r"\(case \d\)", request.text)
        assert case is not None
        if case.group(0) not in scored_cases:
            scored_cases.append(case.group(0))
        return scored_cases.index(case.group(0)) >= 2

    fake_vllm.faults.add(Fault.delay(10.0), when=after_two_samples)

    async def interrupted_run() -> None:
        async with Scorer.from_config(config) as scorer, anyio.create_task_group() as tg:
            tg.start_soon(
                lambda: score_file(read_input(source), output, scorer, concurrency=1, progress=False)
            )
            with anyio.fail_after(10):
                while not output.exists() or len(read_jsonl(output)) < 2:
                    await anyio.sleep(0.02)
            tg.cancel_scope.cancel()

    anyio.run(interrupted_run, backend=backend)
    kept = output.read_bytes()
    done = [r["id"] for r in read_jsonl(output)]
    assert len(done) == 2 and [f"(case {i[1:]})" for i in done] == scored_cases[:2]
    with output.open("ab") as f:  # and the process died half-way through writing a line
        f.write(b'{"id": "r9", "trustscore": "result/1", "score": 0.')

    # The resumed run talks to a fresh server: requests the interrupted run had already sent
    # cannot show up in its log.
    fresh = fake_vllm_factory()
    resume_config = write_config(tmp_path, fresh, cache=False, name="resume.toml")
    capsys.readouterr()
    assert cli(source, "-o", output, "--config", resume_config, "--concurrency", "1") == 0

    final = read_jsonl(output)
    assert [r["id"] for r in final][:2] == done
    assert sorted(r["id"] for r in final) == ["r0", "r1", "r2", "r3"]
    assert output.read_bytes().startswith(kept), "the finished rows are kept byte for byte"
    assert all(r["complete"] and r["used_signals"] == list(JUDGES) for r in final)
    asked = [prompt_text(r.body) for r in fresh.engine.completion_requests()]
    assert len(asked) == 2 * REQUESTS_PER_SAMPLE
    finished_cases = [f"(case {i[1:]})" for i in done]
    assert not any(c in t for t in asked for c in finished_cases), "finished rows are not re-scored"
    captured = capsys.readouterr()
    assert "skipped 2 already done" in captured.out
    assert "incomplete last line" in captured.err


@pytest.mark.anyio
async def test_the_disk_cache_replays_on_either_event_loop(fake_vllm: FakeVLLMServer, tmp_path: Path) -> None:
    config = write_config(tmp_path, fake_vllm, cache=True)
    samples = read_input(write_jsonl(tmp_path / "in.jsonl", rows(1)))
    async with Scorer.from_config(config) as scorer:
        first = await score_file(samples, tmp_path / "a.jsonl", scorer, progress=False)
    # two of TLM's agreement checks can be the same request (two sampled answers alike): the second is
    # then served from the cache when the first has finished before it starts, a matter of timing
    assert first.usage.requests + first.usage.cache_hits == REQUESTS_PER_SAMPLE
    assert first.usage.requests == len(fake_vllm.engine.completion_requests())

    fake_vllm.reset()
    async with Scorer.from_config(config) as scorer:  # a new Scorer: the answers come from disk
        second = await score_file(samples, tmp_path / "b.jsonl", scorer, progress=False)
    assert fake_vllm.requests == []
    assert second.usage.requests == 0 and second.usage.cache_hits == REQUESTS_PER_SAMPLE
    [a] = read_jsonl(tmp_path / "a.jsonl")
    [b] = read_jsonl(tmp_path / "b.jsonl")
    assert comparable(a) == comparable(b)
