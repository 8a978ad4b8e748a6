"""The ``trustscore`` command (``python -m trustscore.cli``): see :mod:`trustscore.cli._main`."""

from trustscore._errors import UsageError
from trustscore.cli._main import build_parser, main

__all__ = ["UsageError", "build_parser", "main"]
