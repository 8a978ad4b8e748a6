"""Reading and writing fitted fusion models as JSON files, and choosing the Scorer's Fuser."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from trustscore._errors import CalibratorMismatchError
from trustscore.core._files import MAX_JSON_BYTES, read_capped_text
from trustscore.core._fitted_output import write_fitted_file
from trustscore.fusion._config import FusionConfig
from trustscore.fusion._fuser import DefaultFuser, Fuser
from trustscore.fusion._model import CalibratorError, FusionModel

__all__ = ["load_fuser", "load_model", "save_model"]


def save_model(model: FusionModel, path: str | Path) -> Path:
    """Write the model as JSON (creating the folder); returns the path written. Only a new path or an
    earlier calibrator is written: anything else there raises ``CalibratorError``."""
    return write_fitted_file(Path(path), model.to_json(), "calibrator", error=CalibratorError)


def load_model(path: str | Path, *, signal_versions: Mapping[str, str | None] | None = None) -> FusionModel:
    """Read, validate and hash-check a calibrator file.

    With ``signal_versions`` (signal name -> the version the running signals produce) a version
    mismatch, or a signal the model reads that is not running at all, is refused here, at load
    time: a never-present signal would otherwise be imputed on every row under calibrated=True.
    """
    path = Path(path)
    if not path.exists() and not path.is_symlink():  # a symlink loop "does not exist" either
        raise CalibratorError(
            f"calibrator file {path} does not exist; fit one with `trustscore calibrate` or unset "
            "fusion.calibrator"
        )
    text = read_capped_text(path, what="calibrator file", limit=MAX_JSON_BYTES, error=CalibratorError)
    model = FusionModel.from_json(text, source=f"calibrator file {path}")
    if signal_versions is not None:
        model.check_versions(signal_versions)
        not_running = sorted(set(model.signal_versions) - set(signal_versions))
        if not_running:
            raise CalibratorMismatchError(
                f"calibrator file {path} reads signal(s) {not_running} that this scorer does not run "
                f"(it runs {sorted(signal_versions)}): enable them in the config, or fit a calibrator on "
                "the signals you run (trustscore calibrate)"
            )
    return model


def load_fuser(config: FusionConfig, *, signal_versions: Mapping[str, str | None] | None = None) -> Fuser:
    """The fitted model named by ``config.calibrator``, or :class:`DefaultFuser` when none is set."""
    if config.calibrator is None:
        return DefaultFuser()
    return load_model(config.calibrator, signal_versions=signal_versions)
