"""The ``trustscore`` command (``python -m trustscore.cli``): see :mod:`trustscore.cli.main`."""

from trustscore.cli.main import build_parser, main
from trustscore.errors import UsageError

__all__ = ["UsageError", "build_parser", "main"]
