"""The ``trustscore`` command (``python -m trustscore.cli``): see :mod:`trustscore.cli.main`."""

from trustscore.cli.main import build_parser, main
from trustscore.cli.usage import UsageError

__all__ = ["UsageError", "build_parser", "main"]
