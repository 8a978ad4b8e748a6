"""The ``trustscore`` command line. Each subcommand lives in its own module and registers itself.

A subcommand module defines ``add_parser(subcommands)``: it adds its parser to the argparse
sub-parsers object and sets ``run=<function(args) -> exit code>`` as the parser's default. Adding a
command = one module plus one line in ``_COMMAND_MODULES``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from trustscore import __version__
from trustscore.config import ConfigError

__all__ = ["UsageError", "build_parser", "main"]

_COMMAND_MODULES = (
    "trustscore.cli_score",
    "trustscore.cli_eval",
    "trustscore.cli_calibrate",
    "trustscore.cli_train",
)


class UsageError(ValueError):
    """Bad input to a command (file, line, flag): printed as one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="trustscore", description="How far can you trust an LLM's answer? Score, evaluate, calibrate."
    )
    parser.add_argument("--version", action="version", version=f"trustscore {__version__}")
    subcommands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    for module_name in _COMMAND_MODULES:
        importlib.import_module(module_name).add_parser(subcommands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status (0 ok, 1 failed, 2 bad input or config, 130 interrupted)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.run(args)
    except (UsageError, ConfigError) as e:
        print(f"trustscore: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("trustscore: interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
