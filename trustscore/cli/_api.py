"""trustscore api --config F: serve scores over HTTP (POST /v1/score, /v1/score/batch; GET /healthz,
/readyz, /metrics, /openapi.json).

API keys come from the environment variable TRUSTSCORE_API_KEYS (comma-separated) or --api-key-file
(one a line); they are required unless the service listens on loopback only. Keys are never printed.
The signals warm up as it starts: /readyz answers 200 once they have. Stop it with Ctrl-C or SIGTERM:
it stops taking work, lets the samples in flight finish for --shutdown-grace seconds, answers the
rest with the reason and exits 0, or 4 when the grace cut work short.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from trustscore.cli._help_text import plain
from trustscore.core._extras import install_extra

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "api",
        help="serve scores over HTTP (the api extra)",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--config", type=Path, default=None, help="trustscore TOML (default: the offline signals)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--api-key-file", type=Path, default=None, help="file of API keys, one a line")
    p.add_argument("--max-in-flight", type=int, default=32, help="samples scored at once (default 32)")
    p.add_argument("--max-queued", type=int, default=256, help="samples waiting beyond those; more get 429")
    p.add_argument(
        "--max-body-bytes", type=int, default=4 * 2**20, help="largest request body (default 4 MiB)"
    )
    p.add_argument("--max-budget", type=float, default=None, help="largest ?budget_s= a caller may ask for")
    p.add_argument(
        "--shutdown-grace", type=float, default=30.0, help="seconds work in flight may finish on stop"
    )
    p.add_argument("--header-timeout", type=float, default=10.0, help="seconds a request head may take")
    p.add_argument("--body-timeout", type=float, default=30.0, help="seconds a request body may take")
    p.add_argument(
        "--send-timeout", type=float, default=10.0, help="seconds a client may read nothing of its answer"
    )
    p.add_argument(
        "--max-body-buffer", type=int, default=32 * 2**20, help="body bytes held at once (default 32 MiB)"
    )
    p.add_argument("--max-connections", type=int, default=1000, help="open connections (default 1000)")
    p.set_defaults(run=run)
    return p


MAX_KEY_FILE_BYTES = 2**20
"""Largest --api-key-file read (1 MiB: thousands of keys)."""


def _keys(args: argparse.Namespace) -> list[str]:
    from trustscore._errors import ConfigError
    from trustscore.core._files import read_capped_text

    keys = [k.strip() for k in os.environ.get("TRUSTSCORE_API_KEYS", "").split(",") if k.strip()]
    if args.api_key_file is not None:
        text = read_capped_text(
            args.api_key_file, what="API key file", limit=MAX_KEY_FILE_BYTES, error=ConfigError
        )
        keys += [k.strip() for k in text.splitlines() if k.strip()]
    return keys


H11_MAX_HEAD_BYTES = 16 * 1024
"""Largest request head (line and headers) read; more is a 400 (h11's own default, made explicit)."""


def run(args: argparse.Namespace) -> int:
    from trustscore._errors import ConfigError

    try:
        import uvicorn

        from trustscore.api import ApiSettings, create_app
        from trustscore.api._logs import install_log_filters
        from trustscore.api._protocol import accept_limits, bounded_protocol
        from trustscore.api._server import DrainingServer
        from trustscore.api._settings import is_loopback
    except ImportError as e:
        hint = install_extra("api")
        raise ConfigError(f"trustscore api needs the api extra ({e.name} is missing): {hint}") from None
    from pydantic import SecretStr, ValidationError

    from trustscore.scoring._scorer import Scorer

    keys = _keys(args)
    if not keys and not is_loopback(args.host):
        raise ConfigError(
            f"--host {args.host} listens beyond loopback: set API keys "
            "(TRUSTSCORE_API_KEYS or --api-key-file)"
        )
    try:
        settings = ApiSettings(
            api_keys=[SecretStr(k) for k in keys],
            max_in_flight=args.max_in_flight,
            max_queued=args.max_queued,
            max_body_bytes=args.max_body_bytes,
            max_budget_s=args.max_budget,
            shutdown_grace_s=args.shutdown_grace,
            header_timeout_s=args.header_timeout,
            body_timeout_s=args.body_timeout,
            send_timeout_s=args.send_timeout,
            max_body_buffer_bytes=args.max_body_buffer,
            max_connections=args.max_connections,
        )
    except ValidationError as e:
        problems = "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors())
        raise ConfigError(f"trustscore api: {problems}") from None
    scorer = Scorer.from_config(args.config)
    app = create_app(scorer, settings, own_scorer=True, warm_up=True)
    max_connections, backlog = accept_limits(settings.max_connections)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        http=bounded_protocol(settings.header_timeout_s, max_connections),
        backlog=backlog,
        h11_max_incomplete_event_size=H11_MAX_HEAD_BYTES,
        timeout_graceful_shutdown=int(settings.shutdown_grace_s),  # the rest of the grace, set at shutdown
        log_level="info",
    )
    install_log_filters()
    server = DrainingServer(config, app.state.service)
    server.run()
    return server.exit_status
