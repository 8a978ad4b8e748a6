"""Offline fitting, above the runtime signal families and fusion: calibrators (:func:`fit_calibrator`,
:func:`adapt_model`), the cascade, evaluation reports, plots and claims; a white-box signal's ReDeEP
profile (:mod:`trustscore.fitting._redeep`) and the LettuceDetect-style detector
(:mod:`trustscore.fitting._detector`). What they fit is read back at run time through the fitted-model
formats (:mod:`trustscore.fusion`, :mod:`trustscore.whitebox._profile`). Scored result files are read
with :func:`read_scored`.

Names are imported lazily so that importing the package stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trustscore.core._lazy import lazy_exports

if TYPE_CHECKING:
    from trustscore.fitting._adapt import adapt_model
    from trustscore.fitting._calibrator import FitOptions, FitReport, fit_calibrator
    from trustscore.rows._scored import read_scored

__all__ = ["FitOptions", "FitReport", "adapt_model", "fit_calibrator", "read_scored"]

_HOMES = {
    "adapt_model": "trustscore.fitting._adapt",
    "FitOptions": "trustscore.fitting._calibrator",
    "FitReport": "trustscore.fitting._calibrator",
    "fit_calibrator": "trustscore.fitting._calibrator",
    "read_scored": "trustscore.rows._scored",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
