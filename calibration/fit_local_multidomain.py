"""Fit the shipped offline calibrators (lexical + embedding grounding, and the same with the claims
signal) on the multi-domain corpus.

    .venv/bin/python -m calibration.build_corpus            # writes .cache-data/corpus/corpus.jsonl
    .venv/bin/trustscore score .cache-data/corpus/corpus.jsonl -o .cache-data/corpus/scored.jsonl
    .venv/bin/python -m calibration.fit_local_multidomain
        # writes trustscore/calibrators/local_multidomain.json
    .venv/bin/python -m calibration.fit_local_multidomain --claims
        # writes trustscore/calibrators/local_multidomain_claims.json (needs the claims signal scored)

``--claims`` fits ``trustscore.fitting._shipped.FEATURES_EVIDENCE`` (the shipped features, the claims
signal's and the unstated names) with ``EVIDENCE_CLAIMS`` as evidence terms (a contradiction decides, its
precision fitted: ``trustscore.fusion._evidence``) the same way: the calibrator a Scorer picks when the
``claims`` extra is installed. ``--corruptions`` adds made-up rows that fit the evidence terms and the raw
features' weights but neither the weight of the lexical value, the one signal value the fit reads
(``FitOptions.values_without``: in a one-word corruption the value barely moves, which would teach that
overlap barely matters), nor the pooled intercept; the embedding feature, the least supported
sentence's similarity, is a raw feature whose weight they fit (holding it apart too measured the
same). Without it the first one applies (``trustscore.calibrators``).

Fits ``trustscore.fitting.fit_calibrator`` over ``trustscore.fitting._shipped.FEATURES`` (with an intercept
per data set while the weights are fitted: ``trustscore.fitting._shipped.INTERCEPT_BY``) on the rows of the
domains whose licence lets the result ship (``calibration.build_corpus.SHIPPABLE``: RAGTruth QA /
Summary / Data2txt, FRANK CNN/DM, XSumFaith and FactCC; FActScore is never fitted on), grouped by
source document. The model records its calibration domain (``trustscore.fusion._domain``). The held-out
figures (leave one domain out, in-domain false alarms, few labels) come from
``python -m benchmarks.quality.multidomain``; the figures stored in the file are 5-fold CV grouped by document
over the same rows (in-domain).

The file is written as a ranking model (``FusionModel.not_calibrated_reason``): its scores never claim
``calibrated=True``. ``python -m benchmarks.quality.calibration_claims`` measures why: per held-out domain, no
intercept chosen without labels (pooled, per kind of task read from the sample's shape, or re-estimated
over the batch by EM) keeps ECE(10) within 0.10; a few labels of the user's own data do
(``trustscore calibrate LABELED.jsonl --adapt``, whose result claims calibrated again).

Refit when a grounding signal's version changes (``tests/calibrators/test_shipped.py`` fails until then):
the scored corpus must be rescored first, and this script refuses a scored file whose signal versions
differ from the code's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks.quality.fusion_realdata import claims_signal_versions, default_signal_versions
from benchmarks.quality.multidomain import DEFAULT_SCORED
from calibration.build_corpus import SHIPPABLE
from trustscore.fitting._calibrator import FitOptions, fit_calibrator
from trustscore.fitting._shipped import (
    EVIDENCE_CLAIMS,
    FEATURES,
    FEATURES_EVIDENCE,
    GROUP,
    INTERCEPT_BY,
    L2_EVIDENCE,
    LABEL,
)
from trustscore.fusion._store import save_model
from trustscore.rows._scored import read_scored

REPO = Path(__file__).resolve().parent.parent
SHIPPED = REPO / "trustscore" / "calibrators" / "local_multidomain.json"
SHIPPED_CLAIMS = REPO / "trustscore" / "calibrators" / "local_multidomain_claims.json"
NAME = "local_multidomain"
NOT_CALIBRATED_REASON = (
    "base rate of your data unknown: this offline model ranks answers, but its probabilities hold only "
    "where hallucinations are as common as in its fit data (from 11% to 89% across its six data sets); "
    "adapt it with about 200-400 labeled rows of your data: `trustscore calibrate LABELED.jsonl --adapt "
    "-o mine.json`, then set fusion.calibrator = \"mine.json\""
)
"""Why the shipped model's scores are not claimed calibrated, naming the fix (every result carries it)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scored", type=Path, default=DEFAULT_SCORED)
    parser.add_argument("-o", "--output", type=Path, default=None)
    parser.add_argument("--claims", action="store_true", help="fit the model that reads claims too")
    parser.add_argument(
        "--corruptions",
        type=Path,
        default=None,
        help="with --claims: scored corruption pairs "
        "(benchmarks.quality.corruption_pairs --seed 1 --exclude ...) "
        "added to the training rows as one more data set (fitting the weights of the raw features and "
        "the evidence terms, not those of the signals' values nor the pooled intercept)",
    )
    args = parser.parse_args(argv)
    output = args.output or (SHIPPED_CLAIMS if args.claims else SHIPPED)
    if not args.scored.exists():
        print(f"SKIP: {args.scored} not found; build and score the corpus first (see the docstring)")
        return 0
    rows = [r for r in read_scored(args.scored) if r.fields.get("dataset") in SHIPPABLE]
    if args.claims and args.corruptions is not None:
        rows += read_scored(args.corruptions)
    expected = claims_signal_versions() if args.claims else default_signal_versions()
    stale = sorted(
        {
            f"{n}: {s.version}"
            for r in rows
            for n, s in r.signals.items()
            if n in expected and s.version != expected[n]
        }
    )
    if stale:
        print(
            f"error: {args.scored} was scored by other signal versions ({', '.join(stale[:4])}); "
            f"the code runs {expected}: rescore the corpus first"
        )
        return 2
    datasets = sorted({str(r.fields["dataset"]) for r in rows})
    model, report = fit_calibrator(
        rows,
        label=LABEL,
        group=GROUP,
        features=FEATURES_EVIDENCE if args.claims else FEATURES,
        by="dataset",
        name=f"{NAME}_claims" if args.claims else NAME,
        options=FitOptions(
            l2=L2_EVIDENCE if args.claims else FitOptions().l2,
            intercept_by=INTERCEPT_BY,
            evidence=EVIDENCE_CLAIMS if args.claims else (),
            intercept_without=("corruptions",),
            values_without=("corruptions",),
        ),
        data_name=f"trustscore multi-domain corpus ({', '.join(datasets)}; {len(rows)} rows)",
    )
    model = model.ranking_only(NOT_CALIBRATED_REASON)
    held = report.held_out.report
    print(f"{len(rows)} rows from {datasets}; features {[f.spec.key for f in model.features]}")
    for term in model.evidence:
        print(f"evidence {term.feature}: precision {term.precision:.3f}")
    print(
        f"5-fold CV grouped by {GROUP} (in-domain): AUROC macro over datasets {held.macro['auroc']:.3f}, "
        f"pooled {held.pooled.auroc:.3f}, ECE(10 bins, mass) {held.pooled.ece_mass:.3f}"
    )
    assert model.domain is not None
    d = model.domain
    print(f"calibration domain: tail {d.tail}, in-sample alarms {d.in_sample_alarm_rate:.1%}")
    path = save_model(model, output)
    print(f"wrote {path} ({model.description})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
