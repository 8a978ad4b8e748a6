"""Errors of the fusion package: bad calibrator files and signals that do not fit a calibrator."""

from __future__ import annotations

from trustscore.errors import CalibratorError

__all__ = ["CalibratorError", "CalibratorMismatchError", "FeatureError"]


class CalibratorMismatchError(CalibratorError):
    """The signals offered do not match those the calibrator was fitted on (versions or features)."""


class FeatureError(CalibratorMismatchError):
    """A signal does not carry a feature the fused model needs (e.g. its ``raw`` changed shape)."""
