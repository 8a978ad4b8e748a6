"""Which model form fuses the offline signals best: leave one domain out on the corpus, and on the
corruption benchmark.

    .venv/bin/python -m benchmarks.quality.fusion_forms [--scored .cache-data/corpus/scored.jsonl]
        [--corruption .cache-data/corruption/scored.jsonl]

The forms compared, each over the claims calibrator's features (``FEATURES_CLAIMS``) with an intercept
per data set while fitting (``INTERCEPT_BY``), fitted on the shippable domains minus the held-out one:

- ``linear``: the L2 logistic regression shipped before (a contradiction is one more log-odds term);
- ``evidence: facts``: the same, with the count of contradicted facts also an evidence term (a noisy-OR:
  the score times ``1 - precision`` where it fires, the precision fitted with the weights);
- ``evidence: facts + polarity``: and the count of contradicted negations / antonyms as a feature and a
  second evidence term;
- ``monotone boosting``: scikit-learn's ``HistGradientBoostingClassifier`` over the same raw numbers,
  each constrained monotone in the direction its meaning fixes (``monotonic_cst``), fitted on the
  pooled rows (benchmark only: scikit-learn is a test dependency).

With ``--fit-corruptions`` (default: ``.cache-data/corruption/fit_scored.jsonl`` when it exists: pairs
built by ``benchmarks.quality.corruption_pairs --seed 1 --exclude .cache-data/corruption/pairs.jsonl``, so no
context of the benchmark), every form is also fitted with those rows added as one more data set (they
fit the weights, not the pooled intercept: their share of errors is no one's base rate). A fold leaves
out the corruptions of the held-out domain's contexts (``corruptions_for``): other documents, but that
domain's text, which a held-out domain must not lend its fit.

With ``--fit-extra`` (default: ``.cache-data/corpus/extra_scored.jsonl`` when it exists: real labeled rows
of documents the corpus does not hold, ``calibration.build_corpus --extra``, scored like the corpus), the
shipped form and its close variants are also fitted with those rows added to each fold's training rows,
less every extra row whose document the held-out domain's source shares (its field
``shares_documents_with``: its own domain, FRANK BBC's with XSumFaith, a RAGTruth Summary article that
is also FactCC's).

Prints AUROC per held-out domain and macro (positive = hallucinated) with each signal's own AUROC and
the fused score's gap to the best of them; the same table with every domain in the fit, each row
measured out of fold (what a form reaches where nothing has to transfer: ``pooled``); then each form
fitted on every shippable domain and scored on the corruption benchmark
(``benchmarks.quality.corruption``). FActScore is measured, never fitted on.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from pydantic import JsonValue

from benchmarks.quality.corruption import DEFAULT_SCORED as CORRUPTION_SCORED
from benchmarks.quality.corruption import report as corruption_report
from benchmarks.quality.corruption import summarise
from benchmarks.quality.multidomain import DEFAULT_SCORED, _auroc, _training, domains_of
from calibration.build_corpus import SHIPPABLE
from trustscore._types import Signal
from trustscore.fitting._calibrator import FitOptions, fit_calibrator
from trustscore.fitting._shipped import (
    DATES_UNSTATED,
    FEATURES_CLAIMS,
    GROUP,
    INTERCEPT_BY,
    LABEL,
    NAMES_UNSTATED,
)
from trustscore.rows._scored import ScoredRow, label_column, read_scored
from trustscore.stats._cv import grouped_kfold

FACTS = "claims:raw.contradicted_facts|identity"
POLARITY = "claims:raw.contradicted_polarity|identity"
Predict = Callable[[Sequence[ScoredRow]], NDArray[np.float64]]
"""P(trustworthy) per row."""
Fit = Callable[[Sequence[ScoredRow]], Predict]


def _linear(
    features: Sequence[str], evidence: tuple[str, ...], *, l2: float = 1.0, values_apart: bool = False
) -> Callable[[Sequence[ScoredRow]], Predict]:
    def fit(rows: Sequence[ScoredRow]) -> Predict:
        model, _ = fit_calibrator(
            rows,
            label=LABEL,
            group=GROUP,
            features=list(features),
            name="candidate",
            options=FitOptions(
                folds=2,
                l2=l2,
                intercept_by=INTERCEPT_BY,
                evidence=evidence,
                intercept_without=("corruptions",),
                values_without=("corruptions",) if values_apart else (),
            ),
        )
        return lambda test: model.predict_raw(model.raw_matrix([r.signals for r in test]))

    return fit


def with_shape(row: ScoredRow) -> ScoredRow:
    """The row with a derived signal ``shape``: the response's length in checked words (log), and that
    length times the lexical log-odds and times the embedding value, so a linear fit can weigh overlap
    and meaning differently for one-sentence summaries and long answers (missing where lexical is)."""
    lexical, embedding = row.signals.get("lexical"), row.signals.get("embedding")
    if lexical is None or lexical.value is None or not isinstance(lexical.raw, dict):
        return row
    checked = lexical.raw.get("words")
    words = float(np.log1p(checked if isinstance(checked, int | float) else 0))
    q = min(max(lexical.value, 1e-4), 1 - 1e-4)
    raw: dict[str, JsonValue] = {"log_words": words, "lexical_x_words": float(np.log(q / (1 - q))) * words}
    if embedding is not None and embedding.value is not None:
        raw["embedding_x_words"] = embedding.value * words
    shape = Signal(name="shape", value=1.0, raw=raw, version="shape/bench")
    return row.model_copy(update={"signals": {**row.signals, "shape": shape}})


_DIRECTION = {
    "lexical|logit": 1,
    "embedding:raw.min|identity": 1,
    "claims:raw.unsupported_share|identity": -1,
}
"""+1: a higher number can only raise P(trustworthy); -1: only lower it (shares and counts of what the
context does not hold or contradicts)."""


def _boosting(features: Sequence[str]) -> Callable[[Sequence[ScoredRow]], Predict]:
    from sklearn.ensemble import HistGradientBoostingClassifier

    from trustscore.fusion._features import parse_feature

    specs = [parse_feature(f) for f in features]

    def matrix(rows: Sequence[ScoredRow]) -> NDArray[np.float64]:
        return np.array([[np.nan if (v := s.read(r.signals)) is None else v for s in specs] for r in rows])

    def fit(rows: Sequence[ScoredRow]) -> Predict:
        trust = 1.0 - label_column(rows, LABEL)
        cst = [_DIRECTION.get(s.key, -1) for s in specs]
        clf = HistGradientBoostingClassifier(
            monotonic_cst=cst, max_iter=200, learning_rate=0.05, max_leaf_nodes=8, random_state=0
        )
        clf.fit(matrix(rows), trust)
        return lambda test: clf.predict_proba(matrix(test))[:, 1]

    return fit


EVIDENCE = [*FEATURES_CLAIMS, POLARITY]
SHAPE = [
    "shape:raw.log_words|identity",
    "shape:raw.lexical_x_words|identity",
    "shape:raw.embedding_x_words|identity",
]
COPY = "lexical:raw.ordered_pairs_unsupported_share|identity"
WORST_SENTENCE = "embedding:raw.min|identity"
LOWER_QUARTILE = "embedding|identity"
FORMS: dict[str, Callable[[Sequence[ScoredRow]], Predict]] = {
    "linear": _linear(FEATURES_CLAIMS, ()),
    "evidence: facts": _linear(FEATURES_CLAIMS, (FACTS,)),
    "evidence: facts + polarity": _linear(EVIDENCE, (FACTS, POLARITY)),
    "monotone boosting": _boosting(EVIDENCE),
    "evidence + unstated names": _linear([*EVIDENCE, *NAMES_UNSTATED], (FACTS, POLARITY)),
    "evidence + names + copy ratio": _linear([*EVIDENCE, *NAMES_UNSTATED, COPY], (FACTS, POLARITY)),
    "evidence + names + length x values": _linear([*EVIDENCE, *NAMES_UNSTATED, *SHAPE], (FACTS, POLARITY)),
}
"""The forms fitted on the corpus rows, each also with the corruption fit set (``forms``)."""
SHIPPED = [*EVIDENCE, *NAMES_UNSTATED, *DATES_UNSTATED]
SHIPPED_EVIDENCE = (FACTS, POLARITY, *DATES_UNSTATED)
WITH_CORRUPTIONS_ONLY: dict[str, Callable[[Sequence[ScoredRow]], Predict]] = {
    f"evidence + names + dates, values apart{tag}": _linear(
        SHIPPED, SHIPPED_EVIDENCE, l2=l2, values_apart=True
    )
    for tag, l2 in (("", 1.0), (", l2 0.3", 0.3), (", l2 3", 3.0))
} | {
    "evidence + names, values apart": _linear(
        [*EVIDENCE, *NAMES_UNSTATED], (FACTS, POLARITY), values_apart=True
    ),
    "evidence + names, values apart, l2 0.3, lower quartile": _linear(
        [LOWER_QUARTILE if f == WORST_SENTENCE else f for f in [*EVIDENCE, *NAMES_UNSTATED]],
        (FACTS, POLARITY),
        l2=0.3,
        values_apart=True,
    ),
}
"""Forms that only differ from the others with the corruption fit set: its rows do not fit the weights of
the signals' values (``FitOptions.values_without``), the shipped one (the count of unstated dates a
feature and an evidence term too) at the shipped ridge strength and a weaker and a stronger one; the same
without the dates, shipped before; and an older form, which read the embedding signal's value (the lower
quartile of the response's sentences) where the others read its least supported sentence."""

