"""IdIndex: exact answers with forced hash collisions; the CLI's duplicate refusal and resume on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scorer_fakes import FakeLocal

import trustscore.cli._score as cli_score
import trustscore.rows._ids as ids_module
from trustscore import Config, Scorer
from trustscore.cli import main
from trustscore.rows import IdIndex


@pytest.fixture(params=["python hash", "two hashes", "one hash"])
def tiny_hash(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run each test with the real hash, with every id in one of two hashes, and with one hash for all."""
    if request.param == "two hashes":
        monkeypatch.setattr(ids_module, "_id_hash", lambda text: len(text) % 2)
    elif request.param == "one hash":
        monkeypatch.setattr(ids_module, "_id_hash", lambda text: 7)


@pytest.mark.usefixtures("tiny_hash")
def test_add_get_and_set_are_exact_under_collisions() -> None:
    index = IdIndex()
    texts = [f"s{i}" for i in range(300)] + ["", "é", "s1 ", "S1", "\ud800"]
    for n, text in enumerate(texts):
        assert index.add(text, n) is None
    assert len(index) == len(texts)
    for n, text in enumerate(texts):
        assert index.get(text) == n and text in index
        assert index.add(text, -5) == n  # already there: unchanged
    assert index.get("s300") is None and "s300" not in index and 3 not in index
    index.set("s3", 99)
    index.set("new", 1)
    assert index.get("s3") == 99 and index.get("new") == 1 and len(index) == len(texts) + 1
    assert list(index.items())[:2] == [("s0", 0), ("s1", 1)] and list(index)[-1] == "new"


@pytest.mark.usefixtures("tiny_hash")
def test_the_cli_refuses_a_duplicate_id_and_resumes_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[str | None] = []

    def value(sample: object) -> float:
        seen.append(sample.id)
        return 0.5

    def build(config: Path | None, *, no_cache: bool) -> Scorer:
        return Scorer(Config(), judges=[], local_signals=[FakeLocal("x", value)])

    monkeypatch.setattr(cli_score, "build_scorer", build)
    row = {"question": "q?", "context": ["c."], "response": "r."}
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    lines = [{"id": f"s{i}", **row} for i in range(12)]
    src.write_text("".join(json.dumps(r) + "\n" for r in [*lines, {"id": "s4", **row}]), encoding="utf-8")
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 2
    assert "in.jsonl:13: id 's4' already used on line 5" in capsys.readouterr().err
    assert not seen

    src.write_text("".join(json.dumps(r) + "\n" for r in lines[:7]), encoding="utf-8")
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 0
    assert sorted(seen) == sorted(f"s{i}" for i in range(7))
    seen.clear()
    # An earlier incomplete row is kept and skipped; the ids not yet written are scored, nothing else.
    with out.open("a", encoding="utf-8") as f:
        f.write(json.dumps({"id": "s9", "trustscore": "result/1", "complete": False}) + "\n")
    src.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 0
    assert sorted(seen) == ["s10", "s11", "s7", "s8"]
    assert "scored 4, skipped 7 already done" in capsys.readouterr().out
    seen.clear()
    assert main(["score", str(src), "-o", str(out), "--no-progress", "--retry-incomplete"]) == 0
    assert seen == ["s9"]
    written = [json.loads(x)["id"] for x in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(written) == sorted(f"s{i}" for i in range(12))
