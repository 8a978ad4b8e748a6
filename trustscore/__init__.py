"""trustscore: how far can you trust an LLM's answer?

The names in ``__all__`` are the promised public surface (tests/test_public_api.py holds it);
everything else lives in documented subpackages (``trustscore.llm``, ``trustscore.judges``,
``trustscore.fusion``, ``trustscore.testing``) or is an implementation detail.
Names that need httpx or numpy load on first access, so ``import trustscore`` stays light.
"""

from typing import TYPE_CHECKING

from trustscore._config import Config
from trustscore._errors import (
    CalibratorError,
    ConfigError,
    DegradedScoreError,
    EndpointUnavailable,
    InputError,
    LLMError,
    ModelLoadError,
    ProfileError,
    TrustscoreError,
)
from trustscore._types import Sample, Signal, Span, TrustScore, Usage
from trustscore._version import __version__
from trustscore.core._lazy import lazy_exports
from trustscore.llm._protocol import LLM
from trustscore.scoring._default import configure, score, score_sync
from trustscore.scoring._scorer import Scorer
from trustscore.signals import (
    FamiliarityCheck,
    Judge,
    JudgeConfig,
    LocalSignal,
    SignalConfig,
    SignalContext,
    SignalSpec,
    register_judge,
    register_signal,
    registered_signals,
)

if TYPE_CHECKING:
    from trustscore.fusion._fuser import DefaultFuser, FusedScore, Fuser
    from trustscore.llm._client import LLMClient, from_openai
    from trustscore.rows._input import read_jsonl

__all__ = [
    "LLM",
    "CalibratorError",
    "Config",
    "ConfigError",
    "DefaultFuser",
    "DegradedScoreError",
    "EndpointUnavailable",
    "FamiliarityCheck",
    "FusedScore",
    "Fuser",
    "InputError",
    "Judge",
    "JudgeConfig",
    "LLMClient",
    "LLMError",
    "LocalSignal",
    "ModelLoadError",
    "ProfileError",
    "Sample",
    "Scorer",
    "Signal",
    "SignalConfig",
    "SignalContext",
    "SignalSpec",
    "Span",
    "TrustScore",
    "TrustscoreError",
    "Usage",
    "__version__",
    "configure",
    "from_openai",
    "read_jsonl",
    "register_judge",
    "register_signal",
    "registered_signals",
    "score",
    "score_sync",
]

_LAZY = {
    "DefaultFuser": "trustscore.fusion._fuser",
    "FusedScore": "trustscore.fusion._fuser",
    "Fuser": "trustscore.fusion._fuser",
    "LLMClient": "trustscore.llm._client",
    "from_openai": "trustscore.llm._client",
    "read_jsonl": "trustscore.rows._input",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
