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


def test_pooled_fits_every_shippable_domain_and_measures_each_row_out_of_fold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = rows_from_dicts(
        [
            {**_row(i, dataset), "source_id": f"s{i // 2}", "hallucinated": i % 2 == 0}
            for i, dataset in enumerate(["factcc"] * 10 + ["factscore"] * 10 + ["ragtruth_qa"] * 10)
        ]
    )
    fits: list[tuple[set[str], set[str]]] = []

    def fit(train: Any) -> Any:
        def predict(test: Any) -> Any:
            fits.append(({r.fields["source_id"] for r in train}, {r.fields["source_id"] for r in test}))
            return bench.np.array([0.0 if r.fields["hallucinated"] else 1.0 for r in test])

        assert {r.fields["dataset"] for r in train} == {"factcc", "ragtruth_qa"}  # FActScore: never fitted on
        return predict

    monkeypatch.setattr(bench, "forms", lambda corruptions, extra=False: {"oracle": (fit, False)})
    table = bench.pooled(rows)
    assert len(fits) == 5 and all(not (train & test) for train, test in fits)  # a document on one side
    assert set().union(*(test for _, test in fits)) == {f"s{i}" for i in range(15)}  # every row measured
    assert table["oracle"] == {"factcc": 1.0, "factscore": 1.0, "ragtruth_qa": 1.0, "macro": 1.0}
    assert set(table) == {"oracle", "lexical alone", "embedding alone", "claims alone"}
