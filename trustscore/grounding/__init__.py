"""Fast CPU grounding signals: embedding similarity to the context and lexical support.

Only the config loads eagerly (``trustscore._config`` needs it); the signals, and numpy with them,
load on first access so ``import trustscore`` stays light. torch and transformers load when an
embedder is first built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trustscore.core._lazy import lazy_exports
from trustscore.grounding._config import EmbeddingConfig, LexicalConfig

if TYPE_CHECKING:
    from trustscore._errors import EmbedderError
    from trustscore.grounding._embedding import EmbeddingGrounding
    from trustscore.grounding._lexical import LexicalSupport
    from trustscore.textmodels._embedder import Embedder, bundled_model_path, load_embedder

__all__ = [
    "Embedder",
    "EmbedderError",
    "EmbeddingConfig",
    "EmbeddingGrounding",
    "LexicalConfig",
    "LexicalSupport",
    "bundled_model_path",
    "load_embedder",
]

_HOME = {
    "Embedder": "trustscore.textmodels._embedder",
    "EmbedderError": "trustscore._errors",
    "bundled_model_path": "trustscore.textmodels._embedder",
    "load_embedder": "trustscore.textmodels._embedder",
    "EmbeddingGrounding": "trustscore.grounding._embedding",
    "LexicalSupport": "trustscore.grounding._lexical",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME)
