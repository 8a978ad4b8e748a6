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
    from trustscore.grounding._embedder import Embedder, bundled_model_path, load_embedder
    from trustscore.grounding._embedding import EmbeddingGrounding
    from trustscore.grounding._lexical import LexicalSupport

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
    "Embedder": "trustscore.grounding._embedder",
    "EmbedderError": "trustscore.grounding._embedder",
    "bundled_model_path": "trustscore.grounding._embedder",
    "load_embedder": "trustscore.grounding._embedder",
    "EmbeddingGrounding": "trustscore.grounding._embedding",
    "LexicalSupport": "trustscore.grounding._lexical",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME)
