"""train-detector on a tiny ModernBERT: rows, grouped split, labels, resumable training, held-out report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("peft")

from trustscore import Sample
from trustscore.cli import main
from trustscore.encoders._lettucedetect import format_prompt
from trustscore.fitting._detector import TrainOptions, train_detector
from trustscore.fitting._detector_data import encode_row
from trustscore.fitting._detector_report import lexical_baseline, summarize, verdict
from trustscore.rows._labeled import LabeledRow, read_rows, split_by_group
from trustscore.testing._tiny_encoders import save_tiny_lettucedetect

CONTEXT = "The Eiffel Tower is in Paris, the capital of France. Marie Curie won two Nobel prizes."


def _rows(n_groups: int = 6) -> list[dict]:
    rows = []
    for g in range(n_groups):
        for k, (response, spans) in enumerate(
            [
                ("The tower is in Paris.", []),
                ("The tower is in Rome.", [{"start": 16, "end": 20}]),
            ]
        ):
            rows.append(
                {
                    "id": f"r{g}-{k}",
                    "source_id": f"s{g}",
                    "task": "QA" if g % 2 else "Summary",
                    "question": "Where is the tower?",
                    "context": [CONTEXT],
                    "response": response,
                    "spans": spans,
                }
            )
    return rows


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_lettucedetect(tmp_path_factory.mktemp("base") / "m", seed=5)


def test_read_rows_names_the_line_and_the_field(tmp_path: Path) -> None:
    good = _rows(1)[0]
    cases = {
        "spans": {k: v for k, v in good.items() if k != "spans"},
        "outside the response": {**good, "spans": [{"start": 3, "end": 99}]},
        "'source_id'": {k: v for k, v in good.items() if k != "source_id"},
        "not a labeled row": {**good, "response": 5},
    }
    for message, bad in cases.items():
        path = _write(tmp_path / "d.jsonl", [good, bad])
        with pytest.raises(ValueError, match=message) as info:
            read_rows(path, "source_id")
        assert "d.jsonl:2" in str(info.value)


def test_split_keeps_every_group_on_one_side_and_is_seeded(tmp_path: Path) -> None:
    rows = read_rows(_write(tmp_path / "d.jsonl", _rows(40)), "source_id")
    train, held = split_by_group(rows, 0.5, seed=0)
    assert {r.group for r in train}.isdisjoint({r.group for r in held})
    assert 10 < len({r.group for r in held}) < 30
    assert split_by_group(rows, 0.5, seed=0) == (train, held)
    assert split_by_group(rows, 0.5, seed=1) != (train, held)


def test_labels_mark_answer_tokens_on_a_span_and_mask_the_prompt(base: Path) -> None:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(base)
    row = LabeledRow(
        Sample(question="Where?", context=[CONTEXT], response="The tower is in Rome."), [(16, 20)], "g", "QA"
    )
    enc = encode_row(tok, row, 512)
    assert enc is not None
    full = tok(format_prompt([CONTEXT], "Where?", "qa"), row.sample.response, return_offsets_mapping=True)
    for label, sid, (a, b) in zip(enc["labels"], full.sequence_ids(), full["offset_mapping"], strict=True):
        if sid != 1:
            assert label == -100
        else:
            assert label == int(b > 16 and a < 20)
    assert 1 in enc["labels"] and 0 in enc["labels"]
    assert encode_row(tok, row, 8) is None  # the answer alone does not fit


def test_training_resumes_to_the_same_weights_and_reports(tmp_path: Path, base: Path) -> None:
    from safetensors.torch import load_file

    data = _write(tmp_path / "d.jsonl", _rows(6))
    extra = _write(tmp_path / "extra.jsonl", [{**r, "source_id": "x" + r["source_id"]} for r in _rows(2)])
    opts = TrainOptions(
        base=str(base),
        lora=True,
        max_length=512,
        epochs=2,
        batch_size=4,
        learning_rate=1e-3,
        heldout_fraction=0.4,
        validation_fraction=0,
        checkpoint_every=1,
        seed=3,
    )
    logs: list[str] = []
    once = train_detector([data], tmp_path / "once", opts, extra_train=[extra], log=logs.append)
    stopped = train_detector(
        [data],
        tmp_path / "twice",
        opts.model_copy(update={"max_minutes": 1e-9}),
        extra_train=[extra],
        log=logs.append,
    )
    assert stopped["training"]["stopped_early"] and stopped["training"]["steps"] == 1
    twice = train_detector([data], tmp_path / "twice", opts, extra_train=[extra], log=logs.append)
    assert any("resumed at step 1" in line for line in logs)
    assert twice["training"]["steps"] == once["training"]["steps"] > 1
    a = load_file(str(tmp_path / "once/detector/adapter_model.safetensors"))
    b = load_file(str(tmp_path / "twice/detector/adapter_model.safetensors"))
    assert a.keys() == b.keys() and all((a[k] - b[k]).abs().max() < 1e-6 for k in a)
    split = once["split"]
    assert (
        split["train_rows_used"] == split["train_rows"]
        and split["train_rows"] + split["heldout_rows"] == 12 + 4
    )
    held = once["heldout"]
    assert held["pooled"]["rows"] == once["split"]["heldout_rows"] > 0
    preds = (tmp_path / "once/detector/heldout_predictions.jsonl").read_text().splitlines()
    assert len(preds) == held["pooled"]["rows"]
    summary = json.loads((tmp_path / "once/detector/training_summary.json").read_text())
    assert len(summary["data_sha256"]) == 64
    with pytest.raises(ValueError, match="other options or data"):
        train_detector(
            [data],
            tmp_path / "once",
            opts.model_copy(update={"learning_rate": 2e-3}),
            extra_train=[extra],
            log=logs.append,
        )


def test_the_defaults_fine_tune_every_weight_keep_the_best_epoch_and_say_if_it_beats_the_baseline(
    tmp_path: Path, base: Path
) -> None:
    defaults = TrainOptions(base=str(base))
    assert not defaults.lora and defaults.learning_rate == 3e-5 and defaults.epochs == 8
    data = _write(tmp_path / "d.jsonl", _rows(12))
    logs: list[str] = []
    opts = TrainOptions(
        base=str(base), batch_size=4, epochs=4, heldout_fraction=0.3, patience=1, device="auto"
    )
    report = train_detector([data], tmp_path / "out", opts, baseline=lexical_baseline, log=logs.append)
    training = report["training"]
    assert training["device"] == "cpu"  # auto: no CUDA device here
    assert report["split"]["validation_rows"] > 0
    stopping = training["early_stopping"]
    assert stopping["validation"] and stopping["best_step"] is not None
    assert (tmp_path / "out/detector/model.safetensors").is_file()  # every weight, no adapter
    assert isinstance(report["beats_baseline"], bool)
    assert report["verdict"].startswith(
        "the detector beats" if report["beats_baseline"] else "the detector does NOT beat"
    )
    assert any(report["verdict"] in line for line in logs)


def test_the_verdict_says_plainly_when_the_baseline_wins() -> None:
    heldout = {
        "pooled": {"auroc_on_baseline_rows": 0.51, "baseline_auroc": 0.70},
        "macro": {"auroc_on_baseline_rows": 0.50, "baseline_auroc": 0.72},
    }
    beats, sentence = verdict(heldout)
    assert beats is False and "does NOT beat" in sentence and "0.500" in sentence and "0.720" in sentence
    heldout["macro"] = {"auroc_on_baseline_rows": 0.80, "baseline_auroc": 0.72}
    assert verdict(heldout)[0] is True
    assert verdict({"pooled": {}, "macro": {}})[0] is None


def test_summarize_counts_tokens_examples_and_the_baseline() -> None:
    preds = [
        {"id": "a", "task": "QA", "hallucinated": True, "score": 0.9, "tp": 2, "fp": 1, "fn": 1},
        {"id": "b", "task": "QA", "hallucinated": False, "score": 0.2, "tp": 0, "fp": 0, "fn": 0},
        {"id": "c", "task": "QA", "hallucinated": False, "score": 0.7, "tp": 0, "fp": 2, "fn": 0},
        {"id": "d", "task": "QA", "hallucinated": True, "score": 0.4, "tp": 0, "fp": 0, "fn": 3},
    ]
    report = summarize(preds, {"a": 0.1, "b": 0.2, "c": 0.3, "d": None})
    qa = report["per_task"]["QA"]
    assert qa["token_f1"] == pytest.approx(2 * 2 / (2 * 2 + 3 + 4))
    assert qa["example_f1"] == pytest.approx(2 * 1 / (2 * 1 + 1 + 1))
    assert qa["auroc"] == pytest.approx(0.75)
    assert qa["baseline_rows"] == 3 and qa["baseline_auroc"] == pytest.approx(0.0)
    assert report["macro"]["auroc"] == pytest.approx(0.75)


def test_cli_reports_bad_input_as_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train-detector", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "out")]) == 2
    assert "missing.jsonl: no such file" in capsys.readouterr().err
    data = _write(tmp_path / "d.jsonl", _rows(2))
    assert (
        main(["train-detector", str(data), "-o", str(tmp_path / "o"), "--base", "x", "--batch-size", "0"])
        == 2
    )
    assert "batch_size" in capsys.readouterr().err