SIGNALS = ("lexical", "embedding", "claims")


WITH_EXTRA = [
    "evidence + names + dates, values apart",
    "evidence + names + dates, values apart, l2 0.3",
    "evidence + names + dates, values apart, l2 3",
    "evidence + names + length x values",
]
"""The forms also fitted with the extra fit set (and the corruption fit set): the shipped one first."""


def _adding(fit: Fit, added: Sequence[ScoredRow]) -> Fit:
    return lambda rows: fit([*rows, *added])


def forms(corruptions: Sequence[ScoredRow], extra: bool = False) -> dict[str, tuple[Fit, bool]]:
    """{name: (fit, whether its training rows take the extra fit set)}: every form fitted on the corpus
    rows given; with ``corruptions`` (the corruption fit set) every form fitted with those rows added;
    with ``extra``, the ``WITH_EXTRA`` forms fitted with both fit sets."""
    out: dict[str, tuple[Fit, bool]] = {name: (fit, False) for name, fit in FORMS.items()}
    every = {**FORMS, **WITH_CORRUPTIONS_ONLY}
    for name, fit in every.items() if corruptions else ():
        out[f"{name}, + corruption fit set"] = (_adding(fit, corruptions), False)
    for name in WITH_EXTRA if extra and corruptions else ():
        out[f"{name}, + corruption and extra fit sets"] = (_adding(every[name], corruptions), True)
    return out


