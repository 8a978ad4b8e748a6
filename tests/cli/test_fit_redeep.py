"""``trustscore fit-redeep``: a profile fitted from labeled rows on a local model, which the ``redeep``
signal then reads; bad input is one clear line with exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trustscore.cli import main

pytest.importorskip("transformers", reason="fit-redeep needs trustscore[whitebox]")

CONTEXT = "The Quellen river flows north through Brindale. The town was founded in 1847 by settlers."
ROWS = [
    ("Where does the Quellen flow?", "The Quellen flows north through Brindale.", []),
    ("When was Brindale founded?", "Brindale was founded in 1847 by settlers.", []),
    ("Who founded Brindale?", "Settlers founded Brindale in 1847.", []),
    ("Where does the Quellen flow?", "The Quellen flows south into the sea at Marlow.", [(17, 47)]),
    ("When was Brindale founded?", "Brindale was founded in 1921 by monks.", [(24, 38)]),
    ("Who founded Brindale?", "Roman soldiers founded Brindale.", [(0, 14)]),
]


def _write_rows(path: Path, rows: list[tuple[str, str, list[tuple[int, int]]]]) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for i, (question, response, spans) in enumerate(rows):
            row = {
                "id": f"r{i}",
                "source_id": f"s{i % 3}",
                "question": question,
                "context": [CONTEXT],
                "response": response,
                "spans": [{"start": a, "end": b} for a, b in spans],
            }
            f.write(json.dumps(row) + "\n")
    return path


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from trustscore.testing._tiny import save_tiny_model

    return save_tiny_model(tmp_path_factory.mktemp("fit") / "llama")


def test_the_profile_fitted_from_rows_is_what_redeep_reads(
    model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import anyio

    from trustscore import Sample
    from trustscore.whitebox._profile import RedeepProfile
    from trustscore.whitebox._redeep import RedeepSignal

    rows = _write_rows(tmp_path / "rows.jsonl", ROWS)
    out = tmp_path / "profile.json"
    status = main(["fit-redeep", str(rows), "--model", str(model), "-o", str(out), "--folds", "2"])
    assert status == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["rows_used"] == len(ROWS) and summary["rows_skipped"] == 0
    assert "[signals.redeep]" in summary["next"]

    profile = RedeepProfile.load(out)
    assert profile.training.n_responses == len(ROWS)
    assert "grouped by source_id" in profile.training.split
    signal = RedeepSignal(model_path=model, profile=profile)
    sample = Sample(question=ROWS[0][0], context=[CONTEXT], response=ROWS[0][1])
    result = anyio.run(signal.run, sample)
    assert result.value is not None and 0.0 <= result.value <= 1.0


def test_rows_the_model_cannot_read_are_skipped_and_counted(
    model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _write_rows(tmp_path / "rows.jsonl", ROWS)
    with rows.open("a", encoding="utf-8") as f:
        f.write(json.dumps({"id": "bare", "source_id": "s9", "question": "q", "context": [],
                            "response": "No context here.", "spans": []}) + "\n")  # fmt: skip
    status = main(
        ["fit-redeep", str(rows), "--model", str(model), "-o", str(tmp_path / "p.json"), "--folds", "2"]
    )
    assert status == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["rows_skipped"] == 1 and summary["skipped"] == ["bare: no context"]


def test_rows_with_one_label_only_are_refused(
    model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _write_rows(tmp_path / "rows.jsonl", [r for r in ROWS if not r[2]])
    status = main(
        ["fit-redeep", str(rows), "--model", str(model), "-o", str(tmp_path / "p.json"), "--folds", "2"]
    )
    assert status == 2
    assert "one label only" in capsys.readouterr().err
    assert not (tmp_path / "p.json").exists()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("no-file", "no such file"),
        ("no-spans", "no 'spans'"),
        ("no-model", "config.json"),
    ],
)
def test_bad_input_is_one_line_naming_the_fix(
    change: str, message: str, model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _write_rows(tmp_path / "rows.jsonl", ROWS)
    model_dir = model
    if change == "no-file":
        rows = tmp_path / "missing.jsonl"
    elif change == "no-spans":
        rows.write_text(
            json.dumps({"question": "q", "context": ["c"], "response": "r", "source_id": "s"}) + "\n"
        )
    else:
        model_dir = tmp_path
    status = main(["fit-redeep", str(rows), "--model", str(model_dir), "-o", str(tmp_path / "p.json")])
    assert status == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_the_rows_it_reads_are_never_written_over(
    model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _write_rows(tmp_path / "rows.jsonl", ROWS)
    before = rows.read_bytes()
    assert main(["fit-redeep", str(rows), "--model", str(model), "-o", str(rows)]) == 2
    assert "is not a trustscore ReDeEP profile" in capsys.readouterr().err
    assert rows.read_bytes() == before
