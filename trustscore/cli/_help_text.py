"""A subcommand's module docstring as its ``--help`` description: plain text, no reST markup."""

from __future__ import annotations

__all__ = ["plain"]


def plain(doc: str | None) -> str:
    """``doc`` with reST inline literals (double backticks) shown as the bare text."""
    return (doc or "").replace("``", "")