def extra_for(extra: Sequence[ScoredRow], held_out: str | None) -> list[ScoredRow]:
    """The extra fit rows a fold may train on: none whose document the held-out domain's source holds."""
    return [r for r in extra if held_out not in r.fields.get("shares_documents_with", [r.fields["dataset"]])]


def corruptions_for(corruptions: Sequence[ScoredRow], held_out: str) -> list[ScoredRow]:
    """The corruption fit rows a fold may train on: none built from a context of the held-out domain.
    Rows without ``context_domain`` (pairs built before the builder wrote it) are refused: a fold
    could not leave out its own domain's rows."""
    unmarked = [r.id for r in corruptions if "context_domain" not in r.fields]
    if unmarked:
        raise ValueError(
            f"{len(unmarked)} corruption fit rows (first: {unmarked[0]}) have no 'context_domain': rebuild "
            "them with `python -m benchmarks.quality.corruption_pairs` and score them again"
        )
    return [r for r in corruptions if r.fields["context_domain"] != held_out]


def lodo(
    rows: Sequence[ScoredRow], corruptions: Sequence[ScoredRow] = (), extra: Sequence[ScoredRow] = ()
) -> dict[str, dict[str, float | None]]:
    """{form or "<signal> alone": {domain: AUROC, "macro": ...}}."""
    y = label_column(rows, LABEL)
    names = forms(corruptions, bool(extra))
    out: dict[str, dict[str, float | None]] = {
        name: {} for name in (*names, *(f"{s} alone" for s in SIGNALS))
    }
    for d in domains_of(rows):
        fits = forms(corruptions_for(corruptions, d), bool(extra))
        test = [i for i, r in enumerate(rows) if r.fields["dataset"] == d]
        train = [rows[i] for i in _training(rows, d)]
        train_extra = [*train, *extra_for(extra, d)]
        test_rows = [rows[i] for i in test]
        for name in names:
            if name not in fits:  # every corruption fit row is of this domain: the form has none to add
                out[name][d] = None
                continue
            fit, with_extra = fits[name]
            out[name][d] = _auroc(y[test], 1.0 - fit(train_extra if with_extra else train)(test_rows))
        for s in SIGNALS:
            out[f"{s} alone"][d] = _alone(s, test_rows, y[test])
    return _with_macro(out)


