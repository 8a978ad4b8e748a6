"""trustscore: how far can you trust an LLM's answer?"""

from trustscore.config import Config, ConfigError
from trustscore.scorer import Scorer, score
from trustscore.sync import score_sync
from trustscore.types import Sample, Signal, Span, TrustScore, Usage

__version__ = "0.1.0"

__all__ = [
    "Config",
    "ConfigError",
    "Sample",
    "Scorer",
    "Signal",
    "Span",
    "TrustScore",
    "Usage",
    "__version__",
    "score",
    "score_sync",
]
