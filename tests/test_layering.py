"""Import layering, read from the source (lazy imports inside functions count too):
types and errors at the bottom; llm knows no judge; judges know no torch; fusion never imports llm,
judges or the package root; the product never imports its test kit."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "trustscore"


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


def offenders(modules: str, forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    """Modules under ``modules`` importing anything under one of ``forbidden`` (exact or a child)."""

    def under(name: str, prefix: str) -> bool:
        return name == prefix or name.startswith(prefix + ".")

    out = {}
    for name, imported in MODULES.items():
        if under(name, modules):
            bad = sorted(i for i in imported if any(under(i, f) for f in forbidden))
            if bad:
                out[name] = bad
    return out


def test_the_source_tree_was_read() -> None:
    assert {"trustscore.types", "trustscore.errors", "trustscore.llm.client", "trustscore.fusion.fit"} <= set(
        MODULES
    )


def test_types_and_errors_are_at_the_bottom() -> None:
    assert {i for i in MODULES["trustscore.types"] if i.startswith("trustscore")} == set()
    assert {i for i in MODULES["trustscore.errors"] if i.startswith("trustscore")} == {"trustscore.types"}


def test_llm_knows_no_judge_and_no_signal() -> None:
    higher = (
        "trustscore.judges",
        "trustscore.scoring.scorer",
        "trustscore.scoring",
        "trustscore.signals._registry",
        "trustscore.grounding",
        "trustscore.whitebox",
        "trustscore.fusion",
        "trustscore.config",
    )
    assert offenders("trustscore.llm", higher) == {}


def test_judges_know_no_torch() -> None:
    assert offenders("trustscore.judges", ("torch", "transformers", "numpy", "trustscore.whitebox")) == {}


def test_fusion_never_imports_llm_judges_or_the_package_root() -> None:
    bad = offenders("trustscore.fusion", ("trustscore.llm", "trustscore.judges", "trustscore.scoring.scorer"))
    roots = [
        name
        for name, imported in MODULES.items()
        if name.startswith("trustscore.fusion") and "trustscore" in imported
    ]
    assert bad == {} and roots == []


def test_the_product_never_imports_its_test_kit() -> None:
    product = {n: i for n, i in MODULES.items() if not n.startswith("trustscore.testing")}
    kit = {n: sorted(x for x in i if x.startswith("trustscore.testing")) for n, i in product.items()}
    assert {n: uses for n, uses in kit.items() if uses} == {}


@pytest.mark.parametrize("layer", ["trustscore.llm", "trustscore.fusion"])
def test_the_checks_can_fail(layer: str) -> None:
    MODULES[f"{layer}.planted"] = {"trustscore.judges.lynx", "trustscore"}
    try:
        assert offenders(layer, ("trustscore.judges",)) == {f"{layer}.planted": ["trustscore.judges.lynx"]}
    finally:
        del MODULES[f"{layer}.planted"]
