"""A response that declines to answer is an outcome of its own (``abstained``), not ``degraded``: the
signals that check words leave it unchecked, and the CLI summary and the service's metrics count it
apart from failures."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from scorer_fakes import FakeLocal

from trustscore import Config, Sample, Scorer, Signal
from trustscore.api._admission import Admission
from trustscore.api._metrics import ServiceMetrics
from trustscore.rows import ScoreRunSummary

pytestmark = pytest.mark.anyio

REFUSAL = "I don't know: the passage does not mention who paid for it."
CONTEXT = ["The Millbrook footbridge opened to the public in May 1998, after two years of work."]


class Declines(FakeLocal):
    """A word-checking signal that reads every response as an abstention, as the grounding ones do."""

    async def run(self, sample: Sample) -> Signal:
        reason = "abstention: the response declines to answer"
        return Signal.failed(self.name, reason, raw={"outcome": "abstention"})


async def test_a_correct_refusal_is_abstained_and_not_degraded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRUSTSCORE_CACHE_DIR", str(tmp_path))
    async with Scorer(Config()) as scorer:  # the offline default: the real grounding signals
        result = await scorer.score(question="Who paid for the bridge?", context=CONTEXT, response=REFUSAL)
    assert result.abstained is True and result.degraded is False
    assert result.missing.keys() >= {"lexical", "embedding"}
    assert all(r.startswith("abstention: the response declines to answer") for r in result.missing.values())


@pytest.mark.parametrize(
    "refusal", ["I'm not sure.", "I couldn't find that in the context.", "Not enough information."]
)
async def test_a_short_refusal_is_abstained_and_kept_out_of_the_error_band(
    refusal: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read word by word, a refusal holds no word of the context and scored like a wrong answer."""
    monkeypatch.setenv("TRUSTSCORE_CACHE_DIR", str(tmp_path))
    async with Scorer(Config()) as scorer:
        result = await scorer.score(question="Who paid for the bridge?", context=CONTEXT, response=refusal)
    assert result.abstained and not result.degraded and result.reason == "abstained"
    assert result.score is not None and result.score >= 0.5


async def test_a_refusal_that_goes_on_to_state_a_wrong_date_is_checked_and_flagged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An "I don't know" does not hide what follows it: the answer is checked like any other."""
    monkeypatch.setenv("TRUSTSCORE_CACHE_DIR", str(tmp_path))
    response = "I don't know, the passage says it opened in May 1989."
    async with Scorer(Config()) as scorer:
        result = await scorer.score(question="When did it open?", context=CONTEXT, response=response)
    assert not result.abstained and result.reason != "abstained"
    assert result.score is not None and result.score < 0.5


async def test_an_answer_is_not_abstained(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRUSTSCORE_CACHE_DIR", str(tmp_path))
    async with Scorer(Config()) as scorer:
        result = await scorer.score(question="When did it open?", context=CONTEXT, response="In May 1998.")
    assert result.abstained is False and result.degraded is False


async def test_an_abstention_beside_a_failed_signal_is_still_degraded_for_the_failure() -> None:
    failing = FakeLocal("broken", lambda s: (_ for _ in ()).throw(RuntimeError("boom")))
    config = Config.from_dict({"fusion": {"on_missing": "raise"}})
    scorer = Scorer(config, local_signals=[Declines("lexical"), FakeLocal("other", lambda s: 0.8)])
    result = await scorer.score(question="q", context=CONTEXT, response=REFUSAL)  # on_missing: no raise
    assert result.abstained and not result.degraded and result.score == pytest.approx(0.8, abs=0.01)
    both = Scorer(Config(), local_signals=[Declines("lexical"), failing])
    result = await both.score(question="q", context=CONTEXT, response=REFUSAL)
    assert result.abstained and result.degraded and "broken" in result.missing


async def test_the_cli_summary_and_the_metrics_count_it_apart() -> None:
    scorer = Scorer(Config(), local_signals=[Declines("lexical"), FakeLocal("other", lambda s: 0.8)])
    result = await scorer.score(question="q", context=CONTEXT, response=REFUSAL)
    summary = ScoreRunSummary(output=Path("out.jsonl"))
    summary.add(result)
    out = io.StringIO()
    summary.print(out)
    text = out.getvalue()
    assert "abstained: 1 of 1 row(s) decline to answer" in text and "\ndegraded:" not in text
    metrics = ServiceMetrics(Admission(max_in_flight=1, max_queued=1))
    metrics.record(result)
    rendered = metrics.render().decode()
    assert "trustscore_scores_abstained_total 1.0" in rendered
    assert 'trustscore_signal_missing_total{signal="lexical"}' not in rendered


async def test_the_summary_table_counts_abstentions_apart_from_missing() -> None:
    """An abstaining signal is not missing: the table's abstained column matches the abstained: line."""
    failing = FakeLocal("broken", lambda s: (_ for _ in ()).throw(RuntimeError("boom")))
    scorer = Scorer(Config(), local_signals=[Declines("lexical"), failing, FakeLocal("other", lambda s: 0.8)])
    summary = ScoreRunSummary(output=Path("out.jsonl"))
    summary.add(await scorer.score(question="q", context=CONTEXT, response=REFUSAL))
    summary.add(await scorer.score(question="q", context=CONTEXT, response=REFUSAL))
    out = io.StringIO()
    summary.print(out)
    rows = {line.split()[0]: line.split()[1:] for line in out.getvalue().splitlines() if line.strip()}
    assert rows["signal"] == ["n", "missing", "abstained", "mean", "value"]
    assert rows["lexical"] == ["2", "0", "2", "-"]
    assert rows["broken"] == ["2", "2", "0", "-"]
    assert rows["other"] == ["2", "0", "0", "0.800"]
    assert rows["score"][:4] == ["(fused)", "2", "0", "2"] and "abstained: 2 of 2 row(s)" in out.getvalue()


async def test_without_abstentions_the_table_has_no_abstained_column() -> None:
    scorer = Scorer(Config(), local_signals=[FakeLocal("other", lambda s: 0.8)])
    summary = ScoreRunSummary(output=Path("out.jsonl"))
    summary.add(await scorer.score(question="q", context=CONTEXT, response="It opened in May 1998."))
    out = io.StringIO()
    summary.print(out)
    assert "abstained" not in out.getvalue() and "missing" in out.getvalue()
