"""Fusion options side by side: held-out quality, robustness to a lost judge, and predict cost.

    python -m benchmarks.quality.fusion_calibration                 # synthetic rows with known answers
    .venv/bin/python -m benchmarks.quality.fusion_calibration --scored S.jsonl --label hallucinated --by task

On synthetic rows (``trustscore.testing._synthetic``) the data is split by source into train and
test; every option is fitted on train and measured on test in the same run. With ``--scored`` (the
output of ``trustscore score``, e.g. on RAGTruth) the figures are grouped cross-validated instead.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np

from trustscore._types import Signal
from trustscore.fitting._calibrator import FitOptions, fit_calibrator
from trustscore.fusion._fuser import DefaultFuser
from trustscore.rows._scored import ScoredRow, label_column, read_scored, rows_from_dicts
from trustscore.stats._cv import grouped_split
from trustscore.stats._metrics import evaluate
from trustscore.testing._synthetic import make_scored_rows

OPTIONS: dict[str, FitOptions] = {
    "lr": FitOptions(),
    "lr+monotone": FitOptions(monotone=True),
    "lr+stack:beta": FitOptions(stack="beta"),
    "lr+stack:isotonic": FitOptions(stack="isotonic"),
    "lr+post:beta": FitOptions(post_hoc="beta"),
    "lr+post:isotonic": FitOptions(post_hoc="isotonic"),
}


def _line(name: str, y: np.ndarray, p: np.ndarray, extra: str = "") -> str:
    r = evaluate(y, p)
    auroc = "n/a" if r.auroc is None else f"{r.auroc:.3f}"
    return (
        f"  {name:<22} AUROC {auroc}  ECE(w/10) {r.ece_width:.3f}  ECE(m/10) {r.ece_mass:.3f}  "
        f"Brier {r.brier:.4f}  LogLoss {r.log_loss:.3f}{extra}"
    )


def _scores(rows: Sequence[dict[str, Signal]], fuser: object) -> np.ndarray:
    return np.array([fuser.predict(s).score for s in rows], dtype=np.float64)  # type: ignore[attr-defined]


def synthetic(n_sources: int, seed: int) -> None:
    rows = rows_from_dicts(make_scored_rows(n_sources, seed=seed))
    train_idx, test_idx = grouped_split([r.fields["source_id"] for r in rows], 0.4, seed=seed)
    train = [rows[i] for i in train_idx]
    test = [rows[i] for i in test_idx]
    y = label_column(test, "hallucinated")
    features = ["distorted", "noisy", "lexical:raw.numbers_unsupported|clip"]
    signals = [r.signals for r in test]
    # The strongest judge ("distorted") timed out on every test row:
    lost = [{n: s for n, s in r.signals.items() if n != "distorted"} for r in test]
    print(
        f"synthetic: {len(train)} train rows, {len(test)} test rows (split by source); label 1 = hallucinated"
    )
    print("  scores evaluated as P(hallucinated) = 1 - P(trustworthy)")
    print(_line("oracle signal", y, 1 - np.array([s["oracle"].value for s in signals])))
    default = DefaultFuser()
    print(_line("default:logodds", y, 1 - _scores(signals, default)))
    print(_line("default:logodds, judge lost", y, 1 - _scores(lost, default)))
    for name, opts in OPTIONS.items():
        t0 = time.perf_counter()
        model, _ = fit_calibrator(train, label="hallucinated", features=features, options=opts)
        fit_s = time.perf_counter() - t0
        print(_line(name, y, 1 - _scores(signals, model), f"  fit {fit_s:.2f}s"))
        print(_line(f"{name}, judge lost", y, 1 - _scores(lost, model)))

    model, _ = fit_calibrator(train, label="hallucinated", features=features)
    one = signals[0]
    reps = 2000
    timings = {}
    for name, fuser in (("default:logodds", default), ("stacked_lr", model)):
        t0 = time.perf_counter()
        for _ in range(reps):
            fuser.predict(one)
        timings[name] = (time.perf_counter() - t0) / reps * 1e6
    ratio = timings["stacked_lr"] / timings["default:logodds"]
    print(
        f"  predict per sample: default:logodds {timings['default:logodds']:.1f} us, stacked_lr "
        f"{timings['stacked_lr']:.1f} us (ratio {ratio:.1f}x, same run)"
    )


def scored_file(path: str, label: str, group: str, by: str | None) -> None:
    rows: list[ScoredRow] = read_scored(path)
    print(f"{path}: {len(rows)} rows; {group}-grouped 5-fold cross-validation; label 1 = {label}")
    y = label_column(rows, label)
    fused = np.array([np.nan if r.score is None else r.score for r in rows])
    ok = ~np.isnan(fused)
    print(_line("as scored", y[ok], 1 - fused[ok]))
    for name, opts in OPTIONS.items():
        _, report = fit_calibrator(rows, label=label, group=group, by=by, options=opts)
        held = report.held_out.report
        macro = (
            ""
            if not by
            else f"  macro AUROC {held.macro['auroc']:.3f}  macro ECE {held.macro['ece_width']:.3f}"
        )
        r = held.pooled
        auroc = "n/a" if r.auroc is None else f"{r.auroc:.3f}"
        print(f"  {name:<22} AUROC {auroc}  ECE(w/10) {r.ece_width:.3f}  Brier {r.brier:.4f}{macro}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--scored", default=None, help="a scored JSONL from `trustscore score` (else synthetic)"
    )
    parser.add_argument("--label", default="hallucinated")
    parser.add_argument("--group", default="source_id")
    parser.add_argument("--by", default=None)
    parser.add_argument("--sources", type=int, default=300, help="synthetic sources (6 rows each)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.scored:
        scored_file(args.scored, args.label, args.group, args.by)
    else:
        synthetic(args.sources, args.seed)


if __name__ == "__main__":
    main()
