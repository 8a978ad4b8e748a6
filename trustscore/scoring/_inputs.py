"""Checking what callers hand the Scorer: samples and the per-call settings.

Every refusal is an :class:`~trustscore._errors.InputError` (a ValueError) naming the field and the
fix; a wrong type never surfaces as a bare TypeError or AttributeError from deeper down.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import AsyncIterable, Awaitable, Callable, Iterable, Mapping
from typing import Any, ParamSpec, TypeVar, cast

from pydantic import ValidationError

from trustscore._errors import InputError
from trustscore._types import Sample
from trustscore.core._names import SAMPLE_FIELD_ALIASES, closest_name

__all__ = [
    "check_budget",
    "check_concurrency",
    "check_samples",
    "checked_arguments",
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
    "domain": "pass the domain an adapted calibrator holds (`--adapt --domain NAME`) as a non-empty string, "
    "or leave it out",
}


def make_sample(
    *,
    question: Any,
    response: Any,
    context: Any = None,
    id: Any = None,
    metadata: Any = None,
    domain: Any = None,
) -> Sample:
    """Build a :class:`Sample`; any problem is one InputError naming the field and the fix."""
    data: dict[str, Any] = {"question": question, "context": context, "response": response, "id": id}
    if domain is not None:
        data["domain"] = domain
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


P = ParamSpec("P")
R = TypeVar("R")


def checked_arguments(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` (sync or async), refusing arguments it does not take with an InputError that names the
    one meant (``answer=`` -> ``response=``, as other tools name it) instead of a bare TypeError."""
    signature = inspect.signature(fn)

    def check(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        try:
            signature.bind(*args, **kwargs)
        except TypeError as e:
            raise InputError(_wrong_arguments(fn.__name__, signature, args, kwargs, e)) from None

    if inspect.iscoroutinefunction(fn):
        run = cast(Callable[..., Awaitable[Any]], fn)

        @functools.wraps(fn)
        async def checked_async(*args: Any, **kwargs: Any) -> Any:
            check(args, kwargs)
            return await run(*args, **kwargs)

        return cast(Callable[P, R], checked_async)

    @functools.wraps(fn)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        check(args, kwargs)
        return fn(*args, **kwargs)

    return checked


def _wrong_arguments(
    name: str, signature: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any], error: TypeError
) -> str:
    params = [p for p in signature.parameters if p != "self"]
    problems = []
    for key in kwargs:
        if key not in signature.parameters:
            meant = closest_name(key, params, SAMPLE_FIELD_ALIASES)
            hint = f": did you mean {meant}=?" if meant else ""
            problems.append(f"{name}() has no argument {key!r}{hint}")
    positional = args[1:] if "self" in signature.parameters else args
    if positional and not problems:
        problems.append(f"{name}() takes keyword arguments only (question=..., response=..., context=...)")
    if not problems:
        problems.append(f"{name}(): {error}")
    return "; ".join(problems) + f" (its arguments: {', '.join(params)})"
def check_samples(samples: Any, wanted: str) -> None:
    """Refuse what is not ``wanted`` (a list, or an iterable or async iterable) of samples."""
    streamable = isinstance(samples, Iterable) or (wanted != "a list" and isinstance(samples, AsyncIterable))
    if isinstance(samples, str | bytes | Mapping | Sample) or not streamable:
        raise InputError(f"samples must be {wanted} of samples (got {type(samples).__name__})")
