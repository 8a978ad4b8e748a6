"""The corpus builder: whole documents per domain, RAGTruth rows mapped, missing sources named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibration.build_corpus import (
    SHIPPABLE,
    SourceMissing,
    build,
    ragtruth,
    sample_by_group,
    select_extra,
)

_ARTICLE = " ".join(f"word{i} of the article about the harbour in {1900 + i}" for i in range(40))


def test_sample_by_group_keeps_documents_whole_and_caps_each() -> None:
    rows = [{"id": f"{g}-{i}", "source_id": f"doc{g}"} for g in range(30) for i in range(10)]
    out = sample_by_group(rows, 50, seed=1)
    assert len(out) == 50
    per_doc: dict[str, int] = {}
    for r in out:
        per_doc[r["source_id"]] = per_doc.get(r["source_id"], 0) + 1
    assert max(per_doc.values()) <= 8 and len(per_doc) >= 7
    assert sample_by_group(rows, 50, seed=1) == out, "seeded: the same corpus every time"


def test_ragtruth_rows_are_mapped_by_task(tmp_path: Path) -> None:
    folder = tmp_path / "ragtruth"
    folder.mkdir()
    row = {"id": "r1", "source_id": "7", "task": "QA", "question": "q?", "context": ["c"], "response": "a",
           "hallucinated": True}
    (folder / "test.jsonl").write_text(json.dumps(row) + "\n")
    (folder / "train_extra.jsonl").write_text(json.dumps({**row, "id": "r2", "task": "Data2txt"}) + "\n")
    got = list(ragtruth(tmp_path))
    assert [(r["dataset"], r["source_id"], r["hallucinated"]) for r in got] == [
        ("ragtruth_qa", "ragtruth-7", True),
        ("ragtruth_data2txt", "ragtruth-7", True),
    ]
    assert {r["dataset"] for r in got} <= SHIPPABLE and all(r["licence"] == "MIT" for r in got)


def test_missing_sources_are_named(tmp_path: Path) -> None:
    with pytest.raises(SourceMissing, match="ragtruth"):
        build(tmp_path, tmp_path, 10)
    (tmp_path / "ragtruth").mkdir()
    for split in ("test", "train_extra"):
        (tmp_path / "ragtruth" / f"{split}.jsonl").write_text("")
    with pytest.raises(SourceMissing, match="fetch github:artidoro/frank"):
        build(tmp_path, tmp_path / "mirrors", 10)


def _row(dataset: str, doc: str, context: str, n: int = 0) -> dict[str, object]:
    return {"id": f"{dataset}-{doc}-{n}", "dataset": dataset, "source_id": f"{dataset}-{doc}",
            "context": [context], "hallucinated": n % 2 == 0}


def test_extra_rows_hold_no_corpus_document_however_tokenized() -> None:
    other = _ARTICLE.replace("harbour", "station")
    corpus = [_row("factcc", "a", _ARTICLE)]
    retyped = _ARTICLE.replace(" of ", "  of ").upper()
    by_domain = {
        "frank_cnndm": [_row("frank_cnndm", "x", retyped, n) for n in range(3)]
        + [_row("frank_cnndm", "y", other, n) for n in range(3)],
        "factcc": [_row("factcc", "a", _ARTICLE, 1), _row("factcc", "b", other)],
    }
    out = select_extra(by_domain, corpus, per_domain=10, seed=0)
    assert {r["source_id"] for r in out} == {"frank_cnndm-y", "factcc-b"}, "the corpus article is out"
    assert all(r["shares_documents_with"] == ["factcc", "frank_cnndm"] for r in out), (
        "each row names every domain whose source holds its document, so a fold holding either out drops it"
    )
    assert [r["dataset"] for r in out[:2]] == ["factcc", "frank_cnndm"], "domains interleaved"


def test_a_training_only_domain_is_held_out_with_its_corpus_domain() -> None:
    by_domain = {"frank_bbc": [_row("frank_bbc", "z", _ARTICLE)], "xsumfaith": []}
    (row,) = select_extra(by_domain, [], per_domain=10, seed=0)
    assert row["shares_documents_with"] == ["frank_bbc", "xsumfaith"]
