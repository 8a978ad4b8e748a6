"""Score fusion at run time: the default pool, fitted calibrators and the fitted fusion model's format
(numpy only; statistics: :mod:`trustscore.stats`). Fitting a calibrator is :mod:`trustscore.fitting`.

Names are imported lazily so that ``import trustscore`` (which reads :mod:`.config`) stays light.
"""

from __future__ import annotations

from trustscore.core._lazy import lazy_exports

__all__ = [
    "CalibrationDomain",
    "CalibratorError",
    "CalibratorMismatchError",
    "FeatureError",
    "FusionModel",
    "load_fuser",
    "load_model",
    "save_model",
]

_HOMES = {
    "CalibrationDomain": "trustscore.fusion._domain",
    "CalibratorError": "trustscore._errors",
    "CalibratorMismatchError": "trustscore._errors",
    "FeatureError": "trustscore._errors",
    "FusionModel": "trustscore.fusion._model",
    "load_fuser": "trustscore.fusion._store",
    "load_model": "trustscore.fusion._store",
    "save_model": "trustscore.fusion._store",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
