"""benchmarks.quality.multidomain on generated scored rows: every table is computed and reads sensibly."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import benchmarks.quality.multidomain as bench
from trustscore.rows._scored import rows_from_dicts

DATASETS = {"ragtruth_qa": -1.0, "frank_cnndm": 0.0, "xsumfaith": 1.5, "factscore": 0.5}
"""Dataset -> shift of the log-odds of hallucinating (different base rates, same signal meaning)."""


def generated(per: int = 120, seed: int = 0) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    rows = []
    for d, shift in DATASETS.items():
        for i in range(per):
            hallucinated = bool(rng.random() < 1 / (1 + np.exp(-shift)))
            share = float(np.clip(rng.normal(0.35 if hallucinated else 0.15, 0.12), 0, 1))
            sim = float(np.clip(rng.normal(0.55 if hallucinated else 0.7, 0.1), 0, 1))
            lexical_raw = {
                "unsupported_share": share,
                "weighted_unsupported_share": share,
                "numbers_unsupported_share": float(rng.random() < share),
                "names_unsupported_share": None,
                "log_unsupported_weight": float(np.log1p(share * rng.integers(5, 30))),
                "sentence_max_unsupported_share": min(1.0, share * 1.5),
                "pairs_unsupported_share": float(rng.random()),
                "ordered_pairs_unsupported_share": float(rng.random()),
                "response_words": int(rng.integers(20, 80)),
                "context_words": int(rng.integers(200, 600)),
            }
            embedding_raw = {
                "min": sim - 0.1 * float(rng.random()),
                "plain_q25": sim,
                "negation_mismatch": float(rng.random() < 0.1),
            }
            rows.append(
                {
                    "id": f"{d}-{i}",
                    "score": None,
                    "calibrated": False,
                    "signals": {
                        "lexical": {"value": 1 - share, "raw": lexical_raw, "version": "v"},
                        "embedding": {"value": sim, "raw": embedding_raw, "version": "v"},
                    },
                    "hallucinated": hallucinated,
                    "dataset": d,
                    "source_id": f"{d}-doc{i // 4}",
                }
            )
    return rows


def test_every_table_is_computed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "ADAPT_DRAWS", 3)
    rows = rows_from_dicts(generated())
    result = bench.run(rows, adapt=True)
    assert set(result["signals"]["bag-of-words baseline"]) == {*DATASETS, "macro"}
    lodo = result["lodo"]
    assert set(lodo) == set(DATASETS)
    assert all(m["auroc"] > 0.7 for m in lodo.values()), lodo
    assert result["in_domain"]["false_alarm"] <= 0.15
    assert set(result["in_domain"]["per_domain"]) == set(DATASETS) - {"factscore"}, "never fitted on"
    xsum = result["adapt"]["xsumfaith"]
    adapted, unadapted = xsum["25"]["ece"]["median"], xsum["25"]["base_ece_same_rows"]["median"]
    assert adapted < unadapted, "labels fix the base rate"
    text = bench.report(result)
    assert "Leave one domain out" in text and "Few labels" in text and "false-alarm rate" in text


def test_nested_choice_uses_the_training_domains_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        bench,
        "CANDIDATES",
        {
            "noise": ["lexical:raw.pairs_unsupported_share|identity"],
            "share": ["lexical:raw.unsupported_share|identity"],
        },
    )
    rows = rows_from_dicts(generated())
    result = bench.nested(rows)
    assert set(result) == {*DATASETS, "shipped"}
    assert result["shipped"]["chosen"].startswith("share / ")
    for d in DATASETS:
        assert result[d]["chosen"].startswith("share / "), "the informative set wins on every split"
        assert result[d]["auroc"] > 0.7 and result[d]["baseline_auroc"] is not None
    held = bench._HeldOut(rows)
    table = bench.compare_candidates(held)
    assert set(table) == {f"{c} / {f}" for c in ("noise", "share") for f in bench.FITS}
    assert all(abs(per["macro"] - 0.5) < 0.1 for key, per in table.items() if key.startswith("noise"))
    full = bench.run(rows, adapt=False, candidates=True)
    assert full["nested"] == result and full["candidates"] == table
    assert all(m["chosen"] == "share" and m["auroc"] > 0.7 for m in full["within"].values())
    lengths = full["length"]["xsumfaith"]
    assert len(lengths["quarters"]) == 4 and all(0 <= q["hallucinated"] <= 1 for q in lengths["quarters"])
    assert all(a is not None and a > 0.6 for a in lengths["embedding_auroc_halves"])
    text = bench.report(full)
    assert "Nested" in text and "the rule on every shippable domain chooses: share / " in text
    assert "Within each domain" in text and "By response length" in text


def test_the_shipped_choice_is_a_candidate() -> None:
    assert bench.FEATURES in bench.CANDIDATES.values()
    assert bench.INTERCEPT_BY in bench.FITS.values()


def test_the_shipped_recipe_in_the_product_is_the_candidate_the_benchmark_chose() -> None:
    from trustscore.fitting import _shipped as shipped

    assert bench.CANDIDATES["+amount, worst sentence"] == shipped.FEATURES
    claims_set = "+amount+contradicted facts+unsupported, worst sentence, shrunk share"
    assert bench.CANDIDATES[claims_set] == shipped.FEATURES_CLAIMS
    assert bench.FITS["intercept per dataset"] == shipped.INTERCEPT_BY


def with_claims(rows: list[dict[str, Any]], seed: int = 1) -> list[dict[str, Any]]:
    """The rows with a claims signal whose contradicted facts mark hallucinations and whose contradicted
    polarity fires at random."""
    rng = np.random.default_rng(seed)
    for r in rows:
        facts = int(r["hallucinated"] and rng.random() < 0.4)
        polarity = int(rng.random() < 0.3)
        raw = {
            "contradicted": facts + polarity,
            "contradicted_facts": facts,
            "contradicted_polarity": polarity,
            "unsupported_share": float(rng.random()),
        }
        r["signals"]["claims"] = {"value": 0.15 ** (facts + polarity), "raw": raw, "version": "v"}
    return rows


def test_the_claims_tables_say_which_contradiction_marks_a_hallucination() -> None:
    rows = rows_from_dicts(with_claims(generated()))
    kinds = bench.contradiction_kinds(rows)
    assert set(kinds) == {*DATASETS, "all"}
    every = kinds["all"]
    assert every["facts_hallucinated"] == 1.0 and every["facts_rows"] > 0
    assert every["polarity_hallucinated"] is not None and every["polarity_hallucinated"] < 1.0
    table = bench.claims_before_after(rows)
    assert set(table) == {*DATASETS, "macro", "macro, shippable domains"}
    macro = table["macro"]
    assert set(macro) == set(bench.CLAIMS_SETS)
    assert macro["with contradicted facts"]["auroc"] > macro["without"]["auroc"]  # type: ignore[operator]
    assert macro["with contradicted facts"]["log_loss"] < macro["without"]["log_loss"]  # type: ignore[operator]
    text = bench.claims_report(rows)
    assert "contradicted polarity" in text and "| macro |" in text
