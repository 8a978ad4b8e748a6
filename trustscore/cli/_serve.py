"""trustscore serve --config F: start one vLLM server per local endpoint of the config."""

# The work is in trustscore/serve/_servers.py; this module only declares the command line.

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from trustscore.cli._help_text import plain

__all__ = ["add_parser", "run"]


def _gpu_count() -> int:
    """GPUs visible to this process: CUDA_VISIBLE_DEVICES when set, else nvidia-smi's list, else 0."""
    import os
    import shutil
    import subprocess

    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return len([d for d in visible.split(",") if d.strip() and d.strip() != "-1"])
    if shutil.which("nvidia-smi") is None:
        return 0
    proc = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, check=False)
    return sum(line.startswith("GPU ") for line in proc.stdout.splitlines()) if proc.returncode == 0 else 0


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help="start one vLLM server per local endpoint of a config (the judge fleet)",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--config", type=Path, required=True, help="trustscore TOML whose endpoints name model_identity"
    )
    p.add_argument("--gpus", type=int, default=None, help="GPUs to lay the servers over (default: detected)")
    p.add_argument("--dry-run", action="store_true", help="print the exact commands and exit")
    p.add_argument("--log-dir", type=Path, default=Path("vllm-logs"), help="one log file per server")
    p.add_argument("--pick-ports", action="store_true", help="move a server whose port is busy to a free one")
    p.add_argument("--python", default=None, help="run this python's vLLM module instead of `vllm serve`")
    p.add_argument("--startup-timeout", type=float, default=1800.0, help="seconds to wait for /health")
    p.add_argument(
        "--listen-all",
        action="store_true",
        help="let an endpoint whose base_url is 0.0.0.0 listen on every interface (it needs api_key_env)",
    )
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    from trustscore.serve._servers import serve

    return serve(
        args.config,
        gpus=_gpu_count() if args.gpus is None else args.gpus,
        dry_run=args.dry_run,
        log_dir=args.log_dir,
        pick_ports=args.pick_ports,
        python=args.python,
        timeout_s=args.startup_timeout,
        listen_all=args.listen_all,
    )
