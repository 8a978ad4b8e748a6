"""The data that crosses trustscore's boundaries: samples in, signals and scores out.

Every model here is a frozen pydantic v2 model that round-trips through JSON exactly, so a scored
file written by ``trustscore score`` can be re-read for calibration without re-calling an LLM.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, StrictStr, field_validator, model_validator

__all__ = [
    "MAX_PASSAGES",
    "MAX_SAMPLE_CHARS",
    "CascadeStop",
    "DomainCheck",
    "Sample",
    "Signal",
    "Span",
    "TrustScore",
    "Usage",
    "find_bad_text",
    "text_problem",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Usage(_Frozen):
    """What producing a signal cost. Summed across signals for a whole result."""

    requests: int = 0
    """HTTP requests that reached the server (retries included; cache hits excluded)."""
    unsent: int = 0
    """Requests cut by a deadline or budget before they reached the server (not in ``requests``)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_hits: int = 0
    seconds: float = 0.0
    """Wall-clock seconds spent producing the signal (for a sum: the sum of the parts)."""

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            requests=self.requests + other.requests,
            unsent=self.unsent + other.unsent,
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

    @property
    def abstention(self) -> bool:
        """Whether the signal read the response as declining to answer (``raw["outcome"]`` is
        ``"abstention"``, the grounding signals' mark): then a missing value is no failure."""
        return isinstance(self.raw, dict) and self.raw.get("outcome") == ABSTENTION

    @classmethod
    def failed(cls, name: str, error: str, *, usage: Usage | None = None, raw: JsonValue = None,
               version: str | None = None) -> Signal:
        """A missing signal with the reason it is missing."""
        return cls(name=name, value=None, error=error, usage=usage or Usage(), raw=raw, version=version)


ABSTENTION = "abstention"
"""The ``raw["outcome"]`` of a signal that read the response as declining to answer."""

MAX_SAMPLE_CHARS = 10_000_000
"""Most characters one sample may hold (question + every passage + response + metadata strings)."""
MAX_PASSAGES = 10_000
"""Most context passages one sample may hold."""

