"""benchmarks.quality.calibration_claims on generated rows: the task-kind detector, EM, every way measured."""

from __future__ import annotations

import json

import numpy as np
import pytest

import benchmarks.quality.adapted_claims as adapted
import benchmarks.quality.calibration_claims as bench
from tests.test_multidomain_bench import DATASETS, generated
from trustscore.rows._scored import rows_from_dicts

SHAPES = {
    "ragtruth_qa": ("who built the bridge", ["The bridge was built in 1998 by the council."]),
    "frank_cnndm": ("Summarize the following news article.", ["(CNN) A bridge opened."]),
    "xsumfaith": ("", ["A bridge opened."]),
    "factscore": ("When was he born?", ["He was born in 1970."]),
}


def test_the_task_kind_is_read_from_the_shape_of_the_sample() -> None:
    assert bench.task_kind("Write an overview of the business.", [json.dumps({"name": "Cafe"})]) == "data2txt"
    assert bench.task_kind("Summarize the following news article.", ["Text."]) == "summary"
    assert bench.task_kind("", ["Text."]) == "summary"
    assert bench.task_kind("who won the cup in 1998", ["Text."]) == "qa"
    turns = "User: hi\nAssistant: hello\nUser: where is it?\nAssistant: there"
    assert bench.task_kind("Reply to the user.", [turns]) == "dialogue"


def test_em_recovers_a_shifted_base_rate_when_only_the_base_rate_moved() -> None:
    rng = np.random.default_rng(0)
    n, train_prior, true_prior = 4000, 0.5, 0.8
    y = rng.random(n) < true_prior
    x = np.where(y, rng.normal(1.0, 1.0, n), rng.normal(-1.0, 1.0, n))
    p_trust = 1 / (1 + np.exp(-2.0 * x))  # the posterior under a 50% prior for these two normals
    assert abs(bench.em_prior(p_trust, train_prior) - true_prior) < 0.03


def test_every_way_is_measured_per_domain_and_no_claim_always_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "FLOOR_SIZES", (300,))
    raw = generated(per=80)
    for r in raw:
        question, context = SHAPES[r["dataset"]]
        r["question"], r["context"] = question, context
    result = bench.run(rows_from_dicts(raw))
    assert result["detector"]["ragtruth_qa"]["accuracy"] == 1.0
    assert set(result["lodo"]["pooled intercept"]) == set(DATASETS)
    never = result["lodo"]["no claim (ranking score)"]
    assert all(m["claimed"] == 0 and m["holds"] for m in never.values())
    text = bench.report(result)
    assert 0.03 < result["floor"][300]["median"] < 0.10, "a calibrated score still shows some ECE on 300 rows"
    assert "## Leave one domain out" in text and "## In-domain" in text and "EM base rate" in text


def test_the_adaptation_table_counts_claims_and_verdicts_per_domain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(adapted, "ADAPT_SIZES", (25, 50))
    monkeypatch.setattr(adapted, "ADAPT_DRAWS", 2)
    raw = generated(per=80)
    for r in raw:
        question, context = SHAPES[r["dataset"]]
        r["question"], r["context"] = question, context
    rows = rows_from_dicts(raw)
    result = adapted.adapted_claims(rows)
    assert set(result) == set(DATASETS) and all(set(per) == {"25", "50"} for per in result.values())
    for per in result.values():
        for draws in per.values():
            assert len(draws) == 2
            for d in draws:
                assert d["claims"] == (d["reason"] is None)
                assert d["claimed"] <= d["inside"] <= d["rows"]
                assert d["claims"] or d["claimed"] == 0
    shuffled = adapted.adapted_claims(rows, shuffled=True)
    assert set(shuffled) == set(DATASETS)
    text = "\n".join(adapted.adapted_report(result))
    assert "| domain | labels | draws claiming |" in text and "| ragtruth_qa | 25 |" in text


def test_rows_the_offline_model_gives_no_score_are_left_out() -> None:
    """An abstention or an answer in another language has no lexical or embedding value: measured, its
    NaN would make every intercept and base rate fitted over it NaN."""
    raw = generated(per=5)
    for name in ("lexical", "embedding"):
        raw[0]["signals"][name] = {"value": None, "error": "abstention", "raw": {"outcome": "abstention"}}
    raw[1]["signals"]["embedding"] = {"value": None, "error": "embedder not loaded"}
    kept = bench.scored_offline(rows_from_dicts(raw))
    assert [r.id for r in kept] == [r["id"] for r in raw[1:]]
