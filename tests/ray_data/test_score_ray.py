"""``trustscore score --ray`` on a local two-CPU Ray against the test kit's fake vLLM server.

The Ray path must give what the local command gives for the same input, resume after its driver is
killed, lose nothing when an actor dies mid-batch, write a sample that keeps killing its actor as a
row with its reason (and its batch mates scored), retry incomplete rows on request, refuse duplicate
ids, reserve GPUs when asked, and write every row (with reasons) when the judge endpoint is down.
Run with ``pytest -m ray`` (needs the [ray] extra).
"""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
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

from tests.ray_data.plugin_site import write_plugin_site  # noqa: E402
from trustscore import Config  # noqa: E402
from trustscore.cli import main  # noqa: E402
from trustscore.ray._files import output_rows, previous_rows  # noqa: E402
from trustscore.testing import FakeRequest, FakeVLLMServer, LatencyModel, judge_policy  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


POISON_PLUGIN = """
import os
import signal

from pydantic import BaseModel

from trustscore import register_signal
from trustscore._types import Signal


class PoisonConfig(BaseModel):
    marker: str = "POISON"


class Poison:
    name = "poison"
    version = "1"

    def __init__(self, marker: str) -> None:
        self.marker = marker

    async def run(self, sample):
        if self.marker in sample.response:
            os.kill(os.getpid(), signal.SIGKILL)  # what a crash in native code or the OOM killer does
        return Signal(name="poison", value=1.0)


@register_signal("poison", config=PoisonConfig, kind="local")
def build(config, ctx):
    return Poison(config.marker)
"""


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site directory holding the ``poison`` signal plug-in, found through its entry point."""
    site = tmp_path_factory.mktemp("site")
    return write_plugin_site(site, module="poison_signal", source=POISON_PLUGIN, signal="poison")


@pytest.fixture(scope="module")
def local_ray(plugin_site: Path) -> Iterator[str]:
    """One local Ray for the module (starting one takes seconds); yields its address. Its workers
    see the poison plug-in; it declares one (pretend) GPU, so GPU reservations can be scheduled."""
    path = os.pathsep.join(p for p in (str(plugin_site), os.environ.get("PYTHONPATH")) if p)
    ray.init(
        num_cpus=2,
        num_gpus=1,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": path}},
    )
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


class CurrentStderr:
    """A stream that writes to whatever ``sys.stderr`` is when written to: a CLI process's stderr."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


@pytest.fixture
def ray_data_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray Data's console handler writing to the stderr the test captures, as in a CLI process it
    writes to the process's own. The handler keeps the ``sys.stderr`` of the moment ``ray.data`` was
    first imported (Ray's PlainRayHandler is a StreamHandler), so in a test session it writes into
    whichever capture was current then: another test's (seen by none, or closed: a logging error), or
    this test's only when this test is the first to score on Ray."""
    import ray.data  # noqa: F401  (configures the "ray.data" logger's handlers)
    from ray._private.log import PlainRayHandler

    consoles = [h for h in logging.getLogger("ray.data").handlers if isinstance(h, PlainRayHandler)]
    assert consoles, "Ray Data logs to the console through another handler now"
    for handler in consoles:
        monkeypatch.setattr(handler, "stream", CurrentStderr())


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
    # one local signal, run on the actors
    data["signals"] = {"embedding": {"enabled": False}, "claims": {"enabled": False}}
    path = tmp_path / "trustscore.toml"
    path.write_text(to_toml(data), encoding="utf-8")
    return path


def score_local(source: Path, output: Path, config: Path, *extra: str) -> int:
    return main(["score", str(source), "-o", str(output), "--config", str(config), "--no-progress", *extra])


def score_ray(source: Path, output: Path, config: Path, *extra: str) -> int:
    return main(
        ["score", str(source), "-o", str(output), "--config", str(config), "--ray", "--no-progress", *extra]
    )


def summary_lines(printed: str) -> list[str]:
    """A run summary's lines less its first (the output's name) and its last (requests, cache hits and
    seconds, which differ from run to run)."""
    lines = [line.rstrip() for line in printed.splitlines() if line.strip()]
    return lines[1:-1]


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
    local_ray: str, fake_vllm: FakeVLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, fake_vllm.base_url)
    source = write_jsonl(tmp_path / "in.jsonl", rows(12, without_id=2))
    assert score_local(source, tmp_path / "local.jsonl", config) == 0
    local = by_id(read_jsonl(tmp_path / "local.jsonl"))
    assert len(local) == 14 and all(r["complete"] and r["score"] is not None for r in local.values())

    local_summary = summary_lines(capsys.readouterr().out)
    assert score_ray(source, tmp_path / "out.jsonl", config, "--actors", "1", "--batch-size", "4") == 0
    assert_same_results(local, by_id(output_rows(str(tmp_path / "out.jsonl"), "jsonl")))
    ray_summary = summary_lines(capsys.readouterr().out)
    signals = [line.split()[0] for line in ray_summary]
    assert "score" in signals and "lexical" in signals, "the per-signal table"
    assert ray_summary == local_summary, "the actors' shares of the summary add up to the local run's"

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


