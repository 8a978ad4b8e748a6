"""The package's structure, checked against docs/layers.toml (the architecture as data): every module
sits in a layer, no import runs up the layers, no import loop, no forbidden import, and the product
never imports its test kit. Imports are read from the source, those inside functions and under
``if TYPE_CHECKING:`` included."""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "trustscore"
ARCHITECTURE: dict[str, Any] = tomllib.loads((ROOT / "docs" / "layers.toml").read_text(encoding="utf-8"))


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every module ``path`` imports; ``from trustscore import x`` counts as the package root."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: use absolute imports"
            found.add(node.module or "")
    return found


MODULES = {module_name(p): imports_of(p) for p in sorted(PACKAGE.rglob("*.py"))}


def under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def layer_of(module: str) -> int | None:
    """Index of the module's layer (bottom = 0); None for the test kit beside them or an unplaced module."""
    best: tuple[int, int] | None = None
    for index, layer in enumerate(ARCHITECTURE["layers"]):
        for prefix in layer["modules"]:
            if under(module, prefix) and (best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    if best is None or any(under(module, p) for p in ARCHITECTURE["beside"]["modules"]):
        return None
    return best[0]


def known(name: str, modules: Mapping[str, set[str]]) -> str | None:
    """The module of ours an imported name refers to (``trustscore.x.y`` may name an attribute of x)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def upward_imports(modules: Mapping[str, set[str]]) -> list[str]:
    out = []
    for name, imported in modules.items():
        here = layer_of(name)
        if here is None:
            continue
        for target in sorted(filter(None, (known(i, modules) for i in imported))):
            there = layer_of(target)
            if there is None or there > here:
                out.append(f"{name} -> {target}")
    return out


def loops(modules: Mapping[str, set[str]]) -> list[list[str]]:
    """The import loops among our modules: strongly connected components of more than one module."""
    graph = {
        name: {t for t in (known(i, modules) for i in imported) if t and t != name}
        for name, imported in modules.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def forbidden_imports(modules: Mapping[str, set[str]]) -> list[str]:
    out = []
    for rule in ARCHITECTURE["forbidden"]:
        for name, imported in modules.items():
            if under(name, rule["from"]):
                out.extend(f"{name} -> {i}" for i in sorted(imported) if any(under(i, t) for t in rule["to"]))
    return out


def test_the_source_tree_and_the_architecture_file_were_read() -> None:
    assert {
        "trustscore.types",
        "trustscore.errors",
        "trustscore.llm.client",
        "trustscore.scoring.scorer",
    } <= set(MODULES)
    assert [layer["name"] for layer in ARCHITECTURE["layers"]][:3] == ["core", "llm", "signals"]


def test_every_module_sits_in_a_layer_or_beside_them() -> None:
    beside = ARCHITECTURE["beside"]["modules"]
    unplaced = [m for m in MODULES if layer_of(m) is None and not any(under(m, p) for p in beside)]
    assert unplaced == [], "add them to docs/layers.toml"


def test_no_import_runs_up_the_layers_and_the_product_never_imports_its_test_kit() -> None:
    assert upward_imports(MODULES) == []


def test_no_import_loop() -> None:
    assert loops(MODULES) == []


def test_no_forbidden_import() -> None:
    assert forbidden_imports(MODULES) == []


@pytest.mark.parametrize(
    "planted, imports, check",
    [
        ("trustscore.llm.planted", {"trustscore.judges.lynx"}, upward_imports),
        ("trustscore.fusion.planted", {"trustscore"}, upward_imports),
        ("trustscore.scoring.planted", {"trustscore.testing.judges"}, upward_imports),
        ("trustscore.judges.planted", {"torch"}, forbidden_imports),
        ("trustscore.fusion.planted", {"trustscore.judges.lynx"}, forbidden_imports),
    ],
)
def test_the_checks_can_fail(planted: str, imports: set[str], check: Any) -> None:
    assert check({**MODULES, planted: imports}) != []


def test_a_new_loop_is_found() -> None:
    planted = {**MODULES, "trustscore.core.planted": {"trustscore.core.hashing"}}
    planted["trustscore.core.hashing"] = {*MODULES["trustscore.core.hashing"], "trustscore.core.planted"}
    assert ["trustscore.core.hashing", "trustscore.core.planted"] in loops(planted)
