"""``trustscore eval`` and ``trustscore calibrate`` on a small generated scored JSONL."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from trustscore.cli import _calibrate as cli_calibrate
from trustscore.cli import _eval as cli_eval
from trustscore.fusion import load_model
from trustscore.testing._synthetic import make_scored_rows, write_scored_jsonl


def _cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="trustscore")
    sub = parser.add_subparsers(required=True)
    cli_eval.add_parser(sub)
    cli_calibrate.add_parser(sub)
    args = parser.parse_args(list(argv))
    return int(args.run(args))


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_scored_jsonl(
        tmp_path_factory.mktemp("scored") / "scored.jsonl", make_scored_rows(40, seed=3)
    )


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")


def test_eval_prints_each_signal_the_fused_score_per_group_and_macro(
    scored: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cli("eval", str(scored), "--label", "hallucinated", "--by", "task") == 0
    out = capsys.readouterr().out
    assert "Positive class: hallucinated = 1 (NOT trustworthy)" in out
    assert "1 - score = P(hallucinated)" in out
    for name in ("fused", "oracle", "distorted", "noisy", "lexical"):
        assert name in out
    for title in ("pooled", "task = QA", "task = Summary", "task = Data2txt", "macro mean over task"):
        assert title in out
    assert "AUROC" in out and "ECE w/10" in out and "Brier" in out
    assert "uncalibrated" in out


def test_eval_numbers_are_the_metrics_of_one_minus_the_score(
    scored: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sklearn.metrics import roc_auc_score

    rows = [json.loads(line) for line in scored.read_text().splitlines()]
    expected = roc_auc_score(
        [r["hallucinated"] for r in rows], [1 - r["signals"]["oracle"]["value"] for r in rows]
    )
    _cli("eval", str(scored), "--bins", "15")
    out = capsys.readouterr().out
    oracle_line = next(line for line in out.splitlines() if "oracle" in line)
    assert f"{expected:.3f}" in oracle_line
    assert "ECE w/15" in out


def test_eval_writes_plots(scored: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli("eval", str(scored), "--plots", str(tmp_path / "plots")) == 0
    for name in ("reliability.png", "roc.png"):
        data = (tmp_path / "plots" / name).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 1000


def test_eval_refuses_a_missing_label_column_and_bad_files(
    scored: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cli("eval", str(scored), "--label", "correct") == 2
    assert "label column 'correct'" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "signals": {}}\nnot json\n')
    assert _cli("eval", str(bad)) == 2
    assert "bad.jsonl:2: not valid JSON" in capsys.readouterr().err
    assert _cli("eval", str(tmp_path / "absent.jsonl")) == 2
    assert "does not exist" in capsys.readouterr().err
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text('{"id": "a", "signals": {"lynx": {"value": 2.0}}, "hallucinated": true}\n')
    assert _cli("eval", str(wrong)) == 2
    assert "signals.lynx is not a valid signal" in capsys.readouterr().err


def test_calibrate_writes_a_loadable_calibrator_and_prints_held_out_metrics(
    scored: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_path = tmp_path / "calibration" / "syn.json"
    code = _cli(
        "calibrate",
        str(scored),
        "-o",
        str(out_path),
        "--label",
        "hallucinated",
        "--group",
        "source_id",
        "--features",
        "distorted",
        "noisy",
        "lexical:raw.numbers_unsupported|clip",
        "--by",
        "task",
    )
    assert code == 0
    out = capsys.readouterr().out
    model = load_model(out_path)
    assert model.name == "syn"
    assert [f.spec.key for f in model.features] == [
        "distorted|logit",
        "noisy|logit",
        "lexical:raw.numbers_unsupported|clip",
    ]
    assert model.training.group == "source_id" and model.held_out is not None
    assert "held-out (5-fold, grouped by source_id)" in out
    assert f"{model.held_out.report.pooled.auroc:.3f}" in out
    assert "thresholds chosen on training folds" in out
    assert model.description in out


def test_calibrate_then_eval_of_the_rescored_rows_is_calibrated(
    scored: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_path = tmp_path / "c.json"
    assert _cli("calibrate", str(scored), "-o", str(out_path), "--stack", "beta", "--folds", "4") == 0
    model = load_model(out_path)
    assert len(model.features) == 4  # every signal's value by default
    rows = [json.loads(line) for line in scored.read_text().splitlines()]
    from trustscore.rows._scored import rows_from_dicts

    for raw, row in zip(rows, rows_from_dicts(rows), strict=True):
        fused = model.predict(row.signals)
        raw.update(score=fused.score, calibrated=True)
    rescored = write_scored_jsonl(tmp_path / "rescored.jsonl", rows)
    capsys.readouterr()
    assert _cli("eval", str(rescored)) == 0
    assert "(calibrated)" in capsys.readouterr().out


def test_calibrate_refuses_bad_options_with_a_clear_message(
    scored: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cli("calibrate", str(scored), "-o", str(tmp_path / "x.json"), "--features", "lynx|cube") == 2
    assert "unknown transform" in capsys.readouterr().err
    assert _cli("calibrate", str(scored), "-o", str(tmp_path / "x.json"), "--folds", "50") == 2
    assert "40 groups cannot fill 50 folds" in capsys.readouterr().err
    assert _cli("calibrate", str(scored), "-o", str(tmp_path / "x.json"), "--folds", "500") == 2
    assert "too few for 500-fold" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_the_trustscore_command_reads_rows_written_by_trustscore_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rows in the exact shape ``trustscore score`` writes (TrustScore dump + carried fields)."""
    from trustscore import TrustScore
    from trustscore.cli import main
    from trustscore.rows import result_row
    from trustscore.rows._scored import rows_from_dicts

    written = []
    for row in rows_from_dicts(make_scored_rows(12, seed=5)):
        signals = {n: s.model_copy(update={"name": n}) for n, s in row.signals.items()}
        result = TrustScore(
            score=row.score,
            calibrated=False,
            signals=signals,
            used_signals=[n for n, s in signals.items() if s.value is not None],
            fusion="default:logodds",
        )
        written.append(result_row(row.id or "", result, dict(row.fields)))
    assert written[0]["fusion"] == "default:logodds" and "usage" in written[0]["signals"]["oracle"]
    path = write_scored_jsonl(tmp_path / "scored.jsonl", written)
    assert main(["eval", str(path), "--by", "task"]) == 0
    out = capsys.readouterr().out
    assert "uncalibrated: default:logodds" in out and "macro mean over task" in out
    cal = tmp_path / "cal.json"
    assert main(["calibrate", str(path), "-o", str(cal), "--folds", "3"]) == 0
    assert load_model(cal).training.n == len(written)


