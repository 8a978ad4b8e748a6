"""The data that crosses trustscore's boundaries: samples in, signals and scores out.

Every model here is a frozen pydantic v2 model that round-trips through JSON exactly, so a scored
file written by ``trustscore score`` can be re-read for calibration without re-calling an LLM.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, StrictStr, field_validator, model_validator

__all__ = ["DomainCheck", "Sample", "Signal", "Span", "TrustScore", "Usage"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Usage(_Frozen):
    """What producing a signal cost. Summed across signals for a whole result."""

    requests: int = 0
    """HTTP requests actually sent (retries included; cache hits excluded)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_hits: int = 0
    seconds: float = 0.0
    """Wall-clock seconds spent producing the signal (for a sum: the sum of the parts)."""

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            requests=self.requests + other.requests,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cache_hits=self.cache_hits + other.cache_hits,
            seconds=self.seconds + other.seconds,
        )

    @classmethod
    def total(cls, usages: list[Usage]) -> Usage:
        out = cls()
        for u in usages:
            out = out + u
        return out


class Span(_Frozen):
    """A stretch of the response, as character offsets ``[start, end)`` into ``Sample.response``."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str
    score: float | None = None
    """How suspicious the stretch is, in [0, 1] (higher = less trustworthy), when the signal says."""
    label: str | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Span:
        if self.end < self.start:
            raise ValueError(f"span end ({self.end}) is before its start ({self.start})")
        return self


class Signal(_Frozen):
    """One signal's verdict on one sample.

    ``value`` is in [0, 1], higher = more trustworthy, or ``None`` when the signal is missing, in
    which case ``error`` says why. A missing signal is never 0 and never 0.5.
    """

    name: str
    value: float | None = Field(default=None, ge=0.0, le=1.0)
    raw: JsonValue = None
    """The signal's native answer: 4.2 on a 1..5 scale, "PASS", {"votes": [...]}, ..."""
    error: str | None = None
    explanation: str | None = None
    warnings: list[str] = Field(default_factory=list)
    """Things the caller should know that did not stop the signal (e.g. "context trimmed")."""
    spans: list[Span] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    version: str | None = None
    """Prompt or method version the value was produced with (calibrators check it)."""

    @model_validator(mode="after")
    def _value_or_error(self) -> Signal:
        if self.value is None and not self.error:
            raise ValueError(f"signal {self.name!r} has no value and no error: say why it is missing")
        if self.value is not None and self.error:
            raise ValueError(f"signal {self.name!r} has both a value and an error")
        return self

    @property
    def missing(self) -> bool:
        return self.value is None

    @classmethod
    def failed(cls, name: str, error: str, *, usage: Usage | None = None, raw: JsonValue = None,
               version: str | None = None) -> Signal:
        """A missing signal with the reason it is missing."""
        return cls(name=name, value=None, error=error, usage=usage or Usage(), raw=raw, version=version)


class Sample(_Frozen):
    """One thing to score: a question, the retrieved context, and the response to judge.

    ``context`` accepts one string or a list of passages; it is stored as a list. Fields must be
    real strings: numbers or ``None`` are refused with an error naming the field.
    """

    question: StrictStr
    context: list[StrictStr] = Field(default_factory=list)
    response: StrictStr
    id: StrictStr | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("context", mode="before")
    @classmethod
    def _context_as_list(cls, v: Any) -> Any:
        if isinstance(v, str):
            return [v] if v.strip() else []
        if v is None:
            return []
        return v

    @field_validator("response")
    @classmethod
    def _response_not_empty(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("response is empty: there is nothing to score (pass the model's answer text)")
        return v

    @property
    def context_text(self) -> str:
        """The passages joined the way every judge shows them."""
        return "\n\n".join(p for p in self.context if p.strip())

    @property
    def has_context(self) -> bool:
        return any(p.strip() for p in self.context)


class DomainCheck(_Frozen):
    """Whether a sample looks like the data its calibrator was fitted on.

    ``inside`` is False when any checked number (a feature the calibrator reads, or the response's
    or context's length in words) lies beyond the tails of the calibration data; ``reasons`` says
    which, e.g. "response has 2 words; calibration data's 0.5th percentile is 9". Outside, the
    score is still returned but ``TrustScore.calibrated`` is False: the calibration was never
    measured on data like it.
    """

    inside: bool
    reasons: list[str] = Field(default_factory=list)
    calibrator: str
    """Which calibrator's domain (``calibrator:<name>@<version>``)."""


class TrustScore(_Frozen):
    """The fused verdict on one sample.

    ``score`` is P(the response is trustworthy). It is calibrated only when ``calibrated`` is True
    (a fitted calibrator was loaded); otherwise it is the documented default combination of the
    available signals. It is ``None`` only when no signal at all could be computed.
    """

    score: float | None = Field(ge=0.0, le=1.0)
    calibrated: bool
    signals: dict[str, Signal]
    used_signals: list[str]
    """The signals that fed ``score``, in the order the fuser read them."""
    fusion: str
    """What produced ``score``: "default:mean" or "calibrator:<name>@<version>"."""
    usage: Usage = Field(default_factory=Usage)
    seconds: float = 0.0
    complete: bool = True
    """False when the time budget ran out before every signal finished."""
    sample_id: str | None = None
    domain: DomainCheck | None = None
    """Inside the calibrator's domain or not (None when no calibrator with a recorded domain ran)."""

    @property
    def missing(self) -> dict[str, str]:
        """Missing signals and why: {name: reason}."""
        return {n: s.error or "" for n, s in self.signals.items() if s.value is None}
