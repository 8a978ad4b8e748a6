"""Fit the shipped offline calibrator (lexical + embedding grounding) on all of RAGTruth.

    .venv/bin/python -m calibration.fit_ragtruth_local [--data ../shared/data]

Scores ``ragtruth/test.jsonl`` + ``train_extra.jsonl`` (2,920 responses) with ``trustscore score``
once (cached in ``.cache-data/``, see ``benchmarks.fusion_realdata``), picks the feature set among
``benchmarks.fusion_realdata.CANDIDATES`` by grouped-CV macro AUROC over tasks, fits it with
``trustscore.fusion.fit_calibrator`` and writes ``trustscore/calibrators/ragtruth_local.json``, the
file the default Scorer loads (``calibration/ragtruth_local.json`` links to it). The held-out
figures of the whole procedure, selection included, come from ``benchmarks.fusion_realdata``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks.fusion_realdata import (
    CANDIDATES,
    DEFAULT_CACHE,
    DEFAULT_DATA,
    REPO,
    DataMissing,
    scored_ragtruth,
    select_and_fit,
)
from trustscore.fusion.fit import FitOptions
from trustscore.fusion.scored import read_scored
from trustscore.fusion.store import save_model

SHIPPED = REPO / "trustscore" / "calibrators" / "ragtruth_local.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder holding ragtruth/")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("-o", "--output", type=Path, default=SHIPPED)
    args = parser.parse_args(argv)
    try:
        rows = read_scored(scored_ragtruth(args.data, args.cache))
    except DataMissing as e:
        print(f"SKIP: {e}")
        return 0
    key, model, report = select_and_fit(rows, CANDIDATES, FitOptions(), name="ragtruth_local")
    held = report.held_out.report
    print(f"{len(rows)} rows; features {key}: {[f.spec.key for f in model.features]}")
    print(
        f"grouped 5-fold CV (selection among {len(CANDIDATES)} feature sets on the same folds): "
        f"AUROC macro {held.macro['auroc']:.3f}, pooled {held.pooled.auroc:.3f}, "
        f"ECE(10 bins, mass) {held.pooled.ece_mass:.3f}, Brier {held.pooled.brier:.3f}"
    )
    path = save_model(model, args.output)
    print(f"wrote {path} ({model.description})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
