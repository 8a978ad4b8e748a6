"""Score fusion: calibrators and the fitted fusion model (numpy only; statistics: :mod:`trustscore.stats`).

Names are imported lazily so that ``import trustscore`` (which reads :mod:`.config`) stays light.
"""

from __future__ import annotations

from trustscore.core.lazy import lazy_exports

__all__ = [
    "CalibrationDomain",
    "CalibratorError",
    "CalibratorMismatchError",
    "FeatureError",
    "FitOptions",
    "FitReport",
    "FusionModel",
    "adapt_model",
    "fit_calibrator",
    "load_fuser",
    "load_model",
    "read_scored",
    "save_model",
]

_HOMES = {
    "CalibrationDomain": "trustscore.fusion.domain",
    "adapt_model": "trustscore.fusion.adapt",
    "CalibratorError": "trustscore.errors",
    "CalibratorMismatchError": "trustscore.errors",
    "FeatureError": "trustscore.errors",
    "FusionModel": "trustscore.fusion.model",
    "FitOptions": "trustscore.fusion.fit",
    "FitReport": "trustscore.fusion.fit",
    "fit_calibrator": "trustscore.fusion.fit",
    "load_fuser": "trustscore.fusion.store",
    "load_model": "trustscore.fusion.store",
    "save_model": "trustscore.fusion.store",
    "read_scored": "trustscore.fusion.scored",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