def pooled(
    rows: Sequence[ScoredRow],
    corruptions: Sequence[ScoredRow] = (),
    extra: Sequence[ScoredRow] = (),
    folds: int = 5,
) -> dict[str, dict[str, float | None]]:
    """As :func:`lodo`, but with every domain in the training rows: five folds over the rows' source
    ids (:data:`GROUP`), each row measured by the fit on the folds it is not in. What each form
    reaches where nothing has to transfer to a new domain (FActScore, never fitted on, is measured
    by the same fits). An article two data sets both hold (a CNN/DM article of FactCC and of FRANK)
    has an id in each and may fall in two folds: that can only flatter these figures."""
    y = label_column(rows, LABEL)
    trust: dict[str, NDArray[np.float64]] = {}
    fits = forms(corruptions, bool(extra))
    for train_idx, test_idx in grouped_kfold([r.fields[GROUP] for r in rows], folds):
        train = [rows[i] for i in train_idx if rows[i].fields["dataset"] in SHIPPABLE]
        test = [rows[i] for i in test_idx]
        for name, (fit, with_extra) in fits.items():
            column = trust.setdefault(name, np.full(len(rows), np.nan))
            column[test_idx] = fit([*train, *extra] if with_extra else train)(test)
    by_domain = {d: [i for i, r in enumerate(rows) if r.fields["dataset"] == d] for d in domains_of(rows)}
    out = {
        name: {d: _auroc(y[idx], 1.0 - t[idx]) for d, idx in by_domain.items()} for name, t in trust.items()
    }
    for s in SIGNALS:
        out[f"{s} alone"] = {d: _alone(s, [rows[i] for i in idx], y[idx]) for d, idx in by_domain.items()}
    return _with_macro(out)


def _alone(signal: str, rows: Sequence[ScoredRow], y: NDArray[np.float64]) -> float | None:
    signals = [r.signals.get(signal) for r in rows]
    value = [np.nan if sig is None or sig.value is None else sig.value for sig in signals]
    return _auroc(y, 1.0 - np.array(value))


