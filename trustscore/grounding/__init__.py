"""Fast CPU grounding signals: embedding similarity to the context and lexical support.

Only the config loads eagerly (``trustscore.config`` needs it); the signals, and numpy with them,
load on first access so ``import trustscore`` stays light. torch and transformers load when an
embedder is first built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trustscore.core.lazy import lazy_exports
from trustscore.grounding.config import EmbeddingConfig, LexicalConfig

if TYPE_CHECKING:
    from trustscore.errors import EmbedderError
    from trustscore.grounding.embedder import Embedder, bundled_model_path, load_embedder
    from trustscore.grounding.embedding import EmbeddingGrounding
    from trustscore.grounding.lexical import LexicalSupport

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
    "Embedder": "trustscore.grounding.embedder",
    "EmbedderError": "trustscore.grounding.embedder",
    "bundled_model_path": "trustscore.grounding.embedder",
    "load_embedder": "trustscore.grounding.embedder",
    "EmbeddingGrounding": "trustscore.grounding.embedding",
    "LexicalSupport": "trustscore.grounding.lexical",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME)
