"""The run summary counts the rows that hit a cache entry trustscore did not write, whatever the
shape of the signal's reason (a signal of several calls names the failures inside its own reason)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from trustscore import Signal, TrustScore
from trustscore.rows import ScoreRunSummary

UNSAFE = "UnsafeCacheEntry: cache entry d7faf7e4d5db in /c is not a ChatResult (1 errors)"


def result(error: str | None) -> TrustScore:
    signals = {"lexical": Signal(name="lexical", value=0.8)}
    if error is not None:
        signals["likert"] = Signal.failed("likert", error)
    return TrustScore(
        score=0.6,
        calibrated=False,
        signals=signals,
        used_signals=["lexical"],
        fusion="default:logodds",
        complete=error is None,
        incomplete_signals=[] if error is None else ["likert"],
    )


@pytest.mark.parametrize(
    "error", [UNSAFE, f"2 parallel calls failed: {UNSAFE}; {UNSAFE}"], ids=["one call", "parallel calls"]
)
def test_the_summary_says_how_many_rows_hit_an_unsafe_cache_entry(error: str) -> None:
    summary = ScoreRunSummary(output=Path("out.jsonl"), judges=["likert"])
    for r in (result(None), result(error), result(error)):
        summary.add(r)
    printed = io.StringIO()
    summary.print(printed)
    text = printed.getvalue()
    assert "cache: 2 row(s) hit a cache entry trustscore did not write" in text, text
    assert "incomplete 2" in text

