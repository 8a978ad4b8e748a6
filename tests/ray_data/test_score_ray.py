"""``trustscore score --ray`` on a local two-CPU Ray against the test kit's fake vLLM server.

The Ray path must give what the local command gives for the same input, resume after its driver is
killed, lose nothing when an actor dies mid-batch, and write every row (with reasons) when the
judge endpoint is down. Run with ``pytest -m ray`` (needs the [ray] extra).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.ray

ray = pytest.importorskip("ray")
pq = pytest.importorskip("pyarrow.parquet")
pa = pytest.importorskip("pyarrow")

from e2e_helpers import (  # noqa: E402
    CONTEXT,
    JUDGES,
    QUESTION,
    REQUESTS_PER_SAMPLE,
    RESPONSE,
    closed_port_url,
    ensemble_dict,
    read_jsonl,
    to_toml,
    write_jsonl,
)

from trustscore import Config  # noqa: E402
from trustscore.cli import main  # noqa: E402
from trustscore.ray.files import existing_ids, output_rows  # noqa: E402
from trustscore.testing import FakeVLLMServer, LatencyModel, judge_policy  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def local_ray() -> Iterator[str]:
    """One local Ray for the module (starting one takes seconds); yields its address."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def rows(n: int, *, without_id: int = 0) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {
            "id": f"r{i}",
            "question": f"{QUESTION} (case {i})",
            "context": CONTEXT,
            "response": RESPONSE,
            "label": i % 2,
        }
        for i in range(n)
    ]
    for i in range(without_id):  # the id is the hash of the content, as in the local command
        out.append({"question": f"{QUESTION} (unnamed {i})", "context": CONTEXT[0], "response": RESPONSE})
    return out


def write_config(tmp_path: Path, base_url: str, **endpoint: Any) -> Path:
    data = ensemble_dict(base_url, endpoint=endpoint or None)
    data["grounding"] = {"lexical": True, "embedding": False}  # one local signal, run on the actors
    path = tmp_path / "trustscore.toml"
    path.write_text(to_toml(data), encoding="utf-8")
    return path


def score_local(source: Path, output: Path, config: Path) -> int:
    return main(["score", str(source), "-o", str(output), "--config", str(config), "--no-progress"])


def score_ray(source: Path, output: Path, config: Path, *extra: str) -> int:
    return main(
        ["score", str(source), "-o", str(output), "--config", str(config), "--ray", "--no-progress", *extra]
    )


