"""The package's structure, checked against docs/layers.toml (the architecture as data): every module
sits in a layer, no import runs up the layers, no import loop, no forbidden import, no family imports
another, and the product never imports its test kit. Imports are read from the source, those inside
functions and under ``if TYPE_CHECKING:`` included, and so are the modules loaded by importlib (a
literal ``import_module("...")``, or a table of module names such as the command list)."""

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
TOP = "trustscore"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_strings(node: ast.AST) -> list[str]:
    """The strings of a tuple, list or dict (its values) literal when every one names a module of ours."""
    if isinstance(node, ast.Dict):
        items: list[ast.expr | None] = list(node.values)
    elif isinstance(node, (ast.Tuple, ast.List)):
        items = list(node.elts)
    else:
        return []
    strings = [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]
    if not strings or len(strings) != len(items):
        return []
    return strings if all(s.startswith(TOP + ".") and " " not in s for s in strings) else []


def imports_in(source: str, where: str = "<source>") -> set[str]:
    """Every module ``source`` imports or loads by importlib; ``from trustscore import x`` counts as
    the package root."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{where}: use absolute imports"
            found.add(node.module or "")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0] if node.args else None
            if name == "import_module" and isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.add(first.value)
        found.update(_module_strings(node))
    return found


MODULES = {
    module_name(p): imports_in(p.read_text(encoding="utf-8"), str(p)) for p in sorted(PACKAGE.rglob("*.py"))
}


def under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def covers(entry: str, module: str) -> bool:
    """An entry covers its module and submodules; the package root covers only itself."""
    return module == entry if entry == TOP else under(module, entry)


def layer_of(module: str) -> int | None:
    """Index of the module's layer (bottom = 0); None for the test kit beside them or an unplaced module."""
    best: tuple[int, int] | None = None
    for index, layer in enumerate(ARCHITECTURE["layers"]):
        for prefix in layer["modules"]:
            if covers(prefix, module) and (best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    if best is None or any(under(module, p) for p in ARCHITECTURE["beside"]["modules"]):
        return None
    return best[0]


def known(name: str, modules: Mapping[str, set[str]]) -> str | None:
    """The module of ours an imported name refers to (``trustscore.x.y`` may name an attribute of x)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def unplaced_modules(modules: Mapping[str, set[str]]) -> list[str]:
    beside = ARCHITECTURE["beside"]["modules"]
    return [m for m in modules if layer_of(m) is None and not any(under(m, p) for p in beside)]


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


def family_of(module: str) -> str | None:
    return next((f for f in ARCHITECTURE["families"]["modules"] if under(module, f)), None)


def family_to_family_imports(modules: Mapping[str, set[str]]) -> list[str]:
    """Imports from one signal family into another (what two share belongs in the layer below them)."""
    out = []
    for name, imported in modules.items():
        here = family_of(name)
        if here is None:
            continue
        for target in sorted(filter(None, (known(i, modules) for i in imported))):
            there = family_of(target)
            if there is not None and there != here:
                out.append(f"{name} -> {target}")
    return out


def test_the_source_tree_and_the_architecture_file_were_read() -> None:
    assert {
        "trustscore._types",
        "trustscore._errors",
        "trustscore.llm._client",
        "trustscore.scoring._scorer",
    } <= set(MODULES)
    assert [layer["name"] for layer in ARCHITECTURE["layers"]][:3] == ["core", "llm", "signals"]
    assert "trustscore.cli._score" in MODULES["trustscore.cli._main"], "the command table is read as imports"
    assert "trustscore.judges" in MODULES["trustscore.scoring._builtins"], "the built-in table is read"


def test_every_module_sits_in_a_layer_or_beside_them() -> None:
    assert unplaced_modules(MODULES) == [], "add them to docs/layers.toml"


def test_no_import_runs_up_the_layers_and_the_product_never_imports_its_test_kit() -> None:
    assert upward_imports(MODULES) == []


def test_no_import_loop() -> None:
    assert loops(MODULES) == []


def test_no_forbidden_import() -> None:
    assert forbidden_imports(MODULES) == []


def test_no_family_imports_another() -> None:
    assert family_to_family_imports(MODULES) == []


def planted(module: str, source: str) -> dict[str, set[str]]:
    """The package's graph with ``module``'s imports extended by those of ``source``."""
    return {**MODULES, module: MODULES.get(module, set()) | imports_in(source)}


FUNCTION = "def f():\n    {}\n"
SCORER = "from trustscore.scoring._scorer import Scorer"
LYNX = "from trustscore.judges._lynx import LynxJudge"
TYPE_CHECKING = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    {}\n"


@pytest.mark.parametrize(
    "module, source, check",
    [
        ("trustscore.fusion._fuser", "import trustscore.judges._lynx", forbidden_imports),
        ("trustscore.llm._cache", FUNCTION.format(SCORER), upward_imports),
        ("trustscore.llm._cache", FUNCTION.format(SCORER), loops),
        ("trustscore._types", "import trustscore.llm", upward_imports),
        ("trustscore._types", "import trustscore.llm", loops),
        ("trustscore._types", "import trustscore.llm", forbidden_imports),
        ("trustscore.scoring._inputs", TYPE_CHECKING.format("import trustscore.testing"), upward_imports),
        ("trustscore.grounding._lexical", LYNX, family_to_family_imports),
        ("trustscore.whitebox.aarf", "import trustscore.judges", family_to_family_imports),
        ("trustscore.whitebox.aarf", "from trustscore.encoders._hhem import HHEM", family_to_family_imports),
        ("trustscore.newroot", "import trustscore._types", unplaced_modules),
        ("trustscore.judges._base", "import importlib\nimportlib.import_module('numpy')", forbidden_imports),
        ("trustscore.core._files", FUNCTION.format("import_module('trustscore.scoring')"), upward_imports),
        (
            "trustscore.core._files",
            "T = ('trustscore.scoring._scorer', 'trustscore.cli._main')",
            upward_imports,
        ),
        ("trustscore.ray._files", "from trustscore.cli import UsageError", forbidden_imports),
        ("trustscore.llm.planted", "import trustscore.judges._lynx", upward_imports),
        ("trustscore.fusion.planted", "from trustscore import Scorer", upward_imports),
        ("trustscore.scoring.planted", "from trustscore.testing._judges import x", upward_imports),
        ("trustscore.judges.planted", "import torch", forbidden_imports),
    ],
)
def test_the_checks_fail_on_a_planted_import(module: str, source: str, check: Any) -> None:
    assert check(planted(module, source)) != []


def test_a_relative_import_is_refused() -> None:
    with pytest.raises(AssertionError, match="use absolute imports"):
        imports_in("from . import lynx", "trustscore/judges/planted.py")


def test_strings_that_are_not_a_module_table_are_not_imports() -> None:
    assert imports_in("x = ('trustscore.judges', 'a word')\nmessage = 'see trustscore.scoring'") == set()


def test_a_new_loop_is_found() -> None:
    planted = {**MODULES, "trustscore.core.planted": {"trustscore.core._hashing"}}
    planted["trustscore.core._hashing"] = {*MODULES["trustscore.core._hashing"], "trustscore.core.planted"}
    assert ["trustscore.core._hashing", "trustscore.core.planted"] in loops(planted)


def test_the_numbers_the_architecture_page_quotes() -> None:
    """0 loops, 0 upward imports, 0 family-to-family imports (docs/architecture.md)."""
    counts = (len(loops(MODULES)), len(upward_imports(MODULES)), len(family_to_family_imports(MODULES)))
    assert counts == (0, 0, 0)
