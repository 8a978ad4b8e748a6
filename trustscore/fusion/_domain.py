"""The calibration domain: a compact description of the data a calibrator was fitted on, and the
test that says whether a new sample lies inside it.

A calibrator's probabilities were measured on its calibration data only. When a sample's numbers fall
beyond what that data held (a two-word answer when every calibration response had ten or more words,
an embedding similarity lower than any seen), the model extrapolates, and its "0.9" is no longer a
measured 0.9. So a fitted model keeps, per checked dimension (each feature it reads, plus the
response's and the context's length in words), a few quantiles of the calibration data, and the
sample is *outside* when any dimension lies below the ``tail`` quantile or above the ``1 - tail``
quantile.

``tail`` is chosen at fit time, per model: the widest of :data:`TAILS` whose share of calibration rows
flagged on at least one dimension is at most :data:`IN_SAMPLE_ALARM_TARGET`. The false-alarm rate
that matters, on in-domain rows the model did not see, is measured by
``benchmarks/quality/multidomain.py`` (docs/benchmarks.md).

Pure Python at import: the Scorer calls :meth:`CalibrationDomain.check` on every sample.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from trustscore.fusion._adaptation import MAX_ROWS

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "IN_SAMPLE_ALARM_TARGET",
    "LENGTHS",
    "PROBS",
    "TAILS",
    "CalibrationDomain",
    "Dimension",
    "describe_domain",
    "lengths_of",
    "outside_count",
]

PROBS: tuple[float, ...] = (
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.5, 0.95, 0.975, 0.99, 0.995, 0.9975, 0.999
)
"""The quantiles kept per dimension."""
TAILS: tuple[float, ...] = (0.025, 0.01, 0.005, 0.0025, 0.001)
"""Candidate per-dimension tails, widest first (each ``t`` and ``1 - t`` are in :data:`PROBS`)."""
IN_SAMPLE_ALARM_TARGET = 0.05
LENGTHS = ("response_words", "context_words")
"""The length dimensions, besides the model's features."""

_LENGTH_NOUN = {"response_words": "response", "context_words": "context"}


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class Dimension(_Strict):
    name: str = Field(min_length=1)
    """A feature key (``embedding:raw.min|identity``) or one of :data:`LENGTHS`."""
    quantiles: list[float]
    """The calibration data's quantiles at :data:`PROBS` (of the rows where the number was present)."""
    present: int = Field(ge=1, le=MAX_ROWS)
    """Rows where the number was present."""


def _ordinal(p: float) -> str:
    """0.01 -> "1st percentile", 0.995 -> "99.5th percentile", 0.0025 -> "0.25th percentile"."""
    text = f"{p * 100:.2f}".rstrip("0").rstrip(".")
    suffix = "th"
    if "." not in text and not 11 <= int(text) % 100 <= 13:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(int(text) % 10, "th")
    return f"{text}{suffix} percentile"


def _fmt(v: float) -> str:
    return f"{v:.0f}" if float(v).is_integer() else f"{v:.3g}"


