"""The fitted cascade as a file: each stage's calibrator and band, what they cost and how well they rank.

Stage ``k``'s calibrator is a :class:`~trustscore.fusion._model.FusionModel` over the signals of
stages ``0..k``: a sample that stops after stage ``k`` gets that calibrator's score. Stage ``k >= 1``
runs when the score after stage ``k - 1`` lies inside its ``band`` (or on every sample that got that
far when the stage is ``always``). The file is JSON, validated on load, guarded by a SHA-256 of its
own content like a calibrator file, and refused when its stages, signals or signal versions differ
from those configured.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from trustscore._errors import CalibratorError, CalibratorMismatchError
from trustscore.core._files import MAX_JSON_BYTES, read_capped_text
from trustscore.core._fitted_output import write_fitted_file
from trustscore.core._hashing import canonical_json, sha256_hex
from trustscore.fusion._cascade_config import CascadeConfig
from trustscore.fusion._model import FusionModel, LabelPolarity
from trustscore.fusion._sealed import build_sealed, check_seal, read_sealed

__all__ = [
    "CascadeEstimate",
    "CascadeModel",
    "CascadeQuality",
    "CascadeStage",
    "SignalCost",
    "load_cascade",
    "save_cascade",
]

CostUnit = Literal["requests", "tokens"]
QualityMetric = Literal["auroc", "accuracy"]


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class SignalCost(_Strict):
    """One signal's mean cost per sample in the fitting rows (a cached answer counts as a request)."""

    requests: float = Field(ge=0)
    prompt_tokens: float = Field(ge=0)
    completion_tokens: float = Field(ge=0)

    @property
    def tokens(self) -> float:
        return self.prompt_tokens + self.completion_tokens


class CascadeQuality(_Strict):
    """The quality the bands were held to: ``metric`` of the cascade at most ``max_loss`` below the full
    ensemble's (accuracy is taken at ``threshold`` on P(trustworthy))."""

    metric: QualityMetric
    max_loss: float = Field(ge=0, le=1)
    threshold: float | None = Field(default=None, gt=0, lt=1)

    @model_validator(mode="after")
    def _threshold(self) -> CascadeQuality:
        if (self.metric == "accuracy") != (self.threshold is not None):
            raise ValueError("accuracy is measured at a threshold; auroc takes none")
        return self


class CascadeEstimate(_Strict):
    """Per-sample means on a set of rows: cost, quality (``metric``), and where samples stopped."""

    rows: int = Field(ge=1)
    requests: float = Field(ge=0)
    tokens: float = Field(ge=0)
    metric: float
    stopped: list[float]
    """Share of the rows stopping at each stage."""


class CascadeStage(_Strict):
    name: str = Field(min_length=1)
    signals: list[str] = Field(min_length=1)
    always: bool = False
    band: tuple[float, float] | None = None
    """Runs when the score after the stage before lies in ``[low, high]``; None on the first stage and
    on ``always`` stages."""
    calibrator: FusionModel
    """Reads the signals of this stage and of every stage before it."""


