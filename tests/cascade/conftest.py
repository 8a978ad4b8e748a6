"""A cascade fitted once for the package's tests (fitting one takes seconds)."""

from __future__ import annotations

import pytest

from cascade.rows import STAGES, cascade_rows
from trustscore.fitting._cascade import StagePlan, fit_cascade
from trustscore.fusion._cascade_model import CascadeModel, CascadeQuality


@pytest.fixture(scope="session")
def fitted() -> CascadeModel:
    plans = [StagePlan(name, signals) for name, signals in STAGES]
    return fit_cascade(
        cascade_rows(), plans, label="hallucinated", quality=CascadeQuality(metric="auroc", max_loss=0.01)
    )
