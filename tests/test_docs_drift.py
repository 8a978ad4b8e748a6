"""The docs name only what exists: file paths, private module paths, packages, and every package of
trustscore/ has its row in docs/architecture.md. A rename that leaves a page behind fails here."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[1]
PACKAGE = REPO / "trustscore"
PAGES = sorted([*(REPO / "docs").rglob("*.md"), REPO / "README.md", *REPO.glob("*/README.md")])
ARCHITECTURE = REPO / "docs" / "architecture.md"

# `trustscore/x/_y.py`, the form the pages use to point at a file of the package
FILE_PATH = re.compile(r"\btrustscore/[A-Za-z0-9_/]+\.py\b")
# `trustscore.x._y.name`: a dotted path through a private module is a pointer into the code (dotted
# names without one are also metric and span names, which need not resolve)
_NAME = r"\.[A-Za-z_][A-Za-z0-9_]*"
PRIVATE_DOTTED = re.compile(rf"\btrustscore(?:{_NAME})*\._[a-z][A-Za-z0-9_]*(?:{_NAME})*")
# `name.py` in backticks: a file the page names by itself
BARE_FILE = re.compile(r"`([A-Za-z0-9_./-]+\.py)`")


def _page_ids() -> list[str]:
    return [p.relative_to(REPO).as_posix() for p in PAGES]


def _files_named(name: str) -> list[Path]:
    return [p for p in REPO.rglob(name) if ".venv" not in p.parts and "site" not in p.parts]


@pytest.mark.parametrize("page", PAGES, ids=_page_ids())
def test_every_file_path_a_page_names_exists(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    missing = sorted({p for p in FILE_PATH.findall(text) if not (REPO / p).is_file()})
    assert not missing, f"{page.relative_to(REPO)} names files that do not exist: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=_page_ids())
def test_every_private_module_path_a_page_names_resolves(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    broken = sorted({d for d in PRIVATE_DOTTED.findall(text) if not _resolves(d)})
    assert not broken, f"{page.relative_to(REPO)} names code that does not exist: {broken}"


def _resolves(dotted: str) -> bool:
    """An importable module, then attributes down the rest of the path."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


@pytest.mark.parametrize("page", PAGES, ids=_page_ids())
def test_every_file_a_page_names_by_itself_exists_somewhere(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    names = {m for m in BARE_FILE.findall(text) if "<" not in m and _inside_repository(m)}
    missing = sorted(n for n in names if not (REPO / n).exists() and not _files_named(Path(n).name))
    assert not missing, f"{page.relative_to(REPO)} names files that exist nowhere : {missing}"


def _inside_repository(name: str) -> bool:
    """A bare name, or a path whose first folder is one of the repository's (not another package's file)."""
    first = name.split("/")[0]
    return "/" not in name or (REPO / first).is_dir()


def _packages() -> list[str]:
    return sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))


def _architecture_layer_table() -> str:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert rows, "docs/architecture.md has lost its layer table"
    return "\n".join(rows)


@pytest.mark.parametrize("package", _packages())
def test_every_package_has_its_place_in_the_architecture_table(package: str) -> None:
    assert f"`{package}/`" in _architecture_layer_table(), (
        f"trustscore/{package}/ is missing from docs/architecture.md's layer table: add it to its layer's row"
    )


def test_every_module_at_the_package_root_has_its_place_in_the_architecture_table() -> None:
    table = _architecture_layer_table()
    modules = sorted(p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py")
    missing = [m for m in modules if f"`{m}`" not in table]
    assert not missing, f"docs/architecture.md's layer table does not name {missing}"


def test_every_package_the_architecture_table_names_exists() -> None:
    named = set(re.findall(r"`([a-z_]+)/`", _architecture_layer_table()))
    missing = sorted(n for n in named if not (PACKAGE / n / "__init__.py").is_file())
    assert not missing, f"docs/architecture.md names packages that do not exist: {missing}"


def test_registered_signals_is_complete_in_a_fresh_interpreter() -> None:
    """Whoever asks first, from whichever door, sees every built-in signal."""
    code = (
        "from trustscore.signals import registered_signals as r; import json; print(json.dumps(sorted(r())))"
    )
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    from trustscore import registered_signals

    assert fresh.stdout.strip() == str(sorted(registered_signals())).replace("'", '"')


BENCHMARKS = REPO / "benchmarks"
BENCHMARK_MODULE = re.compile(r"\bbenchmarks(?:\.[a-z_][a-z0-9_]*)+")


def _benchmark_modules() -> list[str]:
    return sorted(
        ".".join(p.relative_to(REPO).with_suffix("").parts)
        for p in BENCHMARKS.glob("*/*.py")
        if p.name != "__init__.py"
    )


def test_every_benchmark_sits_in_a_group_and_the_benchmarks_readme_lists_it() -> None:
    loose = sorted(p.name for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_"))
    assert not loose, f"benchmarks/ holds groups only (quality, judges, speed, service): move {loose}"
    table = (BENCHMARKS / "README.md").read_text(encoding="utf-8")
    missing = [m for m in _benchmark_modules() if f"`{m}`" not in table]
    assert not missing, f"benchmarks/README.md's tables do not list {missing}"


@pytest.mark.parametrize(
    "page", [*PAGES, BENCHMARKS / "README.md"], ids=[*_page_ids(), "benchmarks/README.md"]
)
def test_every_benchmark_command_a_page_names_exists(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    named = {m for m in BENCHMARK_MODULE.findall(text) if m.count(".") >= 2}
    missing = sorted(m for m in named if not _benchmark_exists(m))
    assert not missing, f"{page.relative_to(REPO)} names benchmark modules that do not exist: {missing}"


def _benchmark_exists(dotted: str) -> bool:
    """A benchmark module, or a name defined at the top of one (``benchmarks.quality.multidomain.fit``)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 2, -1):
        path = REPO.joinpath(*parts[:cut]).with_suffix(".py")
        if path.is_file():
            rest = parts[cut:]
            return (
                not rest
                or re.search(rf"^(def|class) {rest[0]}\b|^{rest[0]}\b.*=", path.read_text(), re.M) is not None
            )
    return False
