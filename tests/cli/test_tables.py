"""``trustscore eval`` output is readable at 80 columns and redirected; error hints keep their text."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import pytest
from rich.console import Console

from trustscore.cli import _eval as cli_eval
from trustscore.fitting._claims import ClaimCheck
from trustscore.fitting._evaluation import evaluate_scored
from trustscore.fitting._report import claims_table, macro_table, metrics_table
from trustscore.rows._scored import read_scored
from trustscore.signals import registered_signals
from trustscore.testing._synthetic import make_scored_rows, write_scored_jsonl


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("scored") / "scored.jsonl"
    return write_scored_jsonl(path, make_scored_rows(40, seed=3))


def _eval(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="trustscore")
    cli_eval.add_parser(parser.add_subparsers(required=True))
    args = parser.parse_args(["eval", *argv])
    return int(args.run(args))


def test_eval_tables_fit_80_columns_without_cutting_numbers(
    scored: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # what a redirected rich console assumes
    assert _eval(str(scored), "--label", "hallucinated", "--by", "task") == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in out  # nothing ellipsised
    assert "\x1b[" not in out  # no colour codes in a redirected file
    fused = [line for line in lines if line.split()[:1] == ["fused"]]
    assert fused and all(len(line.split()) in (6, 8) for line in fused)  # every number on its row


def test_metric_tables_render_at_80_columns(scored: Path) -> None:
    result = evaluate_scored(read_scored(scored), label="hallucinated", by="task", ci=True, n_boot=50)
    buffer = io.StringIO()
    console = Console(file=buffer, width=80)
    console.print(metrics_table("pooled", {n: r.pooled for n, r in result.reports.items()}))
    console.print(macro_table("macro", result.reports))
    text = buffer.getvalue()
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 80
    assert "AUROC" in text and "Brier" in text and "log_loss" in text


def test_a_claim_too_small_to_test_reads_too_few_rows_never_holds() -> None:
    checks = {
        name: ClaimCheck(n=200, claimed=claimed, ece_claimed=ece, ece_all=0.1, auroc=0.8, verdict=verdict)
        for name, claimed, ece, verdict in [
            ("none", 0, None, "too few rows"),
            ("good", 100, 0.05, "holds"),
            ("bad", 100, 0.3, "broken"),
        ]
    }
    buffer = io.StringIO()
    Console(file=buffer, width=200).print(claims_table(checks))
    verdicts = {line.split()[0]: line.split()[-1] for line in buffer.getvalue().splitlines() if line.strip()}
    narrow = io.StringIO()
    Console(file=narrow, width=80).print(claims_table(checks))
    assert "too few rows: under 50 claim" in " ".join(narrow.getvalue().split())
    assert (verdicts["none"], verdicts["good"], verdicts["bad"]) == ("rows", "holds", "broken")


def test_the_plots_hint_names_the_extra(
    scored: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if the extra were not installed
    assert _eval(str(scored), "--plots", str(tmp_path / "plots")) == 2
    assert "pip install '/path/to/trustscore[plots]'" in capsys.readouterr().err


def test_eval_file_errors_are_one_line_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "scored.jsonl"
    bad.write_bytes(b'{"id": "a", "x": "\xff"}\n')
    assert _eval(str(bad)) == 2
    err = capsys.readouterr().err
    assert f"{bad}:1: skipping a damaged result row ('utf-8' codec can't decode byte 0xff" in err
    assert err.endswith(f"error: scored file {bad} has no rows\n")
    assert _eval(str(tmp_path)) == 2
    assert "is a directory" in capsys.readouterr().err


def test_the_score_summary_keeps_one_line_per_fact_when_redirected() -> None:
    from trustscore import Signal, TrustScore, Usage
    from trustscore.rows import ScoreRunSummary

    summary = ScoreRunSummary(output=Path("/a/rather/long/path/to/the/results/of/this/run/scored.jsonl"))
    signals = {n: Signal(name=n, value=0.5) for n in registered_signals("judge")}
    summary.add(
        TrustScore(score=0.5, calibrated=False, signals=signals, used_signals=list(signals),
                   fusion="default:logodds", usage=Usage(requests=12, prompt_tokens=123456))
    )
    buffer = io.StringIO()
    summary.print(buffer)  # a file, not a terminal: rich assumes 80 columns
    lines = buffer.getvalue().splitlines()
    last = [line for line in lines if line.startswith("scored 1, skipped 0 already done")]
    assert last and "cache hits 0" in last[0]
    table = [line for line in lines if line.split()[:1] in (["lynx"], ["signal"], ["score"])]
    assert table and all(len(line) <= 80 for line in table)
