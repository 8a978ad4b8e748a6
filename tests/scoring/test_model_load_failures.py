"""A local signal whose model does not load is missing with the reason and leaves its sample
incomplete, so a rerun (``--retry-incomplete``) scores it again once the model loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trustscore import Config, Sample
from trustscore.grounding import LexicalSupport
from trustscore.scoring._scorer import Scorer

pytestmark = pytest.mark.anyio
pytest.importorskip("transformers", reason="local models need trustscore[whitebox]")

SAMPLE = Sample(
    question="Which river did the settlers cross?",
    context=["In 1847 the settlers crossed the Quellen river to Brindale."],
    response="They crossed the Quellen river.",
)


@pytest.fixture
def unloadable_model(tmp_path: Path) -> Path:
    """A folder that looks like a model (config.json) but holds no weights."""
    from trustscore.testing._tiny import save_tiny_model

    folder = save_tiny_model(tmp_path / "model")
    for weights in folder.glob("*.safetensors"):
        weights.unlink()
    return folder


def _familiarity(path: Path) -> Scorer:
    from trustscore.whitebox._familiarity import FamiliaritySignal
    from trustscore.whitebox._familiarity_config import FamiliarityConfig

    signal = FamiliaritySignal.from_config(FamiliarityConfig(model_path=path, explanation_max_tokens=4), None)
    return Scorer(Config(), judges=[], local_signals=[LexicalSupport(), signal])


async def test_a_whitebox_model_that_does_not_load_leaves_the_sample_incomplete(
    unloadable_model: Path, tmp_path: Path
) -> None:
    from trustscore.whitebox import _model as whitebox_model

    result = await _familiarity(unloadable_model).score_sample(SAMPLE)
    familiarity = result.signals["familiarity"]
    assert familiarity.missing and "WhiteboxLoadError" in (familiarity.error or "")
    assert str(unloadable_model) in (familiarity.error or "")
    assert not result.complete and result.incomplete_signals == ["familiarity"]
    assert result.signals["lexical"].value is not None

    # The failure is not remembered: once the weights are there, the rerun is complete.
    from trustscore.testing._tiny import save_tiny_model

    save_tiny_model(unloadable_model)
    again = await _familiarity(unloadable_model).score_sample(SAMPLE)
    assert again.complete and again.signals["familiarity"].value is not None
    whitebox_model._registry.pop(whitebox_model.model_key(unloadable_model), None)


async def test_an_embedding_model_that_does_not_load_leaves_the_sample_incomplete(tmp_path: Path) -> None:
    from trustscore.grounding import EmbeddingConfig, EmbeddingGrounding

    folder = tmp_path / "embedder"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "bert"}), encoding="utf-8")
    (folder / "model.safetensors").write_bytes(b"not weights")
    embedding = EmbeddingGrounding(EmbeddingConfig(model=folder))
    result = await Scorer(Config(), judges=[], local_signals=[embedding]).score_sample(SAMPLE)
    signal = result.signals["embedding"]
    assert signal.missing and "embedding model unavailable" in (signal.error or "")
    assert not result.complete and result.incomplete_signals == ["embedding"]
    # Called directly (outside a Scorer), the signal still answers missing rather than raising.
    assert embedding.score(SAMPLE).missing


async def test_a_whitebox_signal_missing_for_its_config_leaves_the_sample_complete() -> None:
    """A reason no rerun fixes (ReDeEP without a fitted profile) is missing, not incomplete."""
    from trustscore.whitebox._redeep import NO_PROFILE, RedeepSignal

    redeep = RedeepSignal(model_path="/nonexistent", profile=None)
    result = await Scorer(Config(), judges=[], local_signals=[redeep]).score_sample(SAMPLE)
    assert result.signals["redeep"].error == NO_PROFILE
    assert result.complete
