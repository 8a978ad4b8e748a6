"""A run summary built in shares (``score --ray``'s actors each count their batches) adds up to the
summary of the whole run counted in one place, and a batch Ray runs again is counted once."""

from __future__ import annotations

import dataclasses
import io

from trustscore import Signal, TrustScore, Usage
from trustscore._types import CascadeStop, DomainCheck
from trustscore.ray._collector import RunCollector
from trustscore.rows import ScoreRunSummary
from trustscore.rows._summary import _COUNTED, _SUMMED

JUDGES = ["lynx", "likert"]


def _result(i: int) -> TrustScore:
    """Results of every kind a summary counts apart, varied by ``i`` (values sum exactly in binary)."""
    judges_down = i % 4 == 0
    signals = {
        "lexical": Signal(name="lexical", value=(i % 4) / 4),
        "lynx": Signal.failed("lynx", "ConnectError: refused")
        if judges_down
        else Signal(name="lynx", value=0.75),
        "likert": Signal.failed("likert", "HTTP 500") if judges_down else Signal(name="likert", value=0.5),
    }
    if i % 5 == 0:
        signals["claims"] = Signal(
            name="claims", error="the response declines", raw={"outcome": "abstention"}
        )
    used = [n for n, s in signals.items() if s.value is not None]
    return TrustScore(
        score=None if i % 7 == 0 else 0.25 + (i % 3) / 4,
        calibrated=i % 3 == 0,
        signals=signals,
        used_signals=used,
        fusion="default:logodds" if i % 2 else "calibrator:local@1",
        usage=Usage(requests=2 * i, prompt_tokens=10 * i, completion_tokens=i, cache_hits=i % 2),
        complete=not judges_down,
        incomplete_signals=["lynx"] if judges_down else [],
        degraded=judges_down,
        abstained=i % 5 == 0,
        not_calibrated_reason=None if i % 3 == 0 else f"reason {i % 2}",
        domain=DomainCheck(
            inside=i % 6 != 1, reasons=[] if i % 6 != 1 else ["response has 2 words; x"], calibrator="c"
        ),
        cascade=CascadeStop(
            stage="cheap" if i % 2 else "full", stage_index=i % 2, skipped=["likert"] if i % 2 else []
        ),
    )


def _counted(results: range, errors: range) -> ScoreRunSummary:
    summary = ScoreRunSummary(output="", judges=JUDGES)
    for i in results:
        summary.add(_result(i))
    for line in errors:
        summary.add_error(line, f"bad row {line}")
    return summary


def test_shares_merged_equal_the_whole_run_counted_at_once() -> None:
    whole = _counted(range(40), range(3))
    run = ScoreRunSummary(output="out.jsonl", judges=JUDGES, skipped=5)
    for share in (_counted(range(0, 13), range(1)), _counted(range(13, 40), range(1, 3))):
        run.merge(share)
    whole.output, whole.skipped = "out.jsonl", 5
    assert run == whole
    printed = [io.StringIO(), io.StringIO()]
    run.print(printed[0])
    whole.print(printed[1])
    assert printed[0].getvalue() == printed[1].getvalue()


def test_every_field_of_the_summary_is_merged_or_the_runs_own() -> None:
    own = {"output", "judges", "skipped", "kept_incomplete", "seconds"}
    merged_by_hand = {
        "signals",
        "skipped_signals",
        "judges_down_transient",
        "judge_failure",
        "first_error",
        "cascade",
    }
    fields = {f.name for f in dataclasses.fields(ScoreRunSummary)}
    assert fields == own | merged_by_hand | set(_SUMMED) | set(_COUNTED), "say how merge adds a new field"


def test_the_collector_counts_a_batch_run_again_once_and_says_each_skipped_signal_once() -> None:
    collector = RunCollector()
    collector.add("batch:a", _counted(range(4), range(0)))
    collector.add("batch:b", _counted(range(4, 8), range(1)))
    collector.add("batch:a", _counted(range(4), range(0)))  # its actor died after reporting it
    collector.note({"claims": "claims needs spaCy"})
    collector.note({"claims": "another actor's words"})
    summary = collector.summary(ScoreRunSummary(output="o", judges=JUDGES))
    assert (summary.scored, summary.errors) == (8, 1)
    assert summary.skipped_signals == {"claims": "claims needs spaCy"}