def test_an_input_field_named_error_is_carried_through_into_parquet_part_files(
    local_ray: str, fake_vllm: FakeVLLMServer, tmp_path: Path
) -> None:
    config = write_config(tmp_path, fake_vllm.base_url)
    values: list[object] = [False, 3, "x"]
    carrying = [{**r, "error": v} for r, v in zip(rows(3), values, strict=True)]
    source = write_jsonl(tmp_path / "in.jsonl", carrying)
    assert score_ray(source, tmp_path / "out.parquet", config, "--actors", "1") == 0, "counted as errors"
    out = by_id(output_rows(str(tmp_path / "out.parquet"), "parquet"))
    assert [out[f"r{i}"]["error"] for i in range(3)] == values
    assert all(out[f"r{i}"]["score"] is not None for i in range(3))
    assert pq.read_table(tmp_path / "out.parquet").column("error").to_pylist() == [None] * 3


def test_invalid_rows_are_the_local_commands_error_rows_with_its_exit_status_and_carry(
    local_ray: str, fake_vllm: FakeVLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, fake_vllm.base_url)
    source = tmp_path / "in.jsonl"
    good = [json.dumps(r) for r in rows(2)]
    # a raw U+2028 inside a JSON string is one line to the local command (and to JSON)
    odd = json.dumps({**rows(3)[2], "response": "Frank\u2028Herbert."}, ensure_ascii=False)
    source.write_text(
        "\n".join([good[0], "{not json", "", json.dumps({"id": "bad", "question": "q"}), good[1], odd]) + "\n"
    )
    carry = ("--carry", "question,context,response")
    assert score_local(source, tmp_path / "local.jsonl", config, *carry) == 3
    local = by_id(read_jsonl(tmp_path / "local.jsonl"))
    assert "2 row(s) could not be scored" in capsys.readouterr().err

    assert score_ray(source, tmp_path / "out.jsonl", config, "--actors", "1", *carry) == 3
    err = capsys.readouterr().err
    assert "2 row(s) could not be scored and are error rows" in err and "e.g. line " in err
    assert "3 row(s) scored (0 of them incomplete before), 2 error row(s)" in err
    out = by_id(output_rows(str(tmp_path / "out.jsonl"), "jsonl"))
    assert len(out) == 5 and set(out) == set(local)
    errors = {key for key, row in local.items() if row["score"] is None}
    assert len(errors) == 2 and "bad" in errors
    for key in errors:  # the same error row: id, reason, line
        assert out[key] == {**local[key], "seconds": out[key]["seconds"]}
    assert out["bad"]["line"] == 4 and "response" in out["bad"]["error"]
    assert_same_results(
        {k: v for k, v in local.items() if k not in errors}, {k: v for k, v in out.items() if k not in errors}
    )
    assert out["r0"]["question"] == rows(1)[0]["question"] and out["r0"]["context"] == CONTEXT
    assert out["r2"]["response"] == "Frank\u2028Herbert."

    requests = len(fake_vllm.engine.completion_requests())
    assert score_ray(source, tmp_path / "out.jsonl", config, "--actors", "1") == 0, "nothing new: no error"
    assert len(output_rows(str(tmp_path / "out.jsonl"), "jsonl")) == 5
    assert len(fake_vllm.engine.completion_requests()) == requests, "a rerun scored done rows again"


