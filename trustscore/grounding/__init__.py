"""Fast CPU grounding signals: embedding similarity to the context and lexical support.

Only the config loads eagerly (``trustscore.config`` needs it); the signals, and numpy with them,
load on first access so ``import trustscore`` stays light. torch and transformers load when an
embedder is first built.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from trustscore.grounding.config import GroundingConfig

if TYPE_CHECKING:
    from trustscore.errors import EmbedderError
    from trustscore.grounding.embedder import Embedder, bundled_model_path, load_embedder
    from trustscore.grounding.embedding import EmbeddingGrounding
    from trustscore.grounding.features import FEATURE_NAMES, GroundingFeatures, features, features_many
    from trustscore.grounding.lexical import LexicalSupport

__all__ = [
    "FEATURE_NAMES",
    "Embedder",
    "EmbedderError",
    "EmbeddingGrounding",
    "GroundingConfig",
    "GroundingFeatures",
    "LexicalSupport",
    "bundled_model_path",
    "features",
    "features_many",
    "load_embedder",
]

_HOME = {
    "Embedder": "embedder",
    "EmbedderError": "embedder",
    "bundled_model_path": "embedder",
    "load_embedder": "embedder",
    "EmbeddingGrounding": "embedding",
    "FEATURE_NAMES": "features",
    "GroundingFeatures": "features",
    "features": "features",
    "features_many": "features",
    "LexicalSupport": "lexical",
}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(import_module(f"trustscore.grounding.{_HOME[name]}"), name)
    raise AttributeError(f"module 'trustscore.grounding' has no attribute {name!r}")
