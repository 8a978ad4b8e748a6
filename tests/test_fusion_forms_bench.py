"""benchmarks.quality.fusion_forms: a fold never trains on extra rows of the held-out domain's documents
nor on corruptions of its contexts, and the extra fit set is fitted only beside the corruption fit set."""

from __future__ import annotations

from typing import Any

import pytest

import benchmarks.quality.fusion_forms as bench
from trustscore.rows._scored import rows_from_dicts


def _row(i: int, dataset: str, shares: list[str] | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {"id": f"x{i}", "score": None, "signals": {}, "dataset": dataset}
    if shares is not None:
        row["shares_documents_with"] = shares
    return row


def test_a_fold_leaves_out_every_extra_row_the_held_out_domains_source_shares() -> None:
    extra = rows_from_dicts(
        [
            _row(0, "factcc"),  # no field: its own domain only
            _row(1, "ragtruth_summary", ["ragtruth_summary", "factcc"]),  # a FactCC article
            _row(2, "frank_bbc", ["frank_bbc", "xsumfaith"]),
            _row(3, "ragtruth_qa", ["ragtruth_qa"]),
        ]
    )
    kept = {d: [r.id for r in bench.extra_for(extra, d)] for d in ("factcc", "xsumfaith", "ragtruth_qa")}
    assert kept == {
        "factcc": ["x2", "x3"],
        "xsumfaith": ["x0", "x1", "x3"],
        "ragtruth_qa": ["x0", "x1", "x2"],
    }
    assert [r.id for r in bench.extra_for(extra, "factscore")] == ["x0", "x1", "x2", "x3"]


def test_the_extra_fit_set_is_fitted_only_beside_the_corruption_fit_set() -> None:
    corruptions = rows_from_dicts([_row(9, "corruptions")])
    without = bench.forms((), extra=True)
    assert not any(takes for _, takes in without.values())
    with_both = bench.forms(corruptions, extra=True)
    assert [name for name, (_, takes) in with_both.items() if takes] == [
        f"{name}, + corruption and extra fit sets" for name in bench.WITH_EXTRA
    ]


def test_a_fold_leaves_out_the_corruptions_of_the_held_out_domains_contexts() -> None:
    corruptions = rows_from_dicts(
        [
            {**_row(i, "corruptions"), "context_domain": d}
            for i, d in enumerate(["xsumfaith", "factcc", "xsumfaith"])
        ]
    )
    assert [r.id for r in bench.corruptions_for(corruptions, "xsumfaith")] == ["x1"]
    assert [r.id for r in bench.corruptions_for(corruptions, "factscore")] == ["x0", "x1", "x2"]


def test_corruption_fit_rows_without_their_context_domain_are_refused() -> None:
    corruptions = rows_from_dicts([_row(0, "corruptions")])
    with pytest.raises(ValueError, match="context_domain"):
        bench.corruptions_for(corruptions, "xsumfaith")