def test_an_input_of_only_invalid_rows_exits_2_and_on_error_stop_scores_nothing(
    local_ray: str,
    fake_vllm: FakeVLLMServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    ray_data_console: None,
) -> None:
    """What the user reads on stderr: the one line naming the input's fault, not Ray's traceback of
    the read task that raised it (nor its request for a bug report)."""
    config = write_config(tmp_path, fake_vllm.base_url)
    invalid = tmp_path / "invalid.jsonl"
    invalid.write_text('{"id": "a", "question": "q"}\n{nope\n', encoding="utf-8")
    assert score_local(invalid, tmp_path / "local.jsonl", config) == 2
    assert score_ray(invalid, tmp_path / "out.jsonl", config, "--actors", "1") == 2
    assert "no row could be scored: all 2 row(s) are invalid" in capsys.readouterr().err

    not_text = tmp_path / "latin1.jsonl"
    not_text.write_bytes(b'{"question": "caf\xe9"}\n')
    assert score_ray(not_text, tmp_path / "latin1-out.jsonl", config, "--actors", "1") == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(f"{not_text}:1: not UTF-8 text (byte 18 of the line is not valid UTF-8)"), err
    assert "Traceback" not in err and "Ray Data or Ray Core internal code" not in err, err

    mixed = write_jsonl(tmp_path / "mixed.jsonl", [*rows(2), {"id": "bad", "question": "q"}])
    stop = ("--on-error", "stop")
    assert score_ray(mixed, tmp_path / "stopped.jsonl", config, "--actors", "1", *stop) == 2
    assert f"{mixed}:3: " in capsys.readouterr().err
    assert not (tmp_path / "stopped.jsonl").exists() and not fake_vllm.engine.completion_requests()


def test_retry_incomplete_replaces_cache_entries_trustscore_did_not_write(
    local_ray: str, fake_vllm: FakeVLLMServer, tmp_path: Path
) -> None:
    import diskcache  # type: ignore[import-untyped]

    cache_dir = tmp_path / "cache"
    data = ensemble_dict(fake_vllm.base_url, judges=None, cache_dir=cache_dir)
    data["judges"] = {"lynx": data["judges"]["lynx"]}
    data["signals"]["lexical"] = {"enabled": True}  # a score without the judge
    config = tmp_path / "lynx.toml"
    config.write_text(to_toml(data), encoding="utf-8")
    source = write_jsonl(tmp_path / "in.jsonl", rows(4))
    assert score_local(source, tmp_path / "local.jsonl", config) == 0  # fills the cache
    with diskcache.Cache(str(cache_dir)) as planted:  # valid JSON on every real key, not a result
        keys = list(planted.iterkeys())
        for key in keys:
            planted.set(key, '{"choices": "PASS"}')
    assert len(keys) == 4

    output = tmp_path / "out.jsonl"
    assert score_ray(source, output, config, "--actors", "1") == 1, "the local command's status: judge down"
    first = by_id(output_rows(str(output), "jsonl"))
    assert all(not r["complete"] for r in first.values())
    assert all("UnsafeCacheEntry" in r["signals"]["lynx"]["error"] for r in first.values())

    assert score_ray(source, output, config, "--actors", "1", "--retry-incomplete") == 0
    again = by_id(output_rows(str(output), "jsonl"))
    assert set(again) == set(first)
    assert all(r["complete"] and r["signals"]["lynx"]["value"] is not None for r in again.values())
    with diskcache.Cache(str(cache_dir)) as replaced:
        assert all(replaced.get(key) != '{"choices": "PASS"}' for key in keys), "the entries were replaced"


def test_endpoint_down_every_row_written_with_reasons(
    local_ray: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, closed_port_url(), max_retries=0)
    source = write_jsonl(tmp_path / "in.jsonl", rows(6))
    status = score_ray(source, tmp_path / "out.jsonl", config, "--actors", "1")
    assert status == 1, "the local command's status"
    err = capsys.readouterr().err
    assert "every judge failed on all 6 scored row(s)" in err and "--retry-incomplete" in err
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


