"""The ``trustscore`` command line. Each subcommand lives in its own module of this package.

A subcommand module defines ``add_parser(subcommands)``: it adds its parser to the argparse
sub-parsers object and sets ``run=<function(args) -> exit code>`` as the parser's default. Adding a
command = one module in ``trustscore/cli/`` plus one line in ``_COMMAND_MODULES``. Subcommands are
imported only when the parser is built, and import nothing from here (UsageError is in
:mod:`trustscore._errors`), so there is no import cycle.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from trustscore._errors import ConfigError, DegradedScoreError, InputError, UsageError
from trustscore._version import __version__

__all__ = ["UsageError", "build_parser", "main"]

_COMMAND_MODULES = (
    "trustscore.cli._score",
    "trustscore.cli._eval",
    "trustscore.cli._calibrate",
    "trustscore.cli._serve",
    "trustscore.cli._api",
    "trustscore.cli._train",
    "trustscore.cli._fit_redeep",
    "trustscore.cli._export_embedding",
)


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
    """Run one command; returns the exit status (0 ok, 1 failed, 2 bad input or config, 3 finished with
    some rows that could not be scored, 130 interrupted)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.run(args)
    except (InputError, ConfigError) as e:  # UsageError is an InputError
        print(f"trustscore: error: {e}", file=sys.stderr)
        return 2
    except DegradedScoreError as e:  # fusion.on_missing = "raise" with --on-error stop
        print(f"trustscore: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # disk full, read-only, not a file: one line naming the path, no traceback
        where = f"{e.filename}: " if e.filename else ""
        print(f"trustscore: error: {where}{e.strerror or e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("trustscore: interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
