"""Feature specs: which number to read from which signal, and how to transform it.

A feature is written as text, ``SIGNAL[:raw.PATH][|TRANSFORM]``:

- ``lynx``                                   the signal's value, logit-transformed (the default)
- ``lynx|identity``                          the value as is
- ``lexical:raw.numbers_unsupported|clip``   a numeric field inside the signal's ``raw`` dict,
                                             clipped to the range seen in training

Transforms: ``logit`` (values clipped to [1e-4, 1 - 1e-4] first, so a judge's exact 0 or 1 stays
finite), ``identity``, ``clip`` (to the training minimum and maximum, so an unseen extreme cannot
extrapolate the linear model). Raw features default to ``identity``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field

from trustscore._errors import FeatureError
from trustscore._types import Signal

__all__ = ["FeatureError", "FeatureSpec", "Transform", "apply_transform", "parse_feature"]

Transform = Literal["logit", "identity", "clip"]
LOGIT_EPS = 1e-4

_FEATURE_RE = re.compile(
    r"^(?P<signal>[^:|\s]+)(?::(?P<field>raw(?:\.[^.|\s]+)+))?(?:\|(?P<transform>\w+))?$"
)


class FeatureSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    signal: str = Field(min_length=1)
    field: str = Field(default="value", pattern=r"^(value|raw(\.[^.]+)+)$")
    """``value``, or a dotted path into the signal's ``raw`` dict such as ``raw.numbers_unsupported``."""
    transform: Transform = "logit"

    @property
    def key(self) -> str:
        """The canonical text form, which :func:`parse_feature` reads back."""
        where = "" if self.field == "value" else f":{self.field}"
        return f"{self.signal}{where}|{self.transform}"

    def read(self, signals: Mapping[str, Signal]) -> float | None:
        """The untransformed number, or ``None`` when the signal is absent or missing, or its raw
        field is null/NaN for this sample (a share over zero items, say).

        Raises :class:`FeatureError` when the signal has a value but its ``raw`` lacks the field or
        holds something that is not a number: that is a changed signal, not a missing one.
        """
        sig = signals.get(self.signal)
        if sig is None or sig.value is None:
            return None
        if self.field == "value":
            return float(sig.value)
        node: object = sig.raw
        for part in self.field.split(".")[1:]:
            if not isinstance(node, dict) or part not in node:
                raise FeatureError(
                    f"feature {self.key!r}: signal {self.signal!r} has no {self.field!r} "
                    f"(its raw is {type(sig.raw).__name__}); refit the calibrator for this signal version"
                )
            node = node[part]
        if node is None or (isinstance(node, float) and math.isnan(node)):
            return None  # the signal has no such number for this sample (e.g. no numbers to check)
        if isinstance(node, bool) or not isinstance(node, int | float) or not math.isfinite(node):
            raise FeatureError(
                f"feature {self.key!r}: signal {self.signal!r} {self.field} is {node!r}, not a finite number"
            )
        return float(node)


def parse_feature(text: str) -> FeatureSpec:
    """Read ``SIGNAL[:raw.PATH][|TRANSFORM]`` (see the module docstring)."""
    m = _FEATURE_RE.match(text.strip())
    if not m:
        raise ValueError(
            f"feature {text!r} is not SIGNAL[:raw.PATH][|TRANSFORM], e.g. 'lynx', 'lynx|identity' "
            "or 'lexical:raw.numbers_unsupported|clip'"
        )
    field = m["field"] or "value"
    transform = m["transform"] or ("logit" if field == "value" else "identity")
    if transform not in ("logit", "identity", "clip"):
        raise ValueError(f"feature {text!r}: unknown transform {transform!r}; use logit, identity or clip")
    if transform == "logit" and field != "value":
        raise ValueError(f"feature {text!r}: logit applies to signal values in [0, 1]; use identity or clip")
    return FeatureSpec(signal=m["signal"], field=field, transform=transform)  # type: ignore[arg-type]


def apply_transform(
    transform: Transform, x: NDArray[np.float64], bounds: tuple[float, float] | None
) -> NDArray[np.float64]:
    """Transform a column (NaN = missing stays NaN)."""
    if transform == "logit":
        q = np.clip(x, LOGIT_EPS, 1 - LOGIT_EPS)
        return np.log(q) - np.log1p(-q)
    if transform == "clip":
        if bounds is None:
            raise ValueError("clip needs the training bounds")
        return np.clip(x, bounds[0], bounds[1])
    return x.astype(np.float64, copy=True)
