"""One-dimensional calibrators: map a score in [0, 1] to a calibrated probability.

All four share one shape: ``Kind.fit(scores, labels)`` returns a fitted, frozen instance;
``predict(scores)`` maps new scores; ``to_dict()`` / :func:`calibrator_from_dict` round-trip
through plain JSON exactly (floats are written with ``repr``, which Python reads back bit for bit).

- **Platt**: ``sigmoid(a * logit(s) + b)``. On ``logit(s)`` rather than ``s`` because the inputs
  are probabilities; with ``a = 1, b = 0`` it is the identity.
- **Temperature**: ``sigmoid(logit(s) / T)``; one parameter, never changes the ranking.
- **Beta** (Kull, Silva Filho & Flach, "Beyond sigmoids", EJS 2017): logistic regression on
  ``[ln s, -ln(1 - s)]``, three parameters ``a, b, c``; the family contains the identity
  (``a = b = 1, c = 0``). As in the paper's "abm" fit, a negative ``a`` or ``b`` is fixed at 0
  and the rest refitted, so the map stays monotone.
- **Isotonic**: pool-adjacent-violators. Rows with equal scores are first merged into one point
  (their mean label, weighted by count), then PAV makes the labels non-decreasing. Prediction is
  linear interpolation between the fitted points and is clipped to the end values outside the
  training range; this is what scikit-learn's ``IsotonicRegression(out_of_bounds="clip")`` does.
  It needs many labels (scikit-learn warns below about 1000).

Scores are clipped to ``[1e-6, 1 - 1e-6]`` before any logit or log so that judges that answer
exactly 0 or 1 stay finite.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from trustscore.stats._logistic import fit_logistic, sigmoid

__all__ = [
    "BetaCalibrator",
    "Calibrator",
    "CalibratorKind",
    "IsotonicCalibrator",
    "PlattCalibrator",
    "TemperatureCalibrator",
    "calibrator_from_dict",
    "fit_calibrator_kind",
    "logit",
]

CalibratorKind = Literal["platt", "temperature", "beta", "isotonic"]

_EPS = 1e-6
# Essentially unregularised: a tiny ridge keeps Newton's Hessian invertible on separable data.
_TINY_L2 = 1e-8


def logit(p: ArrayLike, eps: float = _EPS) -> NDArray[np.float64]:
    q = np.clip(np.asarray(p, dtype=np.float64), eps, 1 - eps)
    return np.log(q) - np.log1p(-q)


def _scores(scores: ArrayLike) -> NDArray[np.float64]:
    s = np.asarray(scores, dtype=np.float64).ravel()
    if not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite numbers in [0, 1]; drop missing values first")
    if np.any((s < 0) | (s > 1)):
        raise ValueError("scores must lie in [0, 1]")
    return s


def _training(scores: ArrayLike, labels: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    s = _scores(scores)
    y = np.asarray(labels, dtype=np.float64).ravel()
    if s.shape != y.shape:
        raise ValueError(f"scores ({s.size}) and labels ({y.size}) differ in length")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("labels must be 0/1 (or booleans)")
    if y.size == 0 or y.min() == y.max():
        raise ValueError("fitting a calibrator needs both labels present (some 0s and some 1s)")
    return s, y


MAX_PARAMETER = 1e6
"""Largest magnitude of a fitted number in a calibrator file (a coefficient, a centre, a calibrator's
parameter): fits on standardised features and probabilities stay far below it; a file beyond it was
made by hand, and would score 0 or 1 everywhere."""


def check_parameters(model: BaseModel) -> None:
    """ValueError naming the first float field (or list item) of ``model`` beyond :data:`MAX_PARAMETER`."""
    for name, value in model:
        items = value if isinstance(value, list | tuple) else [value]
        for v in items:
            if isinstance(v, float) and abs(v) > MAX_PARAMETER:
                raise ValueError(
                    f"{name} holds {v:g}, beyond the +-{MAX_PARAMETER:g} a fit produces: the file was "
                    "edited; refit it with `trustscore calibrate`"
                )


class _Base(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    @model_validator(mode="after")
    def _sane(self) -> _Base:
        check_parameters(self)
        return self

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class PlattCalibrator(_Base):
    kind: Literal["platt"] = "platt"
    a: float
    b: float

    @classmethod
    def fit(cls, scores: ArrayLike, labels: ArrayLike) -> PlattCalibrator:
        s, y = _training(scores, labels)
        coef, intercept = fit_logistic(logit(s), y, l2=_TINY_L2)
        return cls(a=float(coef[0]), b=intercept)

    def predict(self, scores: ArrayLike) -> NDArray[np.float64]:
        return sigmoid(self.a * logit(_scores(scores)) + self.b)


class TemperatureCalibrator(_Base):
    kind: Literal["temperature"] = "temperature"
    temperature: float = Field(gt=0)

    @classmethod
    def fit(cls, scores: ArrayLike, labels: ArrayLike) -> TemperatureCalibrator:
        s, y = _training(scores, labels)
        coef, _ = fit_logistic(logit(s), y, l2=_TINY_L2, fit_intercept=False)
        slope = float(coef[0])
        if slope <= 0:
            raise ValueError(
                "temperature scaling cannot fit these scores: they rank the labels backwards "
                "(higher score, fewer 1s); check the score's orientation or use isotonic"
            )
        return cls(temperature=1.0 / slope)

    def predict(self, scores: ArrayLike) -> NDArray[np.float64]:
        return sigmoid(logit(_scores(scores)) / self.temperature)


def _beta_features(s: NDArray[np.float64]) -> NDArray[np.float64]:
    q = np.clip(s, _EPS, 1 - _EPS)
    return np.column_stack([np.log(q), -np.log1p(-q)])


class BetaCalibrator(_Base):
    kind: Literal["beta"] = "beta"
    a: float = Field(ge=0)
    b: float = Field(ge=0)
    c: float

    @classmethod
    def fit(cls, scores: ArrayLike, labels: ArrayLike) -> BetaCalibrator:
        s, y = _training(scores, labels)
        x = _beta_features(s)
        coef, c = fit_logistic(x, y, l2=_TINY_L2)
        if coef[0] < 0 or coef[1] < 0:
            keep = 1 if coef[0] < coef[1] else 0  # drop the more negative of the two
            one, c = fit_logistic(x[:, keep], y, l2=_TINY_L2)
            coef = np.zeros(2)
            coef[keep] = max(float(one[0]), 0.0)
        return cls(a=float(coef[0]), b=float(coef[1]), c=c)

    def predict(self, scores: ArrayLike) -> NDArray[np.float64]:
        x = _beta_features(_scores(scores))
        return sigmoid(self.a * x[:, 0] + self.b * x[:, 1] + self.c)


def _pav(y: NDArray[np.float64], w: NDArray[np.float64]) -> NDArray[np.float64]:
    """Weighted least-squares non-decreasing fit of ``y`` (pool adjacent violators, one pass + stack)."""
    means: list[float] = []
    weights: list[float] = []
    sizes: list[int] = []
    for yi, wi in zip(y.tolist(), w.tolist(), strict=True):
        means.append(yi)
        weights.append(wi)
        sizes.append(1)
        while len(means) > 1 and means[-2] >= means[-1]:
            w2 = weights[-2] + weights[-1]
            m = (means[-2] * weights[-2] + means[-1] * weights[-1]) / w2
            n = sizes[-2] + sizes[-1]
            del means[-1], weights[-1], sizes[-1]
            means[-1], weights[-1], sizes[-1] = m, w2, n
    return np.repeat(np.asarray(means), sizes)


class IsotonicCalibrator(_Base):
    kind: Literal["isotonic"] = "isotonic"
    x: list[float] = Field(min_length=1)
    """Fitted points' scores, strictly increasing."""
    y: list[float] = Field(min_length=1)
    """Fitted probabilities at ``x``, non-decreasing, in [0, 1]."""

    @model_validator(mode="after")
    def _shape(self) -> IsotonicCalibrator:
        if len(self.x) != len(self.y):
            raise ValueError(f"isotonic x ({len(self.x)}) and y ({len(self.y)}) differ in length")
        xs, ys = np.asarray(self.x), np.asarray(self.y)
        if np.any(np.diff(xs) <= 0):
            raise ValueError("isotonic thresholds x must be strictly increasing")
        if np.any(np.diff(ys) < 0) or np.any((ys < 0) | (ys > 1)):
            raise ValueError("isotonic values y must be non-decreasing and within [0, 1]")
        return self

    @classmethod
    def fit(cls, scores: ArrayLike, labels: ArrayLike) -> IsotonicCalibrator:
        s, y = _training(scores, labels)
        ux, inverse, counts = np.unique(s, return_inverse=True, return_counts=True)
        mean_y = np.bincount(inverse, weights=y) / counts
        fitted = _pav(mean_y, counts.astype(np.float64))
        # Interior points of a flat run add nothing to the interpolation; keep the run's two ends.
        keep = np.ones(ux.size, dtype=bool)
        if ux.size > 2:
            flat_before = np.r_[False, fitted[1:] == fitted[:-1]]
            flat_after = np.r_[fitted[:-1] == fitted[1:], False]
            keep = ~(flat_before & flat_after)
        return cls(x=ux[keep].tolist(), y=fitted[keep].tolist())

    def predict(self, scores: ArrayLike) -> NDArray[np.float64]:
        return np.interp(_scores(scores), np.asarray(self.x), np.asarray(self.y))


Calibrator = Annotated[
    PlattCalibrator | TemperatureCalibrator | BetaCalibrator | IsotonicCalibrator, Field(discriminator="kind")
]
_ADAPTER: TypeAdapter[Calibrator] = TypeAdapter(Calibrator)
_KINDS: dict[str, type[PlattCalibrator | TemperatureCalibrator | BetaCalibrator | IsotonicCalibrator]] = {
    "platt": PlattCalibrator,
    "temperature": TemperatureCalibrator,
    "beta": BetaCalibrator,
    "isotonic": IsotonicCalibrator,
}


def calibrator_from_dict(data: Any) -> Calibrator:
    """Rebuild a calibrator from :meth:`to_dict` output; refuses unknown kinds and bad parameters."""
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as e:
        raise ValueError(f"not a valid calibrator: {e}") from None


def fit_calibrator_kind(kind: CalibratorKind, scores: ArrayLike, labels: ArrayLike) -> Calibrator:
    """Fit the named calibrator kind ("platt", "temperature", "beta" or "isotonic")."""
    if kind not in _KINDS:
        raise ValueError(f"unknown calibrator kind {kind!r}; choose one of {', '.join(_KINDS)}")
    return _KINDS[kind].fit(scores, labels)
