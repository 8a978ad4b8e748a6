"""What an adaptation saw, what it claims, and how it maps the base model's score.

An adaptation (``trustscore calibrate LABELED.jsonl --adapt``) refits the base model's *level and
slope* on a few labeled rows of one domain: ``P = sigmoid(level + slope * logit(P_base))``. It keeps
what those rows looked like (their task kinds, the response / context lengths and feature ranges, the
share of trustworthy rows, their count, the domain name the user gave) and claims calibrated only on
samples like them: a sample of another domain, another task kind, or beyond the ranges is scored with
the adapted map (it still ranks) but says why it is not claimed.

Whether it claims at all is decided when it is fitted (``trustscore.fitting._adapt``): only where the
labeled rows show that the signals rank and the bootstrap uncertainty of the level and slope is small
enough; otherwise ``not_calibrated_reason`` says how many more labels would make a claim possible.
Every adapted result carries a 90% interval from that uncertainty.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from trustscore.fusion._task_kind import TASK_KINDS

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "INTERVAL_Z",
    "MAX_LEVEL_SLOPE",
    "MAX_NAME_CHARS",
    "MAX_RANGE_VALUE",
    "MAX_ROWS",
    "Adaptation",
    "Range",
]

INTERVAL_Z = 1.6448536269514722
"""z of a two-sided 90% normal interval: each adapted result's ``interval``."""

# What a file may hold. A fit stays far inside each bound; a number beyond one was written by hand (a
# level of 1e308 or a slope of -1e7 would pin every score to 0.99 or 0.01), so the file is refused.
MAX_LEVEL_SLOPE = 20.0
"""Largest magnitude of an adaptation's level or slope (log-odds; the fit's prior keeps them near 0
and 1, and sigmoid(20) is already 1 - 2e-9)."""
MAX_ROWS = 10**9
"""Largest count of labeled rows (or groups) an adaptation may say it saw."""
MAX_RANGE_VALUE = 1e9
"""Largest magnitude of a range's end (a feature's number, or a length in words)."""
MAX_NAME_CHARS = 256
"""Longest domain, data or range name."""
MAX_COVARIANCE = 1e6
"""Largest magnitude of a (level, slope) covariance entry."""
_PRINTABLE = r"^[^\x00-\x1f\x7f]+$"
"""No control characters (a newline or an escape in a name would forge lines of a message)."""
_MAX_REASON_CHARS = 4096


Covariance = Annotated[float, Field(ge=-MAX_COVARIANCE, le=MAX_COVARIANCE)]
TaskKind = Annotated[str, Field(max_length=MAX_NAME_CHARS, pattern=_PRINTABLE)]


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class Range(_Strict):
    """The span of one number over the labeled rows, widened by a margin (``trustscore.fitting._adapt``)."""

    name: str = Field(min_length=1, max_length=MAX_NAME_CHARS, pattern=_PRINTABLE)
    """A feature key, or ``response_words`` / ``context_words``."""
    low: float = Field(ge=-MAX_RANGE_VALUE, le=MAX_RANGE_VALUE)
    high: float = Field(ge=-MAX_RANGE_VALUE, le=MAX_RANGE_VALUE)

    @model_validator(mode="after")
    def _ordered(self) -> Range:
        if self.high < self.low:
            raise ValueError(f"range {self.name}: high {self.high} is below low {self.low}")
        return self


_NOUN = {"response_words": "response", "context_words": "context"}


def _fmt(v: float) -> str:
    return f"{v:.0f}" if float(v).is_integer() else f"{v:.3g}"


