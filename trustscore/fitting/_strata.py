"""Extra design columns used only while fitting, dropped from the model: an intercept per data set, and
the value features again on the rows of data sets that get weights of their own."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from trustscore.fusion._features import FeatureSpec

__all__ = ["strata_columns", "values_apart"]


def strata_columns(strata: Sequence[str] | None, n: int) -> NDArray[np.float64]:
    """One 0/1 column per distinct value of ``strata`` (none for no strata or a single value)."""
    values = sorted(set(strata or ()))
    if strata is None or len(values) < 2:
        return np.zeros((n, 0))
    return np.column_stack([np.array([s == v for s in strata], dtype=np.float64) for v in values])


def values_apart(
    design: NDArray[np.float64],
    specs: Sequence[FeatureSpec],
    strata: Sequence[str] | None,
    apart: Sequence[str],
) -> NDArray[np.float64]:
    """The value features' columns again, zero outside the rows of the ``apart`` strata: their own
    weights there (``FitOptions.values_without``); none without such rows."""
    rows = np.array([s in apart for s in strata or ()], dtype=bool)
    columns = [j for j, spec in enumerate(specs) if spec.field == "value"]
    if not apart or not rows.any() or not columns:
        return np.zeros((design.shape[0], 0))
    return design[:, columns] * rows[:, None]
