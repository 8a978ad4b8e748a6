"""The one line a result leads with: its strongest finding (``TrustScore.reason``).

The findings are ranked, strongest first, and the first that applies is the reason:

1. ``abstained``: the response declines to answer (a signal's ``raw`` outcome is ``abstention``);
2. ``unscored: <why>``: there is no score (every signal missing, or ``fusion.on_missing = "none"``);
3. ``contradicted: 1935, the context says 1953 (claims)``: a number, amount, date or name that a check
   found stated otherwise in the context (a span labelled ``contradicted <kind>: ...``);
4. ``judge lynx: FAIL``: the verdict of the most confident judge on the score's side (``pass`` at 0.5
   and above, ``fail`` below);
5. a contradicted negation or predicate, on the fail side only: on real answers those are weak
   evidence (docs/calibration.md, "How a contradicted fact enters the score"), so they name a low score
   but never lead a passing one;
6. ``degraded: lynx timed out after 30s ...``: a signal missing for a reason a rerun may fix;
7. ``supported by the context (embedding 0.91)`` / ``not supported by the context (lexical 0.12)``:
   the strongest other signal on the score's side;
8. ``below the line on the signals together (lexical 0.62, embedding 0.55)`` (or above it): no signal
   stands on the score's side alone; the two nearest to it are named, or with only one present, that
   one and the first missing signal, which the fusion read as its average (``above the line on
   embedding 0.21 and lexical at its average (lexical: the response has no content words ...)``).

Each part of a reason is cut to one line of at most :data:`MAX_CHARS` characters.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from trustscore._types import Signal
from trustscore.grounding.claims._check import POLARITY_KINDS

__all__ = ["MAX_CHARS", "top_reason"]

MAX_CHARS = 140
"""The longest reason: a finding longer than this (a long name, a judge's long verdict) is cut."""

_SPACE = re.compile(r"\s+")


def top_reason(
    score: float | None,
    signals: Mapping[str, Signal],
    *,
    judges: Collection[str] = (),
    incomplete: Collection[str] = (),
) -> str:
    """The strongest finding behind ``score`` (see the module's ranking). ``judges``: the signals that
    are LLM judges; ``incomplete``: the signals missing for a reason a rerun may fix."""
    if any(_outcome(s) == "abstention" for s in signals.values()):
        return "abstained"
    if score is None:
        return _short(f"unscored: {_why_unscored(signals)}")
    passing = score >= 0.5
    facts, polarity = _contradictions(signals)
    found = (
        facts[:1]
        or _judge_verdict(signals, judges, passing)
        or (polarity[:1] if not passing else [])
        or [f"degraded: {_named(n, signals[n].error, ' ')}" for n in incomplete if n in signals][:1]
        or _strongest_support(signals, judges, passing)
    )
    return _short(found[0] if found else _together(signals, judges, passing))


def _outcome(signal: Signal) -> str | None:
    raw = signal.raw
    outcome = raw.get("outcome") if isinstance(raw, dict) else None
    return outcome if isinstance(outcome, str) else None


def _why_unscored(signals: Mapping[str, Signal]) -> str:
    """Why the response went unread (another language: every signal's outcome), or the first missing
    signal and its reason."""
    missing = {name: s for name, s in signals.items() if s.missing}
    screened = [s for s in missing.values() if _outcome(s) == "other_language"]
    if screened:
        return _first_clause(screened[0].error)
    if not missing:
        return "no signal was run"
    name, signal = next(iter(missing.items()))
    return _named(name, signal.error, ": ")


def _contradictions(signals: Mapping[str, Signal]) -> tuple[list[str], list[str]]:
    """The contradictions the signals' spans name, as reasons: values first, polarity apart."""
    facts: list[str] = []
    polarity: list[str] = []
    for name, signal in signals.items():
        for span in signal.spans:
            head, sep, found = (span.label or "").partition(": ")
            outcome, _, kind = head.partition(" ")
            if outcome != "contradicted" or not sep:
                continue
            said, sep, context = found.partition(": ")
            reason = f"contradicted: {said}, {context} ({name})" if sep else f"contradicted: {found} ({name})"
            (polarity if kind in POLARITY_KINDS else facts).append(reason)
    return facts, polarity


def _judge_verdict(signals: Mapping[str, Signal], judges: Collection[str], passing: bool) -> list[str]:
    """The verdict of the most confident judge that agrees with the score's side (ties: first named)."""
    agreeing = [
        (abs(s.value - 0.5), name, s)
        for name, s in signals.items()
        if name in judges and s.value is not None and (s.value >= 0.5) == passing
    ]
    if not agreeing:
        return []
    _, name, signal = max(agreeing, key=lambda item: item[0])
    if isinstance(signal.raw, str) and signal.raw.strip():
        return [f"judge {name}: {signal.raw.strip()}"]
    return [f"judge {name}: {'PASS' if passing else 'FAIL'} ({signal.value:.2f})"]


def _strongest_support(signals: Mapping[str, Signal], judges: Collection[str], passing: bool) -> list[str]:
    """The signal (not a judge) furthest on the score's side."""
    sided = [
        (s.value, name)
        for name, s in signals.items()
        if name not in judges and s.value is not None and (s.value >= 0.5) == passing
    ]
    if not sided:
        return []
    value, name = max(sided) if passing else min(sided)
    said = "supported by the context" if passing else "not supported by the context"
    return [f"{said} ({name} {value:.2f})"]


def _together(signals: Mapping[str, Signal], judges: Collection[str], passing: bool) -> str:
    """No signal on the score's side alone: the two closest to it, which the fusion weighed together.
    With one present, the first missing one is named with it: the fusion read it as its average, and
    that is what put the score on its side ("r" as an answer: lexical has nothing to check)."""
    local = {name: s for name, s in signals.items() if name not in judges}
    valued = sorted(((s.value, name) for name, s in local.items() if s.value is not None), reverse=passing)
    named = ", ".join(f"{name} {value:.2f}" for value, name in valued[:2])
    missing = [name for name, s in local.items() if s.value is None]
    side = "above" if passing else "below"
    if len(valued) == 1 and missing:
        absent = missing[0]
        why = _named(absent, local[absent].error, ": ")
        return f"{side} the line on {named} and {absent} at its average ({why})"
    return f"{side} the line on the signals together ({named})" if named else f"{side} the line"


def _first_clause(error: str | None) -> str:
    return (error or "no value").split(";")[0].strip()


def _named(name: str, error: str | None, joint: str) -> str:
    """The signal's name and the first clause of its error, the name once where the error opens with it
    ("likert call failed: ..." is not "likert likert call failed: ...")."""
    clause = _first_clause(error)
    return clause if clause.startswith(f"{name} ") else f"{name}{joint}{clause}"


def _short(text: str) -> str:
    flat = _SPACE.sub(" ", text).strip()
    return flat if len(flat) <= MAX_CHARS else flat[: MAX_CHARS - 3].rstrip() + "..."
