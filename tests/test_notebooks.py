"""The calibration notebooks run end to end on small generated data (no ../shared/data needed)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

CALIBRATION = Path(__file__).resolve().parent.parent / "calibration"
NOTEBOOKS = sorted(CALIBRATION.glob("*.ipynb"))
KERNEL = "trustscore-tests"


@pytest.fixture
def kernel_of_this_interpreter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A kernel spec running this very interpreter (the project's .venv), found via JUPYTER_PATH."""
    spec = tmp_path / "jupyter" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "trustscore tests", "language": "python"}), encoding="utf-8"
    )
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("TRUSTSCORE_NOTEBOOK_SMALL", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    return KERNEL


def test_both_notebooks_are_there() -> None:
    assert {p.name for p in NOTEBOOKS} == {"ragtruth_local_fusion.ipynb", "judge_ensemble.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_committed_without_outputs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, "a notebook without code"
    cleared = all(not c.outputs and c.execution_count is None for c in code)
    assert cleared, "clear the outputs before committing"


@pytest.mark.slow  # about a minute each; CI runs it as its own command (see .ci/run)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_on_small_data(path: Path, kernel_of_this_interpreter: str) -> None:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        kernel_name=kernel_of_this_interpreter,
        timeout=120,
        resources={"metadata": {"path": str(CALIBRATION)}},
    )
    client.execute()
    text = "\n".join(
        str(out.get("text", "")) + str(out.get("data", {}).get("text/plain", ""))
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.outputs
    )
    assert "small generated data" in text
    assert "calibrated=True" in text
    if path.stem == "ragtruth_local_fusion":
        auroc = float(text.split("held-out AUROC pooled: ")[1].split()[0])
        assert auroc < 0.99, "the generated data must be hard enough to show a real ranking"
        assert "rows per bin" in text or "rows 1" in text or "  rows " in text
        assert "calibrated=False" in text and "outside:" in text, "a 40x longer answer is outside the domain"
        assert "shifted, +50% hallucinated: base ECE" in text and "16 labels" in text, "the per-domain curve"
        assert "calibrator:mine@" in text and "claims calibrated: " in text, "one-command --adapt"