def by_id(result_rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    ids = [str(r["id"]) for r in result_rows]
    assert len(ids) == len(set(ids)), "an id was written twice"
    return {str(r["id"]): r for r in result_rows}


def assert_same_results(local: dict[str, dict[str, Any]], remote: dict[str, dict[str, Any]]) -> None:
    assert set(local) == set(remote)
    for key, want in local.items():
        got = remote[key]
        assert got["score"] == pytest.approx(want["score"], abs=1e-9), key
        assert got["calibrated"] == want["calibrated"] and got["fusion"] == want["fusion"]
        assert got["used_signals"] == want["used_signals"] and got["complete"] == want["complete"]
        assert {n: s["value"] for n, s in got["signals"].items()} == pytest.approx(
            {n: s["value"] for n, s in want["signals"].items()}, abs=1e-9
        )
        assert {k: v for k, v in got.items() if k not in RESULT_KEYS} == {
            k: v for k, v in want.items() if k not in RESULT_KEYS
        }, "carried fields differ"


RESULT_KEYS = {
    "score",
    "calibrated",
    "fusion",
    "used_signals",
    "signals",
    "usage",
    "complete",
    "seconds",
    "id",
}


def test_same_results_as_the_local_command_jsonl_and_parquet(
    local_ray: str, fake_vllm: FakeVLLMServer, tmp_path: Path
) -> None:
    config = write_config(tmp_path, fake_vllm.base_url)
    source = write_jsonl(tmp_path / "in.jsonl", rows(12, without_id=2))
    assert score_local(source, tmp_path / "local.jsonl", config) == 0
    local = by_id(read_jsonl(tmp_path / "local.jsonl"))
    assert len(local) == 14 and all(r["complete"] and r["score"] is not None for r in local.values())

    assert score_ray(source, tmp_path / "out.jsonl", config, "--actors", "1", "--batch-size", "4") == 0
    assert_same_results(local, by_id(output_rows(str(tmp_path / "out.jsonl"), "jsonl")))

    table = pa.Table.from_pylist([{**r, "context": json.dumps(r["context"])} for r in rows(12, without_id=2)])
    # Parquet needs one type per column: the context goes in as a string here, so compare against
    # a local run of that same input.
    pq.write_table(table, tmp_path / "in.parquet")
    as_strings = write_jsonl(tmp_path / "in-strings.jsonl", table.to_pylist())
    assert score_local(as_strings, tmp_path / "local2.jsonl", config) == 0
    assert score_ray(tmp_path / "in.parquet", tmp_path / "out.parquet", config, "--actors", "1") == 0
    scored = pq.read_table(tmp_path / "out.parquet")
    assert set(scored.column_names) >= {"id", "score", "complete", "error", "result"}
    assert_same_results(
        by_id(read_jsonl(tmp_path / "local2.jsonl")),
        by_id(output_rows(str(tmp_path / "out.parquet"), "parquet")),
    )


def test_invalid_rows_are_written_with_their_reason_and_skipped_on_rerun(
    local_ray: str, fake_vllm: FakeVLLMServer, tmp_path: Path
) -> None:
    config = write_config(tmp_path, fake_vllm.base_url)
    source = tmp_path / "in.jsonl"
    good = [json.dumps(r) for r in rows(2)]
    source.write_text(
        "\n".join([good[0], "{not json", json.dumps({"id": "bad", "question": "q"}), good[1]]) + "\n"
    )
    assert score_ray(source, tmp_path / "out.jsonl", config, "--actors", "1") == 0
    out = by_id(output_rows(str(tmp_path / "out.jsonl"), "jsonl"))
    assert len(out) == 4
    assert out["r0"]["score"] is not None and "error" not in out["r0"]
    assert out["bad"]["score"] is None and "response" in out["bad"]["error"]
    (broken,) = [r for key, r in out.items() if key.startswith("invalid-")]
    assert "not valid JSON" in broken["error"] and broken["complete"] is False

    requests = len(fake_vllm.engine.completion_requests())
    assert score_ray(source, tmp_path / "out.jsonl", config, "--actors", "1") == 0
    assert len(output_rows(str(tmp_path / "out.jsonl"), "jsonl")) == 4
    assert len(fake_vllm.engine.completion_requests()) == requests, "a rerun scored done rows again"


def test_endpoint_down_every_row_written_with_reasons(local_ray: str, tmp_path: Path) -> None:
    config = write_config(tmp_path, closed_port_url(), max_retries=0)
    source = write_jsonl(tmp_path / "in.jsonl", rows(6))
    assert score_ray(source, tmp_path / "out.jsonl", config, "--actors", "1") == 0
    out = by_id(output_rows(str(tmp_path / "out.jsonl"), "jsonl"))
    assert set(out) == {f"r{i}" for i in range(6)}
    for row in out.values():
        for judge in JUDGES:
            assert row["signals"][judge]["value"] is None and row["signals"][judge]["error"], judge
        assert row["used_signals"] == ["lexical"], "the local signal still scores"


def _slow_server() -> FakeVLLMServer:
    """Each request takes 50 ms in service, so batches are still in flight when the test strikes."""
    return FakeVLLMServer(judge_policy(), latency=LatencyModel(overhead_s=0.05)).start()


def _actor_pids() -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if b"ScoreBatches" in cmdline:
            pids.append(int(entry.name))
    return pids


def _wait_for(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_an_actor_killed_mid_batch_loses_nothing(local_ray: str, tmp_path: Path) -> None:
    server = _slow_server()
    try:
        config = write_config(tmp_path, server.base_url)
        source = write_jsonl(tmp_path / "in.jsonl", rows(12))
        killed: list[int] = []

        def strike() -> None:
            # Mid-batch: some requests served, the first batch not finished.
            _wait_for(lambda: len(server.engine.completion_requests()) >= 15, 120, "requests")
            for pid in _actor_pids():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

        striker = threading.Thread(target=strike, daemon=True)
        striker.start()
        assert score_ray(source, tmp_path / "out.jsonl", config, "--actors", "1", "--batch-size", "6") == 0
        striker.join(timeout=5)
        assert killed, "no actor was killed: the test did not test anything"
        out = by_id(output_rows(str(tmp_path / "out.jsonl"), "jsonl"))
        assert set(out) == {f"r{i}" for i in range(12)}
        assert all(r["complete"] and len(r["used_signals"]) == len(JUDGES) + 1 for r in out.values())
    finally:
        server.stop()


def test_resume_after_the_driver_is_killed(local_ray: str, tmp_path: Path) -> None:
    server = _slow_server()
    try:
        config = write_config(tmp_path, server.base_url)
        source = write_jsonl(tmp_path / "in.jsonl", rows(24))
        output = tmp_path / "out.jsonl"
        command = [sys.executable, "-m", "trustscore.cli", "score", str(source), "-o", str(output)]
        command += ["--config", str(config), "--ray", "--address", local_ray, "--actors", "1"]
        command += ["--batch-size", "4", "--no-progress"]
        driver = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            _wait_for(lambda: output.exists() and any(output.iterdir()), 120, "the first part file")
        finally:
            driver.send_signal(signal.SIGKILL)
            driver.wait()
        first = existing_ids(str(output), "jsonl")  # also drops a line the kill cut short
        assert 0 < len(first) < 24, "the driver was not killed mid-run"
        _wait_for(lambda: not _actor_pids(), 30, "the dead job's actors to go")

        before = len(server.engine.completion_requests())
        assert score_ray(source, output, config, "--actors", "1", "--batch-size", "4") == 0
        out = by_id(output_rows(str(output), "jsonl"))
        assert set(out) == {f"r{i}" for i in range(24)}
        rescored = (len(server.engine.completion_requests()) - before) // REQUESTS_PER_SAMPLE
        assert rescored <= 24 - len(first), "rows already written were scored again"
    finally:
        server.stop()


def test_score_dataset_from_python(local_ray: str, fake_vllm: FakeVLLMServer, tmp_path: Path) -> None:
    import trustscore.ray

    config = ensemble_dict(fake_vllm.base_url)
    ds = ray.data.from_items(rows(5))
    scored = trustscore.ray.score_dataset(ds, Config.from_dict(config), actors=1, skip_ids={"r4"})
    out = by_id([json.loads(r["result"]) | {"typed": r} for r in scored.take_all()])
    assert set(out) == {"r0", "r1", "r2", "r3"}
    for row in out.values():
        assert row["typed"]["score"] == row["score"] and row["typed"]["error"] is None
        assert row["label"] in (0, 1) and list(row["signals"]) == list(JUDGES)