def _with_macro(table: dict[str, dict[str, float | None]]) -> dict[str, dict[str, float | None]]:
    for per in table.values():
        vals = [v for v in per.values() if v is not None]
        per["macro"] = float(np.mean(vals)) if vals else None
    return table


def _f(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def lodo_report(table: dict[str, dict[str, float | None]]) -> str:
    domains = [d for d in next(iter(table.values())) if d != "macro"]
    lines = [
        "| form | " + " | ".join(domains) + " | macro | worst gap to the best single signal |",
        "|---|" + "---|" * (len(domains) + 2),
    ]
    for name, per in table.items():
        gap = ""
        if not name.endswith(" alone"):
            gaps = []
            for d in domains:
                best = max((v for s in SIGNALS if (v := table[f"{s} alone"][d]) is not None), default=None)
                if best is not None and (auroc := per[d]) is not None:
                    gaps.append((auroc - best, d))
            worst = min(gaps)
            gap = f"{worst[0]:+.3f} ({worst[1]})"
        lines.append(
            f"| {name} | " + " | ".join(_f(per[d]) for d in domains) + f" | {_f(per['macro'])} | {gap} |"
        )
    return "\n".join(lines)


def scored_files_parser(description: str | None) -> argparse.ArgumentParser:
    """A parser with the scored files the forms are fitted and measured on: the corpus, the corruption
    benchmark and its fit set (each a default path under .cache-data/)."""
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scored", type=Path, default=DEFAULT_SCORED)
    parser.add_argument("--corruption", type=Path, default=CORRUPTION_SCORED)
    parser.add_argument(
        "--fit-corruptions",
        type=Path,
        default=CORRUPTION_SCORED.with_name("fit_scored.jsonl"),
        help="scored corruption pairs from contexts the benchmark does not use, added to the training rows",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = scored_files_parser(__doc__)
    parser.add_argument(
        "--fit-extra",
        type=Path,
        default=DEFAULT_SCORED.with_name("extra_scored.jsonl"),
        help="scored rows of documents the corpus does not hold (calibration.build_corpus --extra), "
        "added to the training rows of the shipped form and its variants",
    )
    args = parser.parse_args(argv)
    if not args.scored.exists():
        print(f"SKIP: {args.scored} not found; build and score the corpus first (calibration/README.md)")
        return 0
    rows = [with_shape(r) for r in read_scored(args.scored)]
    corruptions = (
        [with_shape(r) for r in read_scored(args.fit_corruptions)] if args.fit_corruptions.exists() else []
    )
    try:
        corruptions_for(corruptions, "")
    except ValueError as e:
        print(f"error: {args.fit_corruptions}: {e}", file=sys.stderr)
        return 2
    extra = [with_shape(r) for r in read_scored(args.fit_extra)] if args.fit_extra.exists() else []
    if extra and not corruptions:
        print(
            f"SKIP {args.fit_extra}: the extra fit set is measured beside the corruption fit set, and "
            f"{args.fit_corruptions} is not there"
        )
    print("## Leave one domain out: AUROC on the held-out domain (positive = hallucinated)")
    print(lodo_report(lodo(rows, corruptions, extra)))
    print("\n## Every domain in the fit, five folds over source documents: what each form reaches in domain")
    print(lodo_report(pooled(rows, corruptions, extra)))
    if not args.corruption.exists():
        return 0
    pairs = [with_shape(r) for r in read_scored(args.corruption) if "kind" in r.fields]
    train = [r for r in rows if r.fields["dataset"] in SHIPPABLE]
    columns = {
        name: summarise(pairs, fit([*train, *extra] if with_extra else train)(pairs).tolist())
        for name, (fit, with_extra) in forms(corruptions, bool(extra)).items()
    }
    counts: dict[str, int] = {}
    for r in pairs:
        counts[str(r.fields["kind"])] = counts.get(str(r.fields["kind"]), 0) + 1
    print("\n## Fitted on every shippable domain, scored on the corruption benchmark")
    print(corruption_report(columns, counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
