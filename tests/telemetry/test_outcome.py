"""A result's outcome as OpenTelemetry sees it: each outcome field on the score's span
(``trustscore.<field>``), the reason and calibration in the fused evaluation event's explanation, an
abstention labelled ``abstained`` (not an error), and the metrics counting it apart from failures; the
same through the Logs API's records (the SDK's in-memory exporters)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from scorer_fakes import FakeLocal

from tests.telemetry.conftest import Recorded
from trustscore import Config, Sample, Scorer, Signal, telemetry

pytestmark = pytest.mark.anyio

REFUSAL = "I don't know: the passage does not mention who paid for it."
CONTEXT = ["The Millbrook footbridge opened to the public in May 1998, after two years of work."]


class Declines(FakeLocal):
    """A word-checking signal that reads the response as an abstention, as the grounding ones do."""

    async def run(self, sample: Sample) -> Signal:
        return Signal.failed(
            self.name, "abstention: the response declines to answer", raw={"outcome": "abstention"}
        )


def broken(sample: Sample) -> float:
    raise RuntimeError("boom")


def refusal_scorer() -> Scorer:
    """An abstaining signal, one that answers and one that fails: abstained AND degraded."""
    signals = [Declines("lexical"), FakeLocal("other", lambda s: 0.8), FakeLocal("broken", broken)]
    return Scorer(Config(), local_signals=signals)


def spans_by_name(recorded: Recorded) -> dict[str, Any]:
    return {s.name: s for s in recorded.spans.get_finished_spans()}


def counter(recorded: Recorded, name: str) -> dict[tuple[tuple[str, Any], ...], int]:
    return {tuple(sorted(p.attributes.items())): p.value for p in recorded.metric_points(name)}  # type: ignore[attr-defined]


async def test_the_score_span_carries_every_outcome_field(recorded: Recorded) -> None:
    async with refusal_scorer() as scorer:
        result = await scorer.score(question="Who paid for the bridge?", context=CONTEXT, response=REFUSAL)
    assert result.abstained and result.degraded and not result.calibrated
    a = spans_by_name(recorded)["trustscore.score"].attributes
    assert a["trustscore.abstained"] is True and a["trustscore.degraded"] is True
    assert a["trustscore.calibrated"] is False
    assert a["trustscore.not_calibrated_reason"] == result.not_calibrated_reason
    assert a["trustscore.reason"] == result.reason == "abstained"
    assert a["trustscore.config_source"] == result.config_source == "Config object"
    assert a["trustscore.score"] == result.score and a["trustscore.complete"] is result.complete


async def test_an_answer_is_not_abstained_on_its_span(recorded: Recorded) -> None:
    async with Scorer(Config(), local_signals=[FakeLocal("other", lambda s: 0.8)]) as scorer:
        await scorer.score(question="When did it open?", context=CONTEXT, response="In May 1998.")
    a = spans_by_name(recorded)["trustscore.score"].attributes
    assert a["trustscore.abstained"] is False and a["trustscore.degraded"] is False
    assert "trustscore.incomplete_signals" not in a


async def test_the_config_source_is_the_toml_file_that_scored(recorded: Recorded, tmp_path: Path) -> None:
    toml = tmp_path / "trustscore.toml"
    toml.write_text("[signals.embedding]\nenabled = false\n[signals.claims]\nenabled = false\n")
    async with Scorer.from_config(toml, no_cache=True) as scorer:  # lexical alone: it reads the refusal
        result = await scorer.score(question="Who paid for the bridge?", context=CONTEXT, response=REFUSAL)
    spans = spans_by_name(recorded)
    assert (
        spans["trustscore.score"].attributes["trustscore.config_source"] == str(toml) == result.config_source
    )
    assert spans["trustscore.score"].attributes["trustscore.abstained"] is True
    lexical = spans["signal lexical"]
    assert lexical.status.status_code.name != "ERROR"  # declining is an outcome, not a failure
    assert lexical.attributes["trustscore.signal.abstained"] is True
    (event,) = [dict(e.attributes) for e in lexical.events if e.name == telemetry.EVALUATION_EVENT]
    assert event["gen_ai.evaluation.score.label"] == "abstained" and "error.type" not in event
    (fused,) = [dict(e.attributes) for e in spans["trustscore.score"].events]
    assert fused["gen_ai.evaluation.explanation"] == f"abstained; not calibrated; fusion {result.fusion}"


async def test_span_events_label_an_abstention_and_mark_a_failure(recorded: Recorded) -> None:
    async with refusal_scorer() as scorer:
        result = await scorer.score(question="Who paid for the bridge?", context=CONTEXT, response=REFUSAL)
    spans = spans_by_name(recorded)
    boom = result.signals["broken"].error
    assert spans["signal broken"].status.status_code.name == "ERROR"
    assert spans["signal lexical"].status.status_code.name != "ERROR"
    events = {
        s.name: dict(e.attributes)
        for s in spans.values()
        for e in s.events
        if e.name == telemetry.EVALUATION_EVENT
    }
    assert events["signal broken"]["error.type"] == "missing"
    assert events["signal lexical"]["gen_ai.evaluation.score.label"] == "abstained"
    fused = events["trustscore.score"]["gen_ai.evaluation.explanation"]
    assert fused == f"abstained; not calibrated; fusion {result.fusion}; degraded, missing broken: {boom}"


async def test_metrics_count_an_abstention_apart_from_missing_signals(recorded: Recorded) -> None:
    async with refusal_scorer() as scorer:
        await scorer.score(question="Who paid for the bridge?", context=CONTEXT, response=REFUSAL)
    assert sum(counter(recorded, "trustscore.score.abstained").values()) == 1
    assert sum(counter(recorded, "trustscore.score.degraded").values()) == 1
    assert counter(recorded, "trustscore.signal.missing") == {(("trustscore.signal", "broken"),): 1}


async def test_log_records_carry_the_outcome_where_the_conventions_have_a_place(
    recorded_logs: tuple[Recorded, Any],
) -> None:
    recorded, logs = recorded_logs
    async with refusal_scorer() as scorer:
        result = await scorer.score(question="Who paid for the bridge?", context=CONTEXT, response=REFUSAL)
    records = {
        r.log_record.attributes["gen_ai.evaluation.name"]: r.log_record for r in logs.get_finished_logs()
    }
    assert set(records) == {"lexical", "other", "broken", telemetry.FUSED_NAME}
    fused = records[telemetry.FUSED_NAME].attributes
    assert fused["gen_ai.evaluation.score.value"] == result.score
    explanation = fused["gen_ai.evaluation.explanation"]
    assert explanation.startswith(f"abstained; not calibrated; fusion {result.fusion}")
    lexical = records["lexical"].attributes
    assert lexical["gen_ai.evaluation.score.label"] == "abstained" and "error.type" not in lexical
    assert lexical["gen_ai.evaluation.explanation"].startswith("abstention: the response declines")
    assert records["broken"].attributes["error.type"] == "missing"
    score_span = spans_by_name(recorded)["trustscore.score"]
    assert records[telemetry.FUSED_NAME].span_id == score_span.context.span_id
    assert score_span.attributes["trustscore.abstained"] is True  # the span still carries every field
