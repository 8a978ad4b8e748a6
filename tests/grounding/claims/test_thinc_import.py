"""spaCy is imported without its CLI, and without thinc importing torch (with torch when torch is
already imported): each case in a fresh interpreter (what a process has imported cannot be undone)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

pytest.importorskip("spacy", reason="the claims check needs trustscore[claims]")
needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None, reason="only an environment with torch installed has the cost"
)


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip()


def test_spacy_imports_without_its_cli_and_the_cli_imports_afterwards() -> None:
    out = _run(
        "import sys\n"
        "from trustscore.grounding.claims._thinc_import import import_spacy\n"
        "spacy = import_spacy()\n"
        "cli = ('spacy.cli', 'spacy.cli.info', 'typer', 'weasel', 'click', 'requests')\n"
        "print(sorted(m for m in cli if m in sys.modules), hasattr(spacy, 'cli'))\n"
        "print(isinstance(spacy.info(silent=True), dict))\n"
        "import spacy.cli\n"
        "print(hasattr(spacy.cli, 'app'), spacy.cli.__file__.endswith('__init__.py'))\n"
    )
    assert out.splitlines() == ["[] False", "True", "True True"]


def test_only_spacy_itself_gets_the_cli_stand_in() -> None:
    from trustscore.grounding.claims._thinc_import import _SpacyImportFinder

    finder = _SpacyImportFinder(keep_torch_out=False)
    assert finder.find_spec("spacy.cli") is None
    assert finder.find_spec("spacy.cli.info") is None
    as_spacy = {"__name__": "spacy", "finder": finder}
    package = eval('finder.find_spec("spacy.cli")', as_spacy)
    info = eval('finder.find_spec("spacy.cli.info")', as_spacy)
    assert (package.name, package.submodule_search_locations) == ("spacy.cli", [])
    assert (info.name, info.submodule_search_locations) == ("spacy.cli.info", None)
    assert eval('finder.find_spec("spacy.cli.download")', as_spacy) is None


@needs_torch
def test_spacy_loads_without_torch_and_torch_still_imports_afterwards() -> None:
    out = _run(
        "import sys\n"
        "from trustscore.grounding.claims._thinc_import import import_spacy\n"
        "import_spacy()\n"
        "import thinc.compat\n"
        "print('torch' in sys.modules, thinc.compat.has_torch)\n"
        "import torch\n"
        "print(torch.tensor([1.0]).sum().item())\n"
    )
    assert out.splitlines() == ["False False", "1.0"]


@needs_torch
def test_a_torch_imported_before_is_left_to_thinc() -> None:
    out = _run(
        "import torch\n"
        "from trustscore.grounding.claims._thinc_import import import_spacy\n"
        "import_spacy()\n"
        "import thinc.compat\n"
        "print(thinc.compat.has_torch)\n"
    )
    assert out == "True"


@needs_torch
def test_only_thinc_is_kept_from_torch_while_spacy_imports() -> None:
    out = _run(
        "import sys, threading\n"
        "from trustscore.grounding.claims import _thinc_import as ti\n"
        "sys.meta_path.insert(0, ti._SpacyImportFinder(keep_torch_out=True))\n"
        "try:\n"
        "    exec('import torch', {'__name__': 'thinc.compat'})\n"
        "except ModuleNotFoundError:\n"
        "    print('thinc: refused')\n"
        "exec('import torch', {'__name__': 'some.signal'})\n"
        "print('other:', 'torch' in sys.modules)\n"
    )
    assert out.splitlines() == ["thinc: refused", "other: True"]