def test_eval_ci_prints_cluster_bootstrap_intervals(scored: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli("eval", str(scored), "--ci", "--cluster", "source_id") == 0
    out = capsys.readouterr().out
    oracle_line = next(line for line in out.splitlines() if "oracle" in line)
    assert re.search(r"0\.\d{3} +0\.\d{3}-0\.\d{3}", oracle_line)  # AUROC, then its 95% CI column


def test_calibrate_with_an_intercept_per_task(
    scored: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--label", "hallucinated", "--features", "distorted", "noisy"]
    assert _cli("calibrate", str(scored), "-o", str(tmp_path / "plain.json"), *common) == 0
    split_path = tmp_path / "split.json"
    assert _cli("calibrate", str(scored), "-o", str(split_path), *common, "--intercept-by", "task") == 0
    plain, split = load_model(tmp_path / "plain.json"), load_model(split_path)
    assert len(split.coef) == len(plain.coef) and split.coef != plain.coef
    capsys.readouterr()
    bad = _cli("calibrate", str(scored), "-o", str(tmp_path / "x.json"), *common, "--intercept-by", "nope")
    assert bad == 2
    assert "'nope'" in capsys.readouterr().err


def test_eval_checks_the_calibrated_claim_per_group(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        json.loads(line)
        for line in write_scored_jsonl(tmp_path / "s.jsonl", make_scored_rows(60, seed=4))
        .read_text()
        .splitlines()
    ]
    for r in rows:
        r["calibrated"] = r["task"] == "QA"
    path = tmp_path / "claims.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert _cli("eval", str(path), "--by", "task") == 0
    out = capsys.readouterr().out
    qa = sum(r["task"] == "QA" for r in rows)
    assert f"claimed calibrated: {qa} of {len(rows)} scored rows" in out
    title = "holds: ECE <= 0.1 or <= floor; too few rows: under 50 claim"
    assert title in " ".join(out.split())
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert lines["Summary"][1:4] == [str(sum(r["task"] == "Summary" for r in rows)), "0", "0.0%"]
    assert lines["Summary"][-3:] == ["too", "few", "rows"], "no row claims: nothing to test, so no 'holds'"
    assert lines["QA"][2] == str(qa) and lines["QA"][3] == "100.0%"


def test_eval_reads_the_claim_against_the_published_noise_floor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ECE 0.107 on 151 claiming rows of one task: a perfectly calibrated score shows more one time in
    ten at that count (docs/calibration.md), so the verdict is "holds", not broken."""
    from tests.fitting.test_claims import _with_ece

    y, p = _with_ece(151, 0.107)
    rows = make_scored_rows(26, seed=9)[:151]
    for r, label, p_hallucinated in zip(rows, y, p, strict=True):
        r.update(score=1.0 - float(p_hallucinated), calibrated=True, hallucinated=bool(label), task="QA")
    path = write_scored_jsonl(tmp_path / "claims.jsonl", rows)
    assert _cli("eval", str(path), "--by", "task") == 0
    out = capsys.readouterr().out
    qa = next(line.split() for line in out.splitlines() if line.split()[:1] == ["QA"])
    assert qa[1:5] == ["151", "151", "100.0%", "0.107"] and qa[-1] == "holds", qa


def test_an_adaptation_whose_signals_are_at_chance_claims_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """360 labels drawn independently of the signals: however many, they cannot show that the score
    ranks, so the adapted file claims nothing and says the base rate is all they carry."""
    import numpy as np

    base = tmp_path / "base.json"
    fit_rows = write_scored_jsonl(tmp_path / "fit.jsonl", make_scored_rows(80, seed=5))
    assert _cli("calibrate", str(fit_rows), "-o", str(base), "--features", "distorted") == 0
    rows = make_scored_rows(60, seed=41)
    rng = np.random.default_rng(41)
    for r in rows:
        r["hallucinated"] = bool(rng.random() < 0.4)
    labeled = write_scored_jsonl(tmp_path / "chance.jsonl", rows)
    capsys.readouterr()
    assert _cli("calibrate", str(labeled), "--adapt", str(base), "-o", str(tmp_path / "mine.json")) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "signals do not show that they rank" in out and "claims calibrated" not in out


@pytest.mark.parametrize("value", ["2", "1", "0", "-0.5", "nan", "inf", "half"])
def test_eval_threshold_must_be_a_probability(
    scored: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        _cli("eval", str(scored), f"--threshold={value}")
    assert exit_info.value.code == 2
    assert "argument --threshold: must be a probability strictly between 0 and 1" in capsys.readouterr().err
