"""spaCy is imported without thinc importing torch, and with torch when torch is already imported: each
case in a fresh interpreter (what a process has imported cannot be undone)."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("spacy", reason="the claims check needs trustscore[claims]")
pytest.importorskip("torch", reason="only an environment with torch installed has the cost")


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip()


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


def test_a_torch_imported_before_is_left_to_thinc() -> None:
    out = _run(
        "import torch\n"
        "from trustscore.grounding.claims._thinc_import import import_spacy\n"
        "import_spacy()\n"
        "import thinc.compat\n"
        "print(thinc.compat.has_torch)\n"
    )
    assert out == "True"


def test_only_thinc_is_kept_from_torch_while_spacy_imports() -> None:
    out = _run(
        "import sys, threading\n"
        "from trustscore.grounding.claims import _thinc_import as ti\n"
        "blocker = ti._TorchFromThincBlocker()\n"
        "sys.meta_path.insert(0, blocker)\n"
        "try:\n"
        "    exec('import torch', {'__name__': 'thinc.compat'})\n"
        "except ModuleNotFoundError:\n"
        "    print('thinc: refused')\n"
        "exec('import torch', {'__name__': 'some.signal'})\n"
        "print('other:', 'torch' in sys.modules)\n"
    )
    assert out.splitlines() == ["thinc: refused", "other: True"]