class CascadeModel(_Strict):
    format_version: Literal[1] = 1
    kind: Literal["cascade"] = "cascade"
    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$")
    stages: list[CascadeStage] = Field(min_length=2)
    quality: CascadeQuality
    searched_loss: float = Field(ge=0, le=1)
    """The loss the bands were searched with on the fitting rows: the largest share of
    ``quality.max_loss`` whose held-out loss stayed within it."""
    cost: CostUnit
    """What the bands minimise: judge requests or tokens per sample."""
    signal_costs: dict[str, SignalCost]
    full: CascadeEstimate
    """The full ensemble (every stage on every row), out of fold."""
    fitted: CascadeEstimate
    """The cascade with these bands, on the out-of-fold scores the bands were chosen on."""
    held_out: CascadeEstimate
    """The cascade with bands chosen on the other folds, on each fold's rows: the honest estimate."""
    label: str
    label_means: LabelPolarity
    data_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    trustscore_version: str
    content_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")

    @model_validator(mode="after")
    def _consistent(self) -> CascadeModel:
        before: set[str] = set()
        for i, stage in enumerate(self.stages):
            before |= set(stage.signals)
            read = set(stage.calibrator.signal_versions)
            if not read <= before:
                raise ValueError(
                    f"stage {stage.name!r}'s calibrator reads {sorted(read - before)}, "
                    "which no stage up to it runs"
                )
            first_or_always = i == 0 or stage.always
            if first_or_always != (stage.band is None):
                raise ValueError(f"stage {stage.name!r}: a band on every stage but the first and always ones")
            if stage.band is not None and not 0.0 <= stage.band[0] <= stage.band[1] <= 1.0:
                raise ValueError(
                    f"stage {stage.name!r}: band {list(stage.band)} is not [low, high] within [0, 1]"
                )
        check_seal(self.content_sha256, self.compute_hash(self.model_dump(mode="json")))
        return self

    @staticmethod
    def compute_hash(data: Mapping[str, Any]) -> str:
        return sha256_hex(canonical_json({k: v for k, v in data.items() if k != "content_sha256"}))

    @classmethod
    def build(cls, **fields: Any) -> CascadeModel:
        """Construct from fields (no hash): the content hash is computed and checked here."""
        return build_sealed(cls, cls.compute_hash, fields)

    @property
    def version(self) -> str:
        return self.content_sha256[:12]

    def to_json(self) -> str:
        return self.model_dump_json(indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str, *, source: str = "cascade file") -> CascadeModel:
        return read_sealed(cls, text, source=source, kind="cascade")

    def check(self, config: CascadeConfig, signal_versions: Mapping[str, str | None], *, source: str) -> None:
        """Refuse a file fitted for other stages, or on signals this scorer does not run, or runs in
        another version (``signal_versions``: name -> the version the running signal produces)."""
        fitted = [(s.name, s.signals, s.always) for s in self.stages]
        configured = [
            (name, list(stage.signals), stage.always)
            for name, stage in zip(config.stage_names, config.stages, strict=True)
        ]
        if fitted != configured:
            raise CalibratorMismatchError(
                f"{source} was fitted for stages {_describe(fitted)} but [cascade] configures "
                f"{_describe(configured)}: refit it (trustscore calibrate --cascade) or restore those stages"
            )
        for stage in self.stages:
            not_running = sorted(set(stage.calibrator.signal_versions) - set(signal_versions))
            if not_running:
                raise CalibratorMismatchError(
                    f"{source}: stage {stage.name!r} reads signal(s) {not_running} that this scorer does not "
                    f"run (it runs {sorted(signal_versions)}); enable them or refit the cascade"
                )
            try:
                stage.calibrator.check_versions(signal_versions)
            except CalibratorMismatchError as e:
                raise CalibratorMismatchError(f"{source}, stage {stage.name!r}: {e}") from None


def _describe(stages: Sequence[tuple[str, list[str], bool]]) -> str:
    return "; ".join(
        f"{name}={'+'.join(signals)}{' (always)' if always else ''}" for name, signals, always in stages
    )


def save_cascade(model: CascadeModel, path: str | Path) -> Path:
    """Write the cascade as JSON (creating the folder); returns the path written. Only a new path or an
    earlier cascade is written: anything else there raises ``CalibratorError``."""
    return write_fitted_file(Path(path), model.to_json(), "cascade", error=CalibratorError)


def load_cascade(
    path: str | Path, config: CascadeConfig, signal_versions: Mapping[str, str | None]
) -> CascadeModel:
    """Read, validate and hash-check a fitted cascade, and check it against the configured stages and
    the running signals' versions."""
    path = Path(path)
    if not path.exists():
        raise CalibratorError(
            f"cascade file {path} does not exist; fit one with `trustscore calibrate --cascade` or unset "
            "cascade.calibrator"
        )
    text = read_capped_text(path, what="cascade file", limit=MAX_JSON_BYTES, error=CalibratorError)
    model = CascadeModel.from_json(text, source=f"cascade file {path}")
    model.check(config, signal_versions, source=f"cascade file {path}")
    return model