# Lone surrogates cannot be encoded as UTF-8 (every judge request and every output line would
# fail); C0 control characters other than tab, line feed, form feed and carriage return are
# never text. Both are refused rather than replaced, so a caller learns the input is damaged.
_BAD_TEXT = re.compile(r"[\ud800-\udfff\x00-\x08\x0b\x0e-\x1f]")


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be scored (a lone surrogate or a control character), or None."""
    m = _BAD_TEXT.search(text)
    if m is None:
        return None
    char = m.group()
    what = "a lone surrogate (invalid Unicode)" if "\ud800" <= char <= "\udfff" else "a control character"
    return (
        f"contains {what} U+{ord(char):04X} at character {m.start()}; "
        "remove it or decode the source text with errors='replace'"
    )


def find_bad_text(value: Any, path: str) -> str | None:
    """The first string (key or value) inside ``value`` that :func:`text_problem` refuses, as
    ``"<path>: <problem>"``; None when every string is clean. Walks dicts, lists and tuples."""
    if isinstance(value, str):
        problem = text_problem(value)
        return f"{path}: {problem}" if problem else None
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str) and (problem := text_problem(k)):
                return f"{path} key {k.encode('utf-8', 'backslashreplace').decode()!r}: {problem}"
            if found := find_bad_text(v, f"{path}[{k!r}]"):
                return found
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            if found := find_bad_text(v, f"{path}[{i}]"):
                return found
    return None


def _chars(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(_chars(k) + _chars(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return sum(_chars(v) for v in value)
    return 0


class Sample(_Frozen):
    """One thing to score: a question, the retrieved context, and the response to judge.

    ``context`` accepts one string or a list of passages; it is stored as a list. Fields must be
    real strings: numbers or ``None`` are refused with an error naming the field. Text holding a
    lone surrogate or a control character (other than tab, newline, form feed, carriage return)
    is refused, as is a sample over :data:`MAX_SAMPLE_CHARS` characters or
    :data:`MAX_PASSAGES` passages.
    """

    question: StrictStr
    context: list[StrictStr] = Field(default_factory=list)
    response: StrictStr
    id: StrictStr | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    domain: StrictStr | None = Field(default=None, min_length=1)
    """The domain the sample belongs to, as the user names it (``support``, ``legal``...): an adapted
    calibrator claims calibrated only through the adaptation of this name (``trustscore calibrate
    --adapt --domain NAME``). None: the sample names no domain."""

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

    @field_validator("question", "response", "id", "domain")
    @classmethod
    def _clean_text(cls, v: str | None) -> str | None:
        if v is not None and (problem := text_problem(v)):
            raise ValueError(problem)
        return v

    @field_validator("context")
    @classmethod
    def _clean_passages(cls, v: list[str]) -> list[str]:
        if len(v) > MAX_PASSAGES:
            raise ValueError(
                f"has {len(v)} passages; at most {MAX_PASSAGES} are accepted (merge or drop some)"
            )
        for i, passage in enumerate(v):
            if problem := text_problem(passage):
                raise ValueError(f"passage {i} {problem}")
        return v

    @field_validator("metadata")
    @classmethod
    def _clean_metadata(cls, v: dict[str, Any]) -> dict[str, Any]:
        if problem := find_bad_text(v, "value at "):
            raise ValueError(problem)
        return v

    @model_validator(mode="after")
    def _not_too_big(self) -> Sample:
        total = _chars([self.question, self.response, *self.context]) + _chars(self.metadata)
        if total > MAX_SAMPLE_CHARS:
            raise ValueError(
                f"sample holds {total:,} characters; at most {MAX_SAMPLE_CHARS:,} are accepted "
                "(question + context + response + metadata): trim the context or split the response"
            )
        return self

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


class CascadeStop(_Frozen):
    """Where a sample left the cascade (``[cascade]``): the stage whose score it got, and the signals of
    the later stages, which it skipped because that score was sure enough. A skipped signal is not a
    missing one: it is not in ``TrustScore.signals``, does not make the result incomplete, and is no
    error."""

    stage: str
    stage_index: int = Field(ge=0)
    skipped: list[str] = Field(default_factory=list)


class TrustScore(_Frozen):
    """The fused verdict on one sample.

    ``score`` is P(the response is trustworthy), always within [0.01, 0.99]. It is calibrated only
    when ``calibrated`` is True (a fitted calibrator was loaded); otherwise it is the documented
    default combination of the available signals. It is ``None`` when no signal at all could be
    computed, or when ``degraded`` and the config asks for no score then (``fusion.on_missing``).
    """

    score: float | None = Field(ge=0.0, le=1.0)
    calibrated: bool
    signals: dict[str, Signal]
    reason: str | None = None
    """The strongest finding behind ``score``, in one line: "contradicted: 1935, the context says 1953
    (claims)", "judge lynx: FAIL", "supported by the context (embedding 0.91)", "abstained", "unscored:
    ...", "degraded: lynx timed out ..." (the ranking: :mod:`trustscore.scoring._reason`). None only on a
    result read from a file written before results carried it."""
    used_signals: list[str]
    """The signals that fed ``score``, in the order the fuser read them."""
    fusion: str
    """What produced ``score``: "default:logodds" or "calibrator:<name>@<version>"."""
    usage: Usage = Field(default_factory=Usage)
    seconds: float = 0.0
    complete: bool = True
    """False when a signal is missing for a reason a rerun may fix: see ``incomplete_signals``."""
    incomplete_signals: list[str] = Field(default_factory=list)
    """Signals cut by the time budget or missing for a transport or credential reason (server
    unreachable, overloaded or slow; API key unset or refused). A rerun may give them a value; a
    signal missing for a reason of the sample itself (no context) is not listed."""
    sample_id: str | None = None
    domain: DomainCheck | None = None
    """Inside the calibrator's domain or not (None when no calibrator with a recorded domain ran)."""
    not_calibrated_reason: str | None = None
    """Why ``calibrated`` is False, and what would make the score a calibrated probability (None
    when it is calibrated)."""
    interval: tuple[float, float] | None = None
    """90% interval of ``score`` left by the few labels an adapted calibrator was fitted on (the
    bootstrap uncertainty of its level and slope); None when no adaptation made the score."""
    cascade: CascadeStop | None = None
    """The stage the sample stopped at and the signals it skipped (None without a ``[cascade]``)."""
    degraded: bool = False
    """True when a signal the Scorer ran on this sample has no value (failed, timed out, unavailable,
    or had nothing to read): ``score`` then stands on fewer signals than configured, or is None
    (``fusion.on_missing = "none"``). :attr:`missing` says which signals and why. A signal a cascade
    skipped is not missing and does not make a result degraded. A signal that does not check a
    response because it declines to answer is not missing either: see :attr:`abstained`."""
    abstained: bool = False
    """True when the response declines to answer ("I don't know", "the passage does not say"): an
    outcome of its own, not a failure of the scorer. The signals that check words leave it unchecked
    (missing with an ``abstention`` reason, which does not make the result ``degraded``); whether
    declining was right is for ``score`` and the signals that read it (claims, a judge)."""
    config_source: str | None = None
    """Which config scored it: a TOML file's path, ``pyproject.toml [tool.trustscore]`` with its path,
    ``configure()``, the ``config=`` argument, a ``Config object`` passed in code, or ``default``
    (the offline default); docs/config.md, "Which config score() uses"."""

    @property
    def missing(self) -> dict[str, str]:
        """Missing signals and why: {name: reason}."""
        return {n: s.error or "" for n, s in self.signals.items() if s.value is None}

    def __str__(self) -> str:
        """One line under 200 characters: score, calibrated or not, the reason, the signals used
        (``model_dump()`` holds the rest)."""
        score = "no score" if self.score is None else f"{self.score:.2f}"
        head = f"TrustScore({score} {'calibrated' if self.calibrated else 'not calibrated'}: "
        used = ", ".join(self.used_signals) or "no signals"
        tail = f"; {used if len(used) <= 60 else f'{len(self.used_signals)} signals'})"
        reason = " ".join((self.reason or "no reason recorded").split())
        room = 199 - len(head) - len(tail)
        if len(reason) > room:
            reason = reason[: room - 3] + "..."
        return head + reason + tail

    __repr__ = __str__

    def __rich__(self) -> Any:
        """The line of :meth:`__str__` as plain text (rich would read "[claims]" as markup)."""
        from rich.text import Text

        return Text(str(self))