class CalibrationDomain(_Strict):
    data_name: str = Field(min_length=1)
    data_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    n: int = Field(ge=1, le=MAX_ROWS)
    base_rate: float = Field(ge=0, le=1)
    """Share of trustworthy rows in the calibration data."""
    probs: list[float] = Field(default_factory=lambda: list(PROBS))
    dimensions: list[Dimension]
    tail: float = Field(gt=0, lt=0.5)
    in_sample_alarm_rate: float = Field(ge=0, le=1)
    """Share of the calibration rows themselves flagged outside (at fit time)."""

    @model_validator(mode="after")
    def _consistent(self) -> CalibrationDomain:
        if self.tail not in self.probs or (1 - self.tail) not in [round(p, 10) for p in self.probs]:
            raise ValueError(f"tail {self.tail} and {1 - self.tail} must both be among probs {self.probs}")
        for d in self.dimensions:
            if len(d.quantiles) != len(self.probs):
                raise ValueError(
                    f"dimension {d.name}: {len(d.quantiles)} quantiles for {len(self.probs)} probs"
                )
            if any(b < a for a, b in zip(d.quantiles, d.quantiles[1:], strict=False)):
                raise ValueError(f"dimension {d.name}: quantiles must not decrease")
        return self

    def bounds(self, dimension: Dimension) -> tuple[float, float]:
        """The (low, high) quantiles at ``tail`` and ``1 - tail``."""
        lo = self.probs.index(self.tail)
        hi = [round(p, 10) for p in self.probs].index(round(1 - self.tail, 10))
        return dimension.quantiles[lo], dimension.quantiles[hi]

    def check(self, values: Mapping[str, float | None]) -> list[str]:
        """Why a sample with these numbers is outside the domain ([] = inside).

        ``values`` maps dimension name -> number; a missing or absent number is not checked
        (a missing signal is the fused model's business, not the domain's).
        """
        reasons: list[str] = []
        for d in self.dimensions:
            v = values.get(d.name)
            if v is None or (isinstance(v, float) and math.isnan(v)):
                continue
            lo, hi = self.bounds(d)
            if lo <= v <= hi:
                continue
            p, q = (self.tail, lo) if v < lo else (1 - self.tail, hi)
            if d.name in _LENGTH_NOUN:
                what = f"{_LENGTH_NOUN[d.name]} has {_fmt(v)} words"
            else:
                what = f"feature {d.name} is {_fmt(v)}"
            reasons.append(f"{what}; calibration data's {_ordinal(p)} is {_fmt(q)}")
        return reasons


def describe_domain(
    columns: Mapping[str, NDArray[np.float64]],
    trust: NDArray[np.float64],
    *,
    data_name: str,
    data_sha256: str,
) -> CalibrationDomain:
    """Describe the calibration rows: ``columns`` maps dimension name -> one number per row (NaN =
    absent); ``trust`` is the 1 = trustworthy target of the same rows."""
    import numpy as np

    dims: list[Dimension] = []
    present: dict[str, Any] = {}
    for name, col in columns.items():
        x = np.asarray(col, dtype=np.float64)
        ok = ~np.isnan(x)
        if not ok.any():
            continue
        q = np.quantile(x[ok], PROBS, method="linear")
        quantiles = [float(v) for v in np.maximum.accumulate(q)]
        dims.append(Dimension(name=name, quantiles=quantiles, present=int(ok.sum())))
        present[name] = x
    n = len(trust)
    chosen, rate = TAILS[-1], 1.0
    for tail in TAILS:
        flagged = np.zeros(n, dtype=bool)
        lo_i, hi_i = PROBS.index(tail), PROBS.index(round(1 - tail, 10))
        for d in dims:
            x = present[d.name]
            lo, hi = d.quantiles[lo_i], d.quantiles[hi_i]
            with np.errstate(invalid="ignore"):
                flagged |= (x < lo) | (x > hi)
        rate = float(flagged.mean())
        chosen = tail
        if rate <= IN_SAMPLE_ALARM_TARGET:
            break
    return CalibrationDomain(
        data_name=data_name,
        data_sha256=data_sha256,
        n=n,
        base_rate=float(np.mean(trust)),
        dimensions=dims,
        tail=chosen,
        in_sample_alarm_rate=rate,
    )


def lengths_of(fields: Mapping[str, Any], raws: Sequence[Any]) -> dict[str, float | None]:
    """Response and context length in words of a scored row: from its ``response`` / ``context``
    fields when carried, else from a signal's ``raw`` that reports them (lexical does)."""
    out: dict[str, float | None] = dict.fromkeys(LENGTHS)
    if isinstance(fields.get("response"), str):
        out["response_words"] = float(len(fields["response"].split()))
    ctx = fields.get("context")
    if isinstance(ctx, list) and all(isinstance(c, str) for c in ctx):
        out["context_words"] = float(sum(len(c.split()) for c in ctx))
    for raw in raws:
        if isinstance(raw, dict):
            for k in LENGTHS:
                v = raw.get(k)
                if out[k] is None and isinstance(v, int | float) and not isinstance(v, bool):
                    out[k] = float(v)
    return out


def outside_count(fields: Sequence[Mapping[str, Any]]) -> tuple[int, int]:
    """(rows with a domain check, rows outside the calibration domain) of scored rows' fields."""
    checked = outside = 0
    for f in fields:
        d = f.get("domain")
        if isinstance(d, dict) and isinstance(d.get("inside"), bool):
            checked += 1
            outside += not d["inside"]
    return checked, outside
