"""Calibrators shipped inside the package, chosen automatically by the signals a Scorer runs.

A shipped calibrator applies when no ``fusion.calibrator`` is configured and the Scorer's
*available* signals are exactly the ones the calibrator was fitted on, each with the same
``version``. Any other signal set (judges added, a signal unavailable, a changed signal method)
keeps the uncalibrated default (log-odds) fusion, so a calibrator is never applied to scores it
was not fitted on. A local signal whose extra is not installed (claims without the ``claims`` extra)
counts as not configured here: the shipped calibrator of the signals that do run applies.

``local_multidomain.json``: lexical + embedding grounding fitted on 1,200 responses from six public
sets (RAGTruth QA / Summary / Data2txt, FRANK, XSumFaith, FactCC). It ranks, and never claims
calibrated: its results carry ``not_calibrated_reason`` (the user's base rate is unknown; a few labeled
rows fix it, ``trustscore calibrate LABELED.jsonl --adapt``). How it was fitted, its calibration domain,
and how well it does on domains it never saw: ``calibration/README.md`` and ``docs/calibration.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources

from trustscore.fusion._model import FusionModel

__all__ = ["shipped_calibrator", "shipped_calibrators"]


def shipped_calibrators() -> list[FusionModel]:
    """Every calibrator shipped in this package, validated (a corrupt file raises CalibratorError)."""
    folder = resources.files(__name__)
    return [
        FusionModel.from_json(entry.read_text(encoding="utf-8"), source=f"shipped calibrator {entry.name}")
        for entry in sorted(folder.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".json")
    ]


def shipped_calibrator(signal_versions: Mapping[str, str | None]) -> FusionModel | None:
    """The shipped calibrator fitted on exactly these signals at these versions, if there is one.

    ``signal_versions`` maps each available signal's name to its ``version``; a signal without a
    version never matches (nothing proves it computes what the calibrator was fitted on).
    """
    for model in shipped_calibrators():
        if set(model.signal_versions) != set(signal_versions):
            continue
        if all(
            signal_versions[name] is not None and signal_versions[name] == expected
            for name, expected in model.signal_versions.items()
        ):
            return model
    return None
