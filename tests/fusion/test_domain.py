"""The calibration domain: recorded at fit time, checked per sample, attached to every TrustScore."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from trustscore import Sample, Signal
from trustscore.cli import main as cli_main
from trustscore.fitting import fit_calibrator
from trustscore.fusion import FusionModel, save_model
from trustscore.fusion._domain import (
    PROBS,
    CalibrationDomain,
    _ordinal,
    describe_domain,
    lengths_of,
    outside_count,
)
from trustscore.rows._scored import ScoredRow, rows_from_dicts
from trustscore.scoring._scorer import Scorer
from trustscore.testing._synthetic import make_scored_rows, write_scored_jsonl

pytestmark = pytest.mark.anyio

FEATURES = ["distorted", "lexical:raw.numbers_unsupported|clip"]


def with_lengths(rows: list[dict[str, Any]], seed: int = 0) -> list[dict[str, Any]]:
    """Synthetic rows carrying a response of 10-40 words and a context of 100-300 words."""
    rng = np.random.default_rng(seed)
    for r in rows:
        r["response"] = " ".join(["word"] * int(rng.integers(10, 41)))
        r["context"] = [" ".join(["ctx"] * int(rng.integers(100, 301)))]
    return rows


@pytest.fixture(scope="module")
def rows() -> list[ScoredRow]:
    return rows_from_dicts(with_lengths(make_scored_rows(80, seed=3)))


@pytest.fixture(scope="module")
def fitted(rows: list[ScoredRow]) -> FusionModel:
    model, _ = fit_calibrator(
        rows, label="hallucinated", features=FEATURES, name="syn", data_name="syn.jsonl"
    )
    return model


def test_the_fit_records_quantiles_lengths_base_rate_and_data(
    fitted: FusionModel, rows: list[ScoredRow]
) -> None:
    d = fitted.domain
    assert d is not None
    assert d.data_name == "syn.jsonl" and d.data_sha256 == fitted.training.data_sha256
    assert d.n == len(rows)
    assert d.base_rate == pytest.approx(1 - fitted.training.positive_rate)
    names = [x.name for x in d.dimensions]
    assert names == [
        "distorted|logit",
        "lexical:raw.numbers_unsupported|clip",
        "response_words",
        "context_words",
    ]
    lo, hi = d.bounds(d.dimensions[2])
    assert 10 <= lo <= hi <= 40
    assert d.in_sample_alarm_rate <= 0.05


def test_a_two_word_answer_is_outside_with_the_reason(fitted: FusionModel) -> None:
    d = fitted.domain
    assert d is not None
    lo, _ = d.bounds(d.dimensions[2])
    reasons = d.check({"response_words": 2.0, "context_words": 200.0})
    assert reasons == [f"response has 2 words; calibration data's {_ordinal(d.tail)} is {lo:.0f}"]
    assert d.check({"response_words": 20.0, "context_words": 200.0}) == []
    absent = {"response_words": None, "context_words": float("nan")}
    assert d.check(absent) == [], "absent numbers are not checked"
    far = d.check({"context_words": 5000.0})
    _, hi = d.bounds(d.dimensions[3])
    assert far == [f"context has 5000 words; calibration data's {_ordinal(1 - d.tail)} is {hi:.0f}"]


def test_the_tail_is_the_widest_keeping_in_sample_alarms_under_five_percent() -> None:
    rng = np.random.default_rng(0)
    columns = {f"f{i}": rng.normal(size=1000) for i in range(6)}
    d = describe_domain(columns, np.ones(1000), data_name="x", data_sha256="0" * 64)
    assert d.tail < 0.025, "six independent dimensions at 2.5% tails flag about 26% of rows"
    assert d.in_sample_alarm_rate <= 0.05
    one = describe_domain({"f": rng.normal(size=400)}, np.ones(400), data_name="x", data_sha256="0" * 64)
    assert one.tail == 0.025


def test_an_inconsistent_domain_is_refused() -> None:
    good = describe_domain({"f": np.arange(100.0)}, np.ones(100), data_name="x", data_sha256="0" * 64)
    data = good.model_dump()
    data["dimensions"][0]["quantiles"] = data["dimensions"][0]["quantiles"][::-1]
    with pytest.raises(ValueError, match="must not decrease"):
        CalibrationDomain.model_validate(data)
    data = good.model_dump()
    data["tail"] = 0.3
    with pytest.raises(ValueError, match="tail"):
        CalibrationDomain.model_validate(data)
    assert len(good.probs) == len(PROBS)


def test_a_model_without_a_domain_keeps_its_old_hash(fitted: FusionModel) -> None:
    data = fitted.model_dump(mode="json")
    data["domain"] = None
    without = FusionModel.compute_hash(data)
    data.pop("domain")
    assert FusionModel.compute_hash(data) == without, "files fitted before domains existed still load"
    data["content_sha256"] = without
    assert FusionModel.model_validate(data).domain is None


def test_lengths_come_from_fields_or_from_a_signal_raw() -> None:
    assert lengths_of({"response": "a b c", "context": ["x y", "z"]}, []) == {
        "response_words": 3.0,
        "context_words": 3.0,
    }
    assert lengths_of({}, [{"response_words": 7, "context_words": 90}, None]) == {
        "response_words": 7.0,
        "context_words": 90.0,
    }
    assert lengths_of({}, [{"response_words": True}]) == {"response_words": None, "context_words": None}


class Replay:
    """A local signal returning fixed signals by name (same version as the synthetic rows)."""

    def __init__(self, name: str, value: float, raw: Any = None) -> None:
        self.name, self.version = name, "v1"
        self._signal = Signal(name=name, value=value, raw=raw, version="v1")

    async def run(self, sample: Sample) -> Signal:
        return self._signal


def scorer_for(model: FusionModel) -> Scorer:
    return Scorer(
        local_signals=[Replay("distorted", 0.5), Replay("lexical", 0.5, {"numbers_unsupported": 1})],
        fuser=model,
    )


async def test_the_scorer_attaches_the_check_and_withdraws_the_calibrated_claim_outside(
    fitted: FusionModel,
) -> None:
    scorer = scorer_for(fitted)
    inside = await scorer.score(
        question="q", context=[" ".join(["ctx"] * 200)], response=" ".join(["word"] * 20)
    )
    assert inside.domain is not None and inside.domain.inside and inside.domain.reasons == []
    assert inside.calibrated is True
    assert inside.domain.calibrator == fitted.description
    outside = await scorer.score(question="q", context=[" ".join(["ctx"] * 200)], response="It opened.")
    assert outside.domain is not None and not outside.domain.inside
    assert outside.domain.reasons[0].startswith("response has 2 words;")
    assert outside.calibrated is False
    assert outside.score == pytest.approx(inside.score), "the score is still returned"
    assert json.loads(outside.model_dump_json())["domain"]["inside"] is False


async def test_no_domain_check_without_a_recorded_domain(fitted: FusionModel) -> None:
    data = fitted.model_dump(mode="json")
    data.pop("domain")
    data["content_sha256"] = FusionModel.compute_hash(data)
    bare = FusionModel.model_validate(data)
    r = await scorer_for(bare).score(question="q", context=["c"], response="It opened.")
    assert r.domain is None and r.calibrated is True
    plain = Scorer(local_signals=[Replay("distorted", 0.5)])
    r = await plain.score(question="q", context=["c"], response="x y")
    assert r.domain is None


def test_outside_count_reads_scored_rows() -> None:
    fields = [{"domain": {"inside": True}}, {"domain": {"inside": False}}, {"domain": None}, {}]
    assert outside_count(fields) == (2, 1)


def test_cli_score_and_eval_report_the_share_outside(
    fitted: FusionModel,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import trustscore.cli._score as cli_score

    path = save_model(fitted, tmp_path / "syn.json")
    model = FusionModel.from_json(path.read_text())
    monkeypatch.setattr(cli_score, "build_scorer", lambda config, no_cache: scorer_for(model))
    inp = tmp_path / "in.jsonl"
    ctx = " ".join(["ctx"] * 200)
    lines = [
        {"id": "a", "question": "q", "context": [ctx], "response": " ".join(["w"] * 20), "hallucinated": 0},
        {"id": "b", "question": "q", "context": [ctx], "response": "Short one.", "hallucinated": 1},
    ]
    inp.write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = tmp_path / "scored.jsonl"
    assert cli_main(["score", str(inp), "-o", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "outside the calibration domain: 1 of 2 row(s) (50.0%" in " ".join(text.split())
    scored = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["domain"]["inside"] for r in scored] == [True, False]
    assert cli_main(["eval", str(out), "--label", "hallucinated"]) == 0
    assert "outside the calibration domain: 1 of 2 rows (50.0%)" in " ".join(capsys.readouterr().out.split())


def test_write_scored_jsonl_rows_round_trip_the_lengths(tmp_path: Path) -> None:
    rows = with_lengths(make_scored_rows(3, seed=1))
    text = write_scored_jsonl(tmp_path / "s.jsonl", rows).read_text()
    back = rows_from_dicts(json.loads(x) for x in text.splitlines())
    assert lengths_of(back[0].fields, [])["response_words"] == len(rows[0]["response"].split())


@pytest.mark.parametrize(
    ("p", "text"),
    [(0.01, "1st"), (0.99, "99th"), (0.995, "99.5th"), (0.0025, "0.25th"), (0.025, "2.5th"), (0.5, "50th")],
)
def test_percentiles_read_as_english(p: float, text: str) -> None:
    assert _ordinal(p) == f"{text} percentile"
