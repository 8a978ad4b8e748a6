"""mkdocs hook: the configuration page is rendered from the config models at build time.

The generator is scripts/gen_config_docs.py. docs/config.md is the same text, committed so that it
reads on its own and so that error messages can point to it; tests/test_config_docs.py fails when the
committed copy is stale.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

CONFIG_PAGE = "config.md"
_GENERATOR = Path(__file__).resolve().parents[1] / "scripts" / "gen_config_docs.py"


def _render() -> str:
    spec = importlib.util.spec_from_file_location("gen_config_docs", _GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text: str = module.render()
    return text


def on_page_read_source(page: Any, config: Any) -> str | None:
    """The configuration page's Markdown, generated; every other page is read from its file."""
    if page.file.src_uri == CONFIG_PAGE:
        return _render()
    return None
