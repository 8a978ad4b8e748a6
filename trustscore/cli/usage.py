"""The error a subcommand raises for bad input (a file, a line, a flag)."""

from __future__ import annotations

from trustscore.errors import InputError

__all__ = ["UsageError"]


class UsageError(InputError):
    """Bad input to a command (file, line, flag): printed as one line, exit status 2."""
