"""Batch scoring on Ray Data (the ``[ray]`` extra): ``score_dataset`` and ``trustscore score --ray``.

    import ray, trustscore.ray
    scored = trustscore.ray.score_dataset(ray.data.read_parquet("logs/"), "trustscore.toml", actors=8)

``import trustscore`` never imports this package; importing it does not import Ray either until a
name below is used (``trustscore score`` registers its ``--ray`` flags from here).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trustscore.ray.dataset import score_dataset

__all__ = ["score_dataset"]


def __getattr__(name: str) -> Any:
    if name != "score_dataset":
        raise AttributeError(f"module 'trustscore.ray' has no attribute {name!r}")
    value = importlib.import_module("trustscore.ray.dataset").score_dataset
    globals()[name] = value
    return value
