"""Batch scoring on Ray Data (the ``[ray]`` extra): ``score_dataset`` and ``trustscore score --ray``.

    import ray, trustscore.ray
    scored = trustscore.ray.score_dataset(ray.data.read_parquet("logs/"), "trustscore.toml", actors=8)

``import trustscore`` never imports this package; importing it does not import Ray either until a
name below is used (``trustscore score`` registers its ``--ray`` flags from here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trustscore.core._lazy import lazy_exports

if TYPE_CHECKING:
    from trustscore.ray._dataset import score_dataset

__all__ = ["score_dataset"]

__getattr__, __dir__ = lazy_exports(__name__, {"score_dataset": "trustscore.ray._dataset"})