def test_an_actor_killed_mid_batch_loses_nothing(
    local_ray: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
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
        printed = capsys.readouterr()
        assert "scored 12, skipped 0 already done" in printed.out, "a batch run again was counted twice"
        assert "--ray: 12 row(s) scored" in printed.err
    finally:
        server.stop()


def _hold_row(server: FakeVLLMServer, case: int) -> threading.Event:
    """Requests for row ``case`` get no answer until the returned event is set: the run cannot
    finish before the test strikes, however fast the box, while the blocks without that row are
    scored and written. (Holding many rows would fill the judges' in-flight slots and stall all.)"""
    answer = server.policy
    release = threading.Event()

    async def policy(request: FakeRequest) -> Any:
        held = re.search(rf"\(case {case}\)", request.text) is not None
        while held and not release.is_set():
            await anyio.sleep(0.05)  # set from the test's thread: poll, no loop-bound event
        return answer(request)

    server.policy = policy
    return release


def test_resume_after_the_driver_is_killed(local_ray: str, tmp_path: Path) -> None:
    server = _slow_server()
    release = _hold_row(server, 23)  # Ray splits the file into blocks; one stays unwritten
    try:
        config = write_config(tmp_path, server.base_url)
        source = write_jsonl(tmp_path / "in.jsonl", rows(24))
        output = tmp_path / "out.jsonl"
        command = [sys.executable, "-m", "trustscore.cli", "score", str(source), "-o", str(output)]
        command += ["--config", str(config), "--ray", "--address", local_ray, "--actors", "1"]
        command += ["--batch-size", "4", "--no-progress"]
        driver = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            # a part file holding a whole row (a file is created before its rows are written)
            parts = lambda: output.exists() and any(  # noqa: E731
                p.suffix == ".jsonl" and b"\n" in p.read_bytes() for p in output.iterdir()
            )
            _wait_for(parts, 120, "the first part file with a row")
        finally:
            driver.send_signal(signal.SIGKILL)
            driver.wait()
        first = set(previous_rows(str(output), "jsonl"))  # also drops a line the kill cut short
        assert 0 < len(first) < 24, "the driver was not killed mid-run"
        _wait_for(lambda: not _actor_pids(), 30, "the dead job's actors to go")
        release.set()

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


@pytest.fixture
def poison_registered(plugin_site: Path, signal_registry: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver validates ``[signals.poison]``, so it registers the plug-in too (for this test)."""
    monkeypatch.syspath_prepend(str(plugin_site))
    import importlib

    importlib.import_module("poison_signal")


def test_a_sample_that_kills_its_actor_is_written_with_its_reason(
    local_ray: str, fake_vllm: FakeVLLMServer, tmp_path: Path, poison_registered: None
) -> None:
    from trustscore.ray._actor import SAMPLE_DEATHS

    data = ensemble_dict(fake_vllm.base_url)
    data["signals"] = {"poison": {"marker": "POISON"}, "claims": {"enabled": False}}
    config = tmp_path / "trustscore.toml"
    config.write_text(to_toml(data), encoding="utf-8")
    items = rows(8)
    items[5]["response"] += " POISON"
    source = write_jsonl(tmp_path / "in.jsonl", items)
    output = tmp_path / "out.jsonl"
    # 3: the run finished and one row is an error row, as an unscorable row is in the local command
    assert score_ray(source, output, config, "--actors", "1", "--batch-size", "4") == 3

    out = by_id(output_rows(str(output), "jsonl"))
    assert set(out) == {f"r{i}" for i in range(8)}, "a row was dropped"
    poisoned = out.pop("r5")
    assert poisoned["score"] is None and poisoned["complete"] is False and poisoned["label"] == 1
    assert poisoned["error"].startswith(f"the worker died while scoring this sample {SAMPLE_DEATHS} times")
    for row in out.values():  # its batch mates r4, r6, r7 included
        assert row["complete"] and row["score"] is not None and row["signals"]["poison"]["value"] == 1.0

    requests = len(fake_vllm.engine.completion_requests())
    assert score_ray(source, output, config, "--actors", "1") == 0
    assert len(fake_vllm.engine.completion_requests()) == requests, "a plain rerun scored a row again"

    data["signals"] = {"poison": {"marker": "never in a response"}, "claims": {"enabled": False}}  # fixed
    config.write_text(to_toml(data), encoding="utf-8")
    assert score_ray(source, output, config, "--actors", "1", "--retry-incomplete") == 0
    again = by_id(output_rows(str(output), "jsonl"))
    assert set(again) == {f"r{i}" for i in range(8)}
    assert again["r5"]["complete"] and again["r5"]["score"] is not None and "error" not in again["r5"]
    rescored = (len(fake_vllm.engine.completion_requests()) - requests) // REQUESTS_PER_SAMPLE
    assert rescored == 1, "only the incomplete row is scored again"


def test_retry_incomplete_rescores_only_incomplete_rows_parquet(
    local_ray: str, fake_vllm: FakeVLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", rows(6))
    output = tmp_path / "out.parquet"
    down = write_config(tmp_path, closed_port_url(), max_retries=0)
    assert score_ray(source, output, down, "--actors", "1", "--batch-size", "3") == 1
    assert set(previous_rows(str(output), "parquet").values()) == {False}, "judges down: all incomplete"

    up = write_config(tmp_path, fake_vllm.base_url)
    requests = len(fake_vllm.engine.completion_requests())
    assert score_ray(source, output, up, "--actors", "1") == 0
    kept = len(fake_vllm.engine.completion_requests()) == requests
    assert kept, "incomplete rows are kept without the flag"
    assert "kept 6 incomplete row(s) of an earlier run" in capsys.readouterr().out

    assert score_ray(source, output, up, "--actors", "1", "--retry-incomplete") == 0
    out = by_id(output_rows(str(output), "parquet"))
    assert set(out) == {f"r{i}" for i in range(6)}
    assert all(r["complete"] and len(r["used_signals"]) == len(JUDGES) + 1 for r in out.values())
    assert len(fake_vllm.engine.completion_requests()) - requests == 6 * REQUESTS_PER_SAMPLE
    assert "6 row(s) scored (6 of them incomplete before), 0 already done" in capsys.readouterr().err

    requests = len(fake_vllm.engine.completion_requests())
    assert score_ray(source, output, up, "--actors", "1", "--retry-incomplete") == 0
    assert len(fake_vllm.engine.completion_requests()) == requests, "complete rows are never rescored"


def test_duplicate_ids_are_refused_before_anything_is_scored(
    local_ray: str, fake_vllm: FakeVLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, fake_vllm.base_url)
    items = [*rows(5), rows(3)[2]]
    source = write_jsonl(tmp_path / "in.jsonl", items)
    assert score_ray(source, tmp_path / "out.jsonl", config, "--actors", "1") == 2
    assert "id(s) 'r2' occur more than once" in capsys.readouterr().err
    assert not fake_vllm.engine.completion_requests()
    assert not (tmp_path / "out.jsonl").exists()


def test_duplicates_are_confirmed_exactly_not_by_hash(local_ray: str) -> None:
    from trustscore.ray._unique import duplicate_ids

    ids = [f"x{i}" for i in range(600)]
    ds = ray.data.from_items([{"id": i} for i in [*ids, "x7", "x500", "x7"]], override_num_blocks=4)
    assert duplicate_ids(ds) == ["x500", "x7"]
    # One-byte hashes: 600 ids in 256 buckets collide many times over; only real repeats are named.
    assert duplicate_ids(ds, hash_bytes=1) == ["x500", "x7"]
    assert duplicate_ids(ray.data.from_items([{"id": i} for i in ids]), hash_bytes=1) == []


def test_gpus_per_actor_reach_ray(
    local_ray: str, fake_vllm: FakeVLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import trustscore.ray

    seen: list[dict[str, Any]] = []
    real = ray.data.Dataset.map_batches

    def spy(self: Any, fn: Any, **kwargs: Any) -> Any:
        seen.append({"fn": fn, **kwargs})
        return real(self, fn, **kwargs)

    monkeypatch.setattr(ray.data.Dataset, "map_batches", spy)
    ds = ray.data.from_items(rows(3))
    scored = trustscore.ray.score_dataset(ds, Config.from_dict(ensemble_dict(fake_vllm.base_url)), num_gpus=1)
    assert len(scored.take_all()) == 3, "the actor was scheduled on the (pretend) GPU"
    (stage,) = [call for call in seen if call["fn"].__name__ == "ScoreBatches"]
    assert stage["num_gpus"] == 1 and stage["num_cpus"] == 1
    assert stage["compute"].min_size == stage["compute"].max_size == 1
    assert "max_task_retries" not in stage, "deprecated ray_remote_args are not used"


def test_more_gpus_than_the_cluster_has_is_a_clear_error(
    local_ray: str, fake_vllm: FakeVLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import trustscore.ray

    ds = ray.data.from_items(rows(2))
    needs = r"num_gpus=1 for 2 actor\(s\) needs 2 GPU\(s\) but the Ray cluster has 1"
    with pytest.raises(ValueError, match=needs):
        trustscore.ray.score_dataset(ds, Config(), actors=2, num_gpus=1)
    config = write_config(tmp_path, fake_vllm.base_url)
    source = write_jsonl(tmp_path / "in.jsonl", rows(2))
    assert score_ray(source, tmp_path / "out.jsonl", config, "--actors", "1", "--gpus-per-actor", "2") == 2
    assert "--gpus-per-actor=2 for 1 actor(s) needs 2 GPU(s)" in capsys.readouterr().err


def test_more_actors_than_its_own_local_ray_can_run_beside_its_reads_is_refused(tmp_path: Path) -> None:
    """A Ray the command starts cannot grow: an actor count that leaves Ray Data's read task no CPU
    would wait without end (``--actors 2`` on two CPUs did), so it is refused before anything runs."""
    source = write_jsonl(tmp_path / "in.jsonl", rows(2))
    out = tmp_path / "out.jsonl"
    command = ["score", str(source), "-o", str(out), "--ray", "--actors", "512", "--no-progress"]
    run = [sys.executable, "-m", "trustscore.cli", *command]
    done = subprocess.run(run, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr[-2000:]
    needs = "--actors=512 needs 513 CPUs (one per actor and one for Ray Data's read and write tasks)"
    assert needs in done.stderr and not out.exists()