class Adaptation(_Strict):
    domain: str | None = Field(default=None, min_length=1, max_length=MAX_NAME_CHARS, pattern=_PRINTABLE)
    """The domain name the user gave (``--domain``); None: samples that name no domain."""
    data_name: str = Field(min_length=1, max_length=4 * MAX_NAME_CHARS, pattern=_PRINTABLE)
    """Where the labeled rows came from (the file name)."""
    n: int = Field(ge=1, le=MAX_ROWS, strict=True)
    trust_share: float = Field(ge=0, le=1)
    """Share of the labeled rows that are trustworthy."""
    task_kinds: list[TaskKind] | None = Field(max_length=len(TASK_KINDS))
    """The task kinds of the labeled rows (``trustscore.fusion._task_kind``); None when the rows did
    not carry their question and context, so no kind could be read."""
    ranges: list[Range] = Field(max_length=1024)
    level: float = Field(ge=-MAX_LEVEL_SLOPE, le=MAX_LEVEL_SLOPE)
    slope: float = Field(ge=-MAX_LEVEL_SLOPE, le=MAX_LEVEL_SLOPE)
    covariance: tuple[tuple[Covariance, Covariance], tuple[Covariance, Covariance]]
    """Bootstrap covariance of (level, slope) over the labeled rows."""
    auroc: float | None = Field(ge=0, le=1)
    """AUROC of the base score on the labeled rows (None with one class only)."""
    auroc_low: float | None = Field(ge=0, le=1)
    """Its one-sided 95% lower bound (Hanley & McNeil 1982)."""
    groups: int | None = Field(default=None, ge=1, le=MAX_ROWS, strict=True)
    """Distinct groups (documents) among the labeled rows, resampled whole by the bootstrap; None when
    the rows carried no group and were resampled one by one."""
    calibration_gap: float = Field(ge=0, le=1)
    """90th percentile, over bootstrap refits, of the mean |P_refit - P| over the labeled rows: how far
    the level and slope these labels fit may be from the ones the domain has."""
    not_calibrated_reason: str | None = Field(default=None, min_length=1, max_length=_MAX_REASON_CHARS)
    """None when the adaptation claims calibrated on samples like its rows; else why not, and how many
    more labels would make a claim possible."""

    @model_validator(mode="after")
    def _consistent(self) -> Adaptation:
        if self.groups is not None and self.groups > self.n:
            raise ValueError(f"groups {self.groups} is more than the n {self.n} labeled rows")
        if self.auroc is not None and self.auroc_low is not None and self.auroc_low > self.auroc:
            raise ValueError(f"auroc_low {self.auroc_low} is above auroc {self.auroc}")
        if (self.auroc is None) != (self.auroc_low is None):
            raise ValueError("auroc and auroc_low are both set or both null")
        (vaa, vas), (vsa, vss) = self.covariance
        if vaa < 0 or vss < 0 or not math.isclose(vas, vsa, rel_tol=1e-9, abs_tol=1e-12):
            raise ValueError("covariance is not a covariance matrix (negative variance, or not symmetric)")
        unknown = set(self.task_kinds or ()) - set(TASK_KINDS)
        if unknown:
            raise ValueError(f"task_kinds names {sorted(unknown)}; the kinds are {', '.join(TASK_KINDS)}")
        names = [r.name for r in self.ranges]
        if len(set(names)) != len(names):
            raise ValueError(f"ranges name one number twice: {sorted(names)}")
        return self

    @property
    def label(self) -> str:
        return f"domain {self.domain!r}" if self.domain is not None else "unnamed domain"

    def map(self, p_base: NDArray[np.float64]) -> NDArray[np.float64]:
        """P for an array of the base model's P(trustworthy) (NaN kept)."""
        import numpy as np

        q = np.clip(p_base, 1e-9, 1 - 1e-9)
        z = self.level + self.slope * (np.log(q) - np.log1p(-q))
        return np.asarray(1.0 / (1.0 + np.exp(-z)), dtype=np.float64)

    def apply(self, p_base: float) -> tuple[float, tuple[float, float]]:
        """(P, 90% interval) for the base model's P(trustworthy)."""
        q = min(max(p_base, 1e-9), 1 - 1e-9)
        eta = math.log(q) - math.log1p(-q)
        z = self.level + self.slope * eta
        (vaa, vas), (_, vss) = self.covariance
        sd = math.sqrt(max(vaa + 2 * eta * vas + eta * eta * vss, 0.0))
        return _sigmoid(z), (_sigmoid(z - INTERVAL_Z * sd), _sigmoid(z + INTERVAL_Z * sd))

    def outside(self, kind: str | None, values: Mapping[str, float | None]) -> list[str]:
        """Why a sample of task ``kind`` with these numbers is unlike the labeled rows ([] = like them)."""
        reasons: list[str] = []
        if kind is not None and self.task_kinds is not None and kind not in self.task_kinds:
            reasons.append(
                f"the sample reads as a {kind} task; the {self.label} was adapted on "
                f"{', '.join(self.task_kinds)} rows only"
            )
        for r in self.ranges:
            v = values.get(r.name)
            if v is None or math.isnan(v) or r.low <= v <= r.high:
                continue
            noun = _NOUN.get(r.name)
            what = f"{noun} has {_fmt(v)} words" if noun else f"feature {r.name} is {_fmt(v)}"
            reasons.append(f"{what}; the {self.label} was adapted on {_fmt(r.low)} to {_fmt(r.high)}")
        return reasons


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))
