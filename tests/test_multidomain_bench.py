"""benchmarks.multidomain on generated scored rows: every table is computed and reads sensibly."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import benchmarks.multidomain as bench
from trustscore.fusion.scored import rows_from_dicts

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
                "response_words": int(rng.integers(20, 80)),
                "context_words": int(rng.integers(200, 600)),
            }
            embedding_raw = {"plain_q25": sim, "negation_mismatch": float(rng.random() < 0.1)}
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
    assert xsum["25"]["ece"]["median"] < xsum["25"]["base_ece_same_rows"]["median"], "labels fix the base rate"
    text = bench.report(result)
    assert "Leave one domain out" in text and "Few labels" in text and "false-alarm rate" in text
