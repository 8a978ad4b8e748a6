"""Fast CPU grounding signals: embedding similarity to the context and lexical support.

Nothing heavy is imported here: torch and transformers load when an embedder is first built.
"""

from trustscore.grounding.config import GroundingConfig
from trustscore.grounding.embedder import Embedder, EmbedderError, bundled_model_path, load_embedder
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
