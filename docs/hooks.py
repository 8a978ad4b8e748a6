"""mkdocs hook: the configuration page is rendered from the config models at build time.

docs/config.md is the same text, committed so that it reads on its own and so that error messages
can point to it; tests/test_config_reference.py fails when the committed copy is stale.
"""

from __future__ import annotations

from typing import Any

from trustscore.config_reference import render

CONFIG_PAGE = "config.md"


def on_page_read_source(page: Any, config: Any) -> str | None:
    """The configuration page's Markdown, generated; every other page is read from its file."""
    if page.file.src_uri == CONFIG_PAGE:
        return render()
    return None
