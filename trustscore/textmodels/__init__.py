"""The text models more than one signal family reads, below the families so none imports another:
the sentence embedder (its ONNX and torch runtimes, its lane and the bundled int8 MiniLM files) and
the English word-frequency table. The embedding and lexical signals, the white-box concept filter and
ReDeEP's chunking all load them from here.

Nothing heavy loads on import: the embedder's runtimes and numpy load when one is first built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trustscore.core._lazy import lazy_exports

if TYPE_CHECKING:
    from trustscore.textmodels._embedder import Embedder, bundled_model_path, load_embedder
    from trustscore.textmodels._word_frequency import rank, zipf_frequency

__all__ = ["Embedder", "bundled_model_path", "load_embedder", "rank", "zipf_frequency"]

_HOME = {
    "Embedder": "trustscore.textmodels._embedder",
    "bundled_model_path": "trustscore.textmodels._embedder",
    "load_embedder": "trustscore.textmodels._embedder",
    "rank": "trustscore.textmodels._word_frequency",
    "zipf_frequency": "trustscore.textmodels._word_frequency",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME)
