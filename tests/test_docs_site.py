"""The docs site: every page is in the navigation, and the configuration page is generated."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType, SimpleNamespace

REPO = Path(__file__).parents[1]
DOCS = REPO / "docs"


def load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_page_is_in_the_navigation() -> None:
    nav = set(re.findall(r"^\s+- [^:]+: (\S+\.md)$", (REPO / "mkdocs.yml").read_text(encoding="utf-8"), re.M))
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert pages == nav, f"pages missing from mkdocs.yml's nav: {sorted(pages - nav)}"


def test_the_site_renders_the_configuration_page_from_the_models() -> None:
    hooks = load("docs_hooks", DOCS / "hooks.py")
    render = load("gen_config_docs", REPO / "scripts" / "gen_config_docs.py").render

    def page(src_uri: str) -> SimpleNamespace:
        return SimpleNamespace(file=SimpleNamespace(src_uri=src_uri))

    assert hooks.on_page_read_source(page("config.md"), config=None) == render()
    assert hooks.on_page_read_source(page("judges.md"), config=None) is None
