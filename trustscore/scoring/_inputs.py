"""Checking what callers hand the Scorer: samples and the per-call settings.

Every refusal is an :class:`~trustscore._errors.InputError` (a ValueError) naming the field and the
fix; a wrong type never surfaces as a bare TypeError or AttributeError from deeper down.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterable, Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from trustscore._errors import InputError
from trustscore._types import Sample

__all__ = [
    "check_budget",
    "check_concurrency",
    "check_samples",
    "coerce_sample",
    "make_sample",
    "validate_sample",
]

_FIELD_FIXES = {
    "question": "pass the user's question as a string",
    "context": "pass the retrieved passages as a string or a list of strings",
    "response": "pass the model's answer text as a non-empty string",
    "id": "pass the sample id as a string (or leave it out)",
    "metadata": "pass metadata as a dict",
}


def make_sample(
    *,
    question: Any,
    response: Any,
    context: Any = None,
    id: Any = None,
    metadata: Any = None,
) -> Sample:
    """Build a :class:`Sample`; any problem is one InputError naming the field and the fix."""
    data: dict[str, Any] = {"question": question, "context": context, "response": response, "id": id}
    if metadata is not None:
        if not isinstance(metadata, Mapping):
            fix = _FIELD_FIXES["metadata"]
            raise InputError(f"invalid sample: metadata: is not a mapping (got {_describe(metadata)}); {fix}")
        data["metadata"] = dict(metadata)
    return validate_sample(data, where="")


def validate_sample(data: Mapping[str, Any], *, where: str = "") -> Sample:
    """A :class:`Sample` from a dict; errors name the field (prefixed by ``where``) and the fix."""
    try:
        return Sample.model_validate(data)
    except ValidationError as e:
        raise InputError(_explain_sample_error(e, where)) from None
    except RecursionError:
        raise InputError(f"invalid sample: {where}metadata is nested too deeply") from None


def coerce_sample(item: Any, index: int) -> Sample:
    """``samples[index]`` of a batch as a Sample (a Sample, or a dict of its fields)."""
    if isinstance(item, Sample):
        return item
    if isinstance(item, Mapping):
        return validate_sample(item, where=f"samples[{index}].")
    raise InputError(
        f"samples[{index}] is a {type(item).__name__}; pass a trustscore.Sample or a dict with "
        f"question, context and response"
    )


def check_budget(budget_s: Any, default: float) -> float:
    """The time budget of one score in seconds: ``budget_s`` when given, else ``default``."""
    if budget_s is None:
        return default
    if isinstance(budget_s, bool) or not isinstance(budget_s, int | float) or not math.isfinite(budget_s):
        raise InputError(f"budget_s must be a number of seconds (got {_describe(budget_s)})")
    if budget_s <= 0:
        raise InputError(f"budget_s must be a positive number of seconds (got {budget_s!r})")
    return float(budget_s)


def check_concurrency(concurrency: Any, default: int) -> int:
    """Samples in flight at once: ``concurrency`` when given, else ``default``."""
    if concurrency is None:
        return default
    if isinstance(concurrency, bool) or not isinstance(concurrency, int):
        raise InputError(f"concurrency must be a whole number (got {_describe(concurrency)})")
    if concurrency < 1:
        raise InputError(f"concurrency must be at least 1 (got {concurrency})")
    return concurrency


def _explain_sample_error(e: ValidationError, where: str) -> str:
    lines = []
    for err in e.errors():
        loc = [str(p) for p in err["loc"]]
        field = loc[0] if loc else "(sample)"
        path = field + "".join(f"[{p}]" for p in loc[1:])
        msg = str(err["msg"]).removeprefix("Value error, ")
        got = f" (got {_describe(err.get('input'))})"
        if err["type"] == "missing":  # its input is the whole sample, not the absent field
            msg, got = "is required", ""
        elif err["type"] == "extra_forbidden":
            msg = "is not a Sample field"
        fix = _FIELD_FIXES.get(field, "see trustscore.Sample for the fields")
        lines.append(f"{where}{path}: {msg}{got}; {fix}")
    return "invalid sample: " + "; ".join(lines)


def _describe(value: Any) -> str:
    if value is None:
        return "None"
    text = repr(value)
    return f"{type(value).__name__} {text[:40] + '...' if len(text) > 40 else text}"


def check_samples(samples: Any, wanted: str) -> None:
    """Refuse what is not ``wanted`` (a list, or an iterable or async iterable) of samples."""
    streamable = isinstance(samples, Iterable) or (wanted != "a list" and isinstance(samples, AsyncIterable))
    if isinstance(samples, str | bytes | Mapping | Sample) or not streamable:
        raise InputError(f"samples must be {wanted} of samples (got {type(samples).__name__})")
