"""The fast local signals and the shipped calibrator across domains: held out by domain, the calibration
domain's false-alarm rate, and few-label recalibration.

    .venv/bin/python -m calibration.build_corpus                       # once: writes the corpus
    .venv/bin/trustscore score .cache-data/corpus/corpus.jsonl -o .cache-data/corpus/scored.jsonl
    python -m benchmarks.quality.multidomain [--scored .cache-data/corpus/scored.jsonl] [--json out.json]
    python -m benchmarks.quality.multidomain --claims --scored .cache-data/corpus/scored_claims.jsonl

Reads the scored corpus only (never rescores). Positive class = hallucinated; ECE with 10 equal-mass
bins. Training data for every fit: the domains whose licence lets the result ship
(``calibration.build_corpus.SHIPPABLE``) minus the held-out one; ``factscore`` is never trained on.

1. **Signals per domain** (no fitting, raw AUROC): the bag-of-words baseline (lexical
   ``raw.unsupported_share``: share of the response's content words, numbers and names absent from
   context + question), lexical and
   embedding before and after this version's changes (both read from the same run: the signals report
   the old aggregate beside the new), and the negation mismatch.
2. **Leave one domain out**: for each domain, the fused model fitted on the others, AUROC and ECE on it,
   next to the baseline; the share of its rows outside the fitted model's calibration domain, and the
   ECE on the rows inside.
3. **In-domain**: 5-fold CV grouped by document over the shippable domains pooled: ECE on held-out rows
   inside the calibration domain, and the domain check's false-alarm rate (held-out in-domain rows
   flagged outside).
4. **Few labels** (``--adapt``): per held-out domain, the leave-one-domain-out model adapted with n
   labeled rows of that domain (n = 25, 50, 100, 150; 20 draws of whole documents), measured on the
   domain's other rows: ECE and AUROC, median [min, max] over draws, against the unadapted model.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from benchmarks._results import save_json
from calibration.build_corpus import SHIPPABLE
from trustscore.fitting._adapt import adapt_model
from trustscore.fitting._calibrator import FitOptions, fit_calibrator
from trustscore.fitting._shipped import FEATURES, GROUP, INTERCEPT_BY, LABEL
from trustscore.fusion._model import FusionModel
from trustscore.rows._scored import ScoredRow, label_column, read_scored
from trustscore.stats._cv import grouped_kfold
from trustscore.stats._metrics import auroc, ece, log_loss

REPO = Path(__file__).resolve().parents[2]
DEFAULT_SCORED = REPO / ".cache-data" / "corpus" / "scored.jsonl"
ECE_BINS = 10
ADAPT_SIZES = (25, 50, 100, 150)
ADAPT_DRAWS = 20

_BASE = [
    "lexical",
    "embedding|identity",
    "lexical:raw.unsupported_share|identity",
    "lexical:raw.numbers_unsupported_share|identity",
]
"""The two signal values, the unweighted unsupported share and the share of unsupported numbers: the
shipped set of the previous calibrator, which most candidates extend."""

_PARTS = [
    "embedding:raw.min|identity",
    "embedding:raw.softmin|identity",
    "embedding:raw.frac_low|identity",
    "lexical:raw.unsupported_share|identity",
]
_NEGATION = "embedding:raw.negation_mismatch|identity"
_SENTENCE_MAX = "lexical:raw.sentence_max_unsupported_share|identity"
_PAIRS = "lexical:raw.pairs_unsupported_share|identity"
_ORDERED_PAIRS = "lexical:raw.ordered_pairs_unsupported_share|identity"
_NAMES = "lexical:raw.names_unsupported_share|identity"
_WEIGHTED = "lexical:raw.weighted_unsupported_share|identity"
_AMOUNT = "lexical:raw.log_unsupported_weight|identity"
_CLAIMS = "claims"
_CONTRADICTED_FACTS = "claims:raw.contradicted_facts|identity"
_CLAIMS_UNSUPPORTED = "claims:raw.unsupported_share|identity"
_WORST_SENTENCE = "embedding:raw.min|identity"
_SHRUNK_SHARE = "lexical:raw.shrunk_unsupported_share|identity"

CANDIDATES: dict[str, list[str]] = {
    "values": _BASE[:2],
    "values+unsupported": _BASE[:3],
    "values+unsupported+numbers": _BASE,
    "values+unsupported+negation": [*_BASE[:3], _NEGATION],
    "values+parts": [*_BASE[:2], *_PARTS],
    "values+parts+negation": [*_BASE[:2], *_PARTS, _NEGATION],
    "+sentence max": [*_BASE, _SENTENCE_MAX],
    "+pairs": [*_BASE, _PAIRS],
    "+ordered pairs": [*_BASE, _ORDERED_PAIRS],
    "+names": [*_BASE, _NAMES],
    "+sentence max+pairs": [*_BASE, _SENTENCE_MAX, _PAIRS],
    "+sentence max+ordered pairs": [*_BASE, _SENTENCE_MAX, _ORDERED_PAIRS],
    "+meaning (max, pairs, names, negation)": [*_BASE, _SENTENCE_MAX, _PAIRS, _NAMES, _NEGATION],
    "+all lexical parts": [*_BASE, _SENTENCE_MAX, _PAIRS, _ORDERED_PAIRS, _NAMES, _WEIGHTED],
    "+amount": [*_BASE, _AMOUNT],
    "+amount+sentence max": [*_BASE, _AMOUNT, _SENTENCE_MAX],
    "+amount+claims": [*_BASE, _AMOUNT, _CLAIMS],
    "+amount+contradicted facts": [*_BASE, _AMOUNT, _CONTRADICTED_FACTS],
    "+amount+contradicted facts+unsupported": [*_BASE, _AMOUNT, _CONTRADICTED_FACTS, _CLAIMS_UNSUPPORTED],
    "+amount, worst sentence": [_BASE[0], _WORST_SENTENCE, *_BASE[2:], _AMOUNT],
    "+amount+contradicted facts+unsupported, worst sentence": [
        _BASE[0],
        _WORST_SENTENCE,
        *_BASE[2:],
        _AMOUNT,
        _CONTRADICTED_FACTS,
        _CLAIMS_UNSUPPORTED,
    ],
    "+amount+contradicted facts+unsupported, worst sentence, shrunk share": [
        _BASE[0],
        _WORST_SENTENCE,
        _SHRUNK_SHARE,
        *_BASE[3:],
        _AMOUNT,
        _CONTRADICTED_FACTS,
        _CLAIMS_UNSUPPORTED,
    ],
}
"""Feature sets compared leave one domain out (``--candidates``), written down before any of the new
parts (sentence max, pairs) was measured, except the two ``+amount`` sets: added after the single-signal
table showed the unsupported *amount* separating RAGTruth QA's rows (0.827) where every share failed,
``+amount+claims``, the shipped set and the claims signal's value, added with that signal before any
fit with it was measured, and the two ``+amount+contradicted facts`` sets, the shipped set and the
claims signal's count of contradicted numbers, amounts, dates and names (and its unsupported share),
added after a table of how often each kind of contradiction marks a hallucinated row
(docs/calibration.md) showed the value mixing a precise kind with an uninformative one; and the two
``worst sentence`` sets, the two shipped sets with the embedding similarity of the response's least
supported sentence in place of the signal's value (the lower quartile of its sentences), added after
the fused model trailed lexical support alone on RAGTruth QA held out, where the lower quartile mostly
reads the answer's length (the table by response length); and ``shrunk share``, the claims set with
the unsupported share shrunk by a prior of supported words, added after the corruption benchmark's
faithful one-sentence paraphrases showed the plain share over a handful of words holding them down (the
prior chosen leave one domain out by ``benchmarks.quality.fusion_forms``'s shipped form).
None reads a length or a domain label: lengths differ so much between domains that a model reading them
learns each domain's base rate, which does not carry to a new one.

**The rule that picks among them** (``select_features``): the best macro AUROC of leave one domain out
over the training domains alone. ``nested`` applies that rule inside each held-out split (the held-out
domain plays no part in choosing), so its figures measure the procedure, choice included; the shipped
set is the rule applied to all the shippable domains. The rule chooses a feature set and a way of
fitting together (``FITS``)."""

FITS: dict[str, str | None] = {"pooled": None, "intercept per dataset": "dataset"}
"""``FitOptions.intercept_by`` of each way of fitting: one intercept for all the training rows, or one
per data set while the weights are fitted (so they do not learn which data set hallucinates more)."""

# The shipped models' feature sets and way of fitting (trustscore.fitting._shipped: FEATURES is
# CANDIDATES["+amount, worst sentence"], FEATURES_CLAIMS is
# CANDIDATES["+amount+contradicted facts+unsupported, worst sentence, shrunk share"] for
# Scorers that run the claims signal, INTERCEPT_BY is FITS["intercept per dataset"]; a test holds them
# equal). ``select_features`` over every shippable domain (``--candidates`` prints it as "the rule on
# every shippable domain chooses") picks FEATURES among the sets without the claims signal; over every
# set it picks the claims signal's value ("+amount+claims", 0.003 above the claims counts in these
# plain linear fits), and the claims calibrator is chosen instead among the model forms that let a
# contradiction decide (evidence terms, the corruption fit set) by ``benchmarks.quality.fusion_forms``.
# Its plain leave-one-domain-out figures are flattering by the choice; ``nested`` measures the procedure.


def _raw(row: ScoredRow, signal: str, key: str) -> float | None:
    sig = row.signals.get(signal)
    if sig is None or sig.value is None or not isinstance(sig.raw, dict):
        return None
    v = sig.raw.get(key)
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def _value(row: ScoredRow, signal: str) -> float | None:
    sig = row.signals.get(signal)
    return None if sig is None else sig.value


def _neg(v: float | None) -> float | None:
    return None if v is None else -v


SINGLE: dict[str, Callable[[ScoredRow], float | None]] = {
    "bag-of-words baseline": lambda r: _raw(r, "lexical", "unsupported_share"),
    "lexical before (plain weighted share)": lambda r: _raw(r, "lexical", "weighted_unsupported_share"),
    "lexical now (smoothed share)": lambda r: _neg(_value(r, "lexical")),
    "embedding before (sentences alone, q25)": lambda r: _neg(_raw(r, "embedding", "plain_q25")),
    "embedding now (short answers as claims, q25)": lambda r: _neg(_value(r, "embedding")),
    "negation mismatch": lambda r: _raw(r, "embedding", "negation_mismatch"),
    "worst sentence's smoothed share": lambda r: _raw(r, "lexical", "sentence_max_unsupported_share"),
    "unsupported amount ln(1 + weight)": lambda r: _raw(r, "lexical", "log_unsupported_weight"),
    "pairs apart (either order)": lambda r: _raw(r, "lexical", "pairs_unsupported_share"),
    "pairs apart (in order)": lambda r: _raw(r, "lexical", "ordered_pairs_unsupported_share"),
    "unsupported names share": lambda r: _raw(r, "lexical", "names_unsupported_share"),
}
"""Each oriented so that higher = more likely hallucinated."""


def domains_of(rows: Sequence[ScoredRow]) -> list[str]:
    return sorted({str(r.fields["dataset"]) for r in rows})


def _auroc(y: NDArray[np.float64], s: NDArray[np.float64]) -> float | None:
    ok = ~np.isnan(s)
    if ok.sum() < 2 or len(set(y[ok].tolist())) < 2:
        return None
    return auroc(y[ok], s[ok])


def signal_table(rows: Sequence[ScoredRow]) -> dict[str, dict[str, float | None]]:
    """{signal: {domain: AUROC}} on every row of each domain, plus ``macro``."""
    y = label_column(rows, LABEL)
    out: dict[str, dict[str, float | None]] = {}
    for name, read in SINGLE.items():
        s = np.array([np.nan if (v := read(r)) is None else v for r in rows], dtype=np.float64)
        per: dict[str, float | None] = {}
        for d in domains_of(rows):
            idx = np.array([str(r.fields["dataset"]) == d for r in rows])
            per[d] = _auroc(y[idx], s[idx])
        vals = [v for v in per.values() if v is not None]
        per["macro"] = float(np.mean(vals)) if vals else None
        out[name] = per
    return out


def fit(
    rows: Sequence[ScoredRow],
    name: str = "local_multidomain",
    data_name: str = "corpus",
    features: Sequence[str] = FEATURES,
    intercept_by: str | None = INTERCEPT_BY,
) -> FusionModel:
    model, _ = fit_calibrator(
        rows,
        label=LABEL,
        group=GROUP,
        features=list(features),
        name=name,
        options=FitOptions(folds=2, intercept_by=intercept_by),
        data_name=data_name,
    )
    return model


def p_hallucinated(model: FusionModel, rows: Sequence[ScoredRow]) -> NDArray[np.float64]:
    return 1.0 - model.predict_adapted(model.raw_matrix([r.signals for r in rows]))


def inside(model: FusionModel, rows: Sequence[ScoredRow]) -> NDArray[np.bool_]:
    """Whether each row lies inside the model's calibration domain (lengths from the lexical raw)."""
    assert model.domain is not None
    out = []
    for r in rows:
        values: dict[str, float | None] = {f.spec.key: f.spec.read(r.signals) for f in model.features}
        values["response_words"] = _raw(r, "lexical", "response_words")
        values["context_words"] = _raw(r, "lexical", "context_words")
        out.append(not model.domain.check(values))
    return np.array(out, dtype=bool)


def _ece(y: NDArray[np.float64], p: NDArray[np.float64]) -> float | None:
    ok = ~np.isnan(p)
    return ece(y[ok], p[ok], n_bins=ECE_BINS, strategy="mass").value if ok.sum() >= ECE_BINS else None


def _training(rows: Sequence[ScoredRow], held_out: str) -> list[int]:
    """Indices of the shippable rows outside the held-out domain."""
    return [
        i for i, r in enumerate(rows) if r.fields["dataset"] != held_out and r.fields["dataset"] in SHIPPABLE
    ]


def compare_candidates(held: _HeldOut) -> dict[str, dict[str, float | None]]:
    """{"feature set / way of fitting": {held-out domain: AUROC, ..., "macro": ...}} leave one domain
    out (not nested: every candidate's figures, for reading, not for choosing)."""
    shippable = frozenset(d for d in held.dataset if d in SHIPPABLE)
    out: dict[str, dict[str, float | None]] = {}
    for features in CANDIDATES:
        for how in FITS:
            per: dict[str, float | None] = {
                d: held.auroc(shippable - {d}, d, (features, how)) for d in domains_of(held.rows)
            }
            vals = [v for v in per.values() if v is not None]
            per["macro"] = float(np.mean(vals)) if vals else None
            out[f"{features} / {how}"] = per
    return out


class _HeldOut:
    """AUROC of a feature set fitted on some domains and measured on another, memoised: the nested
    selection asks for the same (training domains, measured domain, features) many times."""

    def __init__(self, rows: Sequence[ScoredRow]) -> None:
        self.rows = rows
        self.y = label_column(rows, LABEL)
        self.dataset = [str(r.fields["dataset"]) for r in rows]
        self._memo: dict[tuple[frozenset[str], str, str, str], float | None] = {}

    def auroc(self, train: frozenset[str], measured: str, key: tuple[str, str]) -> float | None:
        memo = (train, measured, *key)
        if memo not in self._memo:
            model = fit(
                [r for r, d in zip(self.rows, self.dataset, strict=True) if d in train],
                features=CANDIDATES[key[0]],
                intercept_by=FITS[key[1]],
            )
            test = [i for i, d in enumerate(self.dataset) if d == measured]
            self._memo[memo] = _auroc(self.y[test], p_hallucinated(model, [self.rows[i] for i in test]))
        return self._memo[memo]

    def lodo_macro(self, domains: frozenset[str], key: tuple[str, str]) -> float:
        """Macro AUROC of ``key`` over ``domains``, each held out from a fit on the others."""
        vals = [self.auroc(domains - {d}, d, key) for d in sorted(domains)]
        return float(np.mean([v for v in vals if v is not None]))


def select_features(held: _HeldOut, domains: frozenset[str]) -> tuple[str, str]:
    """The (feature set, way of fitting) with the best leave-one-domain-out macro AUROC over ``domains``
    (the first on a tie)."""
    return max(
        ((features, how) for features in CANDIDATES for how in FITS),
        key=lambda key: held.lodo_macro(domains, key),
    )


def nested(rows: Sequence[ScoredRow], held: _HeldOut | None = None) -> dict[str, dict[str, Any]]:
    """Leave one domain out with the feature set chosen by :func:`select_features` on the training
    domains only: {held-out domain: chosen set, its AUROC there, the baseline's}; ``"shipped"`` is the
    rule applied to every shippable domain."""
    held = held or _HeldOut(rows)
    shippable = frozenset(d for d in held.dataset if d in SHIPPABLE)
    base = SINGLE["bag-of-words baseline"]
    out: dict[str, dict[str, Any]] = {}
    for d in domains_of(rows):
        train = shippable - {d}
        key = select_features(held, train)
        test = [rows[i] for i, x in enumerate(held.dataset) if x == d]
        b = np.array([np.nan if (v := base(r)) is None else v for r in test])
        out[d] = {
            "chosen": " / ".join(key),
            "auroc": held.auroc(train, d, key),
            "baseline_auroc": _auroc(label_column(test, LABEL), b),
        }
    out["shipped"] = {"chosen": " / ".join(select_features(held, shippable))}
    return out


def by_length(rows: Sequence[ScoredRow]) -> dict[str, dict[str, Any]]:
    """Per domain, by quarter of response length in words: the share hallucinated and the mean embedding
    value; and inside the shorter and the longer half, the AUROC of the embedding and of the baseline.
    Shows whether a signal separates rows or only reads their length. Rows the lexical signal does not
    read (an abstention, an answer in another language) have no length and are left out."""
    y_all = label_column(rows, LABEL)
    out: dict[str, dict[str, Any]] = {}
    for d in domains_of(rows):
        idx = [
            i
            for i, r in enumerate(rows)
            if r.fields["dataset"] == d and _raw(r, "lexical", "response_words") is not None
        ]
        sub = [rows[i] for i in idx]
        y = y_all[idx]
        length = np.array([float(_raw(r, "lexical", "response_words") or 0) for r in sub])
        emb = np.array([np.nan if (v := _value(r, "embedding")) is None else v for r in sub])
        base = np.array([np.nan if (v := SINGLE["bag-of-words baseline"](r)) is None else v for r in sub])
        order = np.argsort(length, kind="stable")
        quarters = np.array_split(order, 4)
        halves = np.array_split(order, 2)
        out[d] = {
            "quarters": [
                {
                    "words": [float(length[q].min()), float(length[q].max())],
                    "hallucinated": float(y[q].mean()),
                    "embedding": float(np.nanmean(emb[q])),
                }
                for q in quarters
            ],
            "embedding_auroc_halves": [_auroc(y[h], -emb[h]) for h in halves],
            "baseline_auroc_halves": [_auroc(y[h], base[h]) for h in halves],
        }
    return out


def within_domain(rows: Sequence[ScoredRow]) -> dict[str, dict[str, Any]]:
    """Each domain fitted on its own rows alone: the best 5-fold grouped-CV AUROC among the candidate
    sets (pooled fit) and which set gave it. The best of many, so optimistic: an upper reference for
    what these signals can do on a domain, not an estimate."""
    out: dict[str, dict[str, Any]] = {}
    for d in domains_of(rows):
        sub = [r for r in rows if r.fields["dataset"] == d]
        best: tuple[float, str] | None = None
        for key, features in CANDIDATES.items():
            try:
                _, report = fit_calibrator(sub, label=LABEL, group=GROUP, features=features, name=d)
            except ValueError:
                continue  # a feature with no value on this domain (FactCC has no names): not a candidate here
            a = report.held_out.report.pooled.auroc
            if a is not None and (best is None or a > best[0]):
                best = (a, key)
        out[d] = {"auroc": None if best is None else best[0], "chosen": None if best is None else best[1]}
    return out


def leave_one_domain_out(rows: Sequence[ScoredRow]) -> dict[str, dict[str, Any]]:
    y = label_column(rows, LABEL)
    base = SINGLE["bag-of-words baseline"]
    out: dict[str, dict[str, Any]] = {}
    for d in domains_of(rows):
        test = [i for i, r in enumerate(rows) if r.fields["dataset"] == d]
        train = _training(rows, d)
        model = fit([rows[i] for i in train], data_name=f"corpus without {d}")
        test_rows = [rows[i] for i in test]
        p = p_hallucinated(model, test_rows)
        b = np.array([np.nan if (v := base(r)) is None else v for r in test_rows])
        ins = inside(model, test_rows)
        out[d] = {
            "n": len(test),
            "hallucinated": float(y[test].mean()),
            "auroc": _auroc(y[test], p),
            "baseline_auroc": _auroc(y[test], b),
            "ece": _ece(y[test], p),
            "outside_share": float(1 - ins.mean()),
            "ece_inside": _ece(y[test][ins], p[ins]),
            "mean_p": float(np.nanmean(p)),
        }
    return out


CLAIMS_SETS = {
    "without": "+amount",
    "with the value": "+amount+claims",
    "with contradicted facts": "+amount+contradicted facts",
    "with contradicted facts and unsupported share": "+amount+contradicted facts+unsupported",
}
"""What ``--claims`` compares: the shipped features alone, with the claims signal's value, with its
count of contradicted facts, and with that count and its unsupported share (the shipped
``FEATURES_CLAIMS``)."""


def claims_before_after(rows: Sequence[ScoredRow]) -> dict[str, dict[str, dict[str, float | None]]]:
    """Leave one domain out, the shipped features without and with the claims signal's features
    (:data:`CLAIMS_SETS`), each fitted on the other shippable domains: {held-out domain: {set:
    {"auroc", "log_loss"}}}, and their means over every domain (``macro``) and over the shippable ones."""
    y = label_column(rows, LABEL)
    out: dict[str, dict[str, dict[str, float | None]]] = {}
    for d in domains_of(rows):
        test = [i for i, r in enumerate(rows) if r.fields["dataset"] == d]
        train = [rows[i] for i in _training(rows, d)]
        out[d] = {}
        for name, key in CLAIMS_SETS.items():
            model = fit(train, data_name=f"corpus without {d}", features=CANDIDATES[key])
            p = p_hallucinated(model, [rows[i] for i in test])
            ok = ~np.isnan(p)
            out[d][name] = {
                "auroc": _auroc(y[test], p),
                "log_loss": log_loss(y[test][ok], p[ok]) if ok.any() else None,
            }
    domains = list(out)
    for label, keep in (
        ("macro", domains),
        ("macro, shippable domains", [d for d in domains if d in SHIPPABLE]),
    ):
        out[label] = {
            name: {
                m: float(np.mean([v for d in keep if (v := out[d][name][m]) is not None]))
                for m in ("auroc", "log_loss")
            }
            for name in CLAIMS_SETS
        }
    return out


def contradiction_kinds(rows: Sequence[ScoredRow]) -> dict[str, dict[str, float | int | None]]:
    """Per domain (and ``all``), how often each kind of contradiction fires and how often a row where it
    fires is hallucinated: {domain: {"rows", "hallucinated", "facts_rows", "facts_hallucinated",
    "polarity_rows", "polarity_hallucinated", "supported_facts_rows", "supported_facts_hallucinated"}}.
    ``supported_facts``: rows with a contradicted fact whose words the context otherwise holds (lexical
    ``unsupported_share`` < 0.15), the shape of a single changed atom."""
    out: dict[str, dict[str, float | int | None]] = {}
    for d in [*domains_of(rows), "all"]:
        rs = [r for r in rows if d == "all" or r.fields["dataset"] == d]
        entry: dict[str, float | int | None] = {
            "rows": len(rs),
            "hallucinated": float(np.mean([bool(r.fields[LABEL]) for r in rs])),
        }
        facts = [r for r in rs if (_raw(r, "claims", "contradicted_facts") or 0) > 0]
        polarity = [r for r in rs if (_raw(r, "claims", "contradicted_polarity") or 0) > 0]
        supported = [r for r in facts if (_raw(r, "lexical", "unsupported_share") or 0) < 0.15]
        for name, fired in (("facts", facts), ("polarity", polarity), ("supported_facts", supported)):
            entry[f"{name}_rows"] = len(fired)
            entry[f"{name}_hallucinated"] = (
                float(np.mean([bool(r.fields[LABEL]) for r in fired])) if fired else None
            )
        out[d] = entry
    return out


def claims_report(rows: Sequence[ScoredRow]) -> str:
    """The two ``--claims`` tables as markdown."""
    kinds = contradiction_kinds(rows)
    lines = [
        "How often a contradiction fires and how often its row is hallucinated (rows: share hallucinated):",
        "",
        "| domain | rows: hallucinated | contradicted fact | contradicted polarity "
        "| contradicted fact, words otherwise in the context |",
        "|---|---|---|---|---|",
    ]
    for d, k in kinds.items():
        cells = [f"{k['rows']}: {_f(k['hallucinated'])}"] + [
            f"{k[f'{n}_rows']}: {_f(k[f'{n}_hallucinated'])}"
            for n in ("facts", "polarity", "supported_facts")
        ]
        lines.append(f"| {d} | {' | '.join(cells)} |")
    table = claims_before_after(rows)
    lines += [
        "",
        "Leave one domain out, AUROC / log loss on the held-out domain:",
        "",
        f"| held-out domain | {' | '.join(CLAIMS_SETS)} |",
        f"|{'---|' * (len(CLAIMS_SETS) + 1)}",
    ]
    for d, v in table.items():
        cells = [f"{_f(v[k]['auroc'])} / {_f(v[k]['log_loss'])}" for k in CLAIMS_SETS]
        lines.append(f"| {d} | {' | '.join(cells)} |")
    return "\n".join(lines)


def in_domain(rows: Sequence[ScoredRow], folds: int = 5) -> dict[str, Any]:
    """Grouped CV over the shippable domains pooled: ECE inside the domain and the false-alarm rate."""
    pool = [r for r in rows if r.fields["dataset"] in SHIPPABLE]
    y = label_column(pool, LABEL)
    groups = [str(r.fields[GROUP]) for r in pool]
    p = np.full(len(pool), np.nan)
    ins = np.zeros(len(pool), dtype=bool)
    for k, (train, test) in enumerate(grouped_kfold(groups, folds, seed=0)):
        model = fit([pool[i] for i in train], data_name=f"fold {k}")
        test_rows = [pool[i] for i in test]
        p[test] = p_hallucinated(model, test_rows)
        ins[test] = inside(model, test_rows)
    dom = np.array([str(r.fields["dataset"]) for r in pool])
    per = {
        d: {
            "false_alarm": float(1 - ins[dom == d].mean()),
            "ece_inside": _ece(y[(dom == d) & ins], p[(dom == d) & ins]),
            "auroc": _auroc(y[dom == d], p[dom == d]),
        }
        for d in sorted(set(dom.tolist()))
    }
    return {
        "n": len(pool),
        "false_alarm": float(1 - ins.mean()),
        "ece_inside_pooled": _ece(y[ins], p[ins]),
        "auroc_pooled": _auroc(y, p),
        "per_domain": per,
    }


def _draw_groups(groups: Sequence[str], n: int, rng: np.random.Generator) -> list[int]:
    """Row indices of whole documents in random order until ``n`` rows (the last one cut)."""
    order = list(dict.fromkeys(groups))
    rng.shuffle(order)
    by: dict[str, list[int]] = {}
    for i, g in enumerate(groups):
        by.setdefault(g, []).append(i)
    out: list[int] = []
    for g in order:
        out.extend(by[g])
        if len(out) >= n:
            break
    return out[:n]


def few_labels(rows: Sequence[ScoredRow]) -> dict[str, dict[str, Any]]:
    y_all = label_column(rows, LABEL)
    out: dict[str, dict[str, Any]] = {}
    for d in domains_of(rows):
        test = [i for i, r in enumerate(rows) if r.fields["dataset"] == d]
        train = _training(rows, d)
        base = fit([rows[i] for i in train], data_name=f"corpus without {d}")
        dom_rows = [rows[i] for i in test]
        y = y_all[test]
        groups = [str(r.fields[GROUP]) for r in dom_rows]
        p0 = p_hallucinated(base, dom_rows)
        per: dict[str, Any] = {"base": {"ece": _ece(y, p0), "auroc": _auroc(y, p0)}}
        rng = np.random.default_rng(0)
        for n in ADAPT_SIZES:
            if n > len(dom_rows) - 40:
                continue
            eces: list[float] = []
            aurocs: list[float] = []
            base_eces: list[float] = []
            for _ in range(ADAPT_DRAWS):
                pick = _draw_groups(groups, n, rng)
                rest = np.setdiff1d(np.arange(len(dom_rows)), pick)
                adapted = adapt_model(base, [dom_rows[i] for i in pick], label=LABEL)
                p = p_hallucinated(adapted, [dom_rows[i] for i in rest])
                e, a = _ece(y[rest], p), _auroc(y[rest], p)
                e0 = _ece(y[rest], p0[rest])
                if e is not None and a is not None and e0 is not None:
                    eces.append(e)
                    aurocs.append(a)
                    base_eces.append(e0)
            per[str(n)] = {
                "ece": _summary(eces),
                "auroc": _summary(aurocs),
                "base_ece_same_rows": _summary(base_eces),
            }
        out[d] = per
    return out


def _summary(xs: Sequence[float]) -> dict[str, float] | None:
    if not xs:
        return None
    return {"min": float(np.min(xs)), "median": float(np.median(xs)), "max": float(np.max(xs))}


def _f(v: float | None) -> str:
    return "  -  " if v is None else f"{v:.3f}"


def report(result: dict[str, Any]) -> str:
    lines: list[str] = []
    sig = result["signals"]
    doms = [d for d in next(iter(sig.values())) if d != "macro"]
    lines.append("## AUROC of single signals per domain (all rows; higher = better)")
    lines.append("| signal | " + " | ".join(doms) + " | macro |")
    lines.append("|---" * (len(doms) + 2) + "|")
    for name, per in sig.items():
        lines.append(f"| {name} | " + " | ".join(_f(per[d]) for d in doms) + f" | {_f(per['macro'])} |")
    lodo = result["lodo"]
    lines.append("\n## Leave one domain out: fused model fitted on the other (shippable) domains")
    lines.append(
        "| held-out domain | n | halluc. | AUROC | baseline | diff | ECE | outside share | ECE inside |"
    )
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for d, m in lodo.items():
        diff = None if m["auroc"] is None or m["baseline_auroc"] is None else m["auroc"] - m["baseline_auroc"]
        lines.append(
            f"| {d} | {m['n']} | {m['hallucinated']:.0%} | {_f(m['auroc'])} | {_f(m['baseline_auroc'])} | "
            f"{'  -  ' if diff is None else f'{diff:+.3f}'} | {_f(m['ece'])} | {m['outside_share']:.1%} | "
            f"{_f(m['ece_inside'])} |"
        )
    vals = [m["auroc"] for m in lodo.values() if m["auroc"] is not None]
    base = [m["baseline_auroc"] for m in lodo.values() if m["baseline_auroc"] is not None]
    lines.append(f"macro AUROC {np.mean(vals):.3f} vs baseline {np.mean(base):.3f}")
    rt = [lodo[d]["auroc"] for d in lodo if d.startswith("ragtruth") and lodo[d]["auroc"] is not None]
    if rt:
        lines.append(f"RAGTruth held-out macro (each task held out in turn): {np.mean(rt):.3f}")
    ind = result["in_domain"]
    lines.append(
        f"\n## In-domain (5-fold grouped CV, {ind['n']} rows of the shippable domains): "
        f"false-alarm rate {ind['false_alarm']:.1%}, ECE inside {_f(ind['ece_inside_pooled'])}, "
        f"AUROC pooled {_f(ind['auroc_pooled'])}"
    )
    lines.append("| domain | false alarms | ECE inside | AUROC |")
    lines.append("|---|---|---|---|")
    for d, m in ind["per_domain"].items():
        lines.append(f"| {d} | {m['false_alarm']:.1%} | {_f(m['ece_inside'])} | {_f(m['auroc'])} |")
    if "nested" in result:
        nest = result["nested"]
        lines.append(
            "\n## Nested: leave one domain out with the feature set and fit chosen on the training domains"
            " alone (their own leave-one-domain-out macro AUROC)"
        )
        lines.append("| held-out domain | chosen | AUROC | baseline | diff |")
        lines.append("|---|---|---|---|---|")
        held = [d for d in nest if d != "shipped"]
        for d in held:
            m = nest[d]
            both = m["auroc"] is not None and m["baseline_auroc"] is not None
            diff = m["auroc"] - m["baseline_auroc"] if both else None
            lines.append(
                f"| {d} | {m['chosen']} | {_f(m['auroc'])} | {_f(m['baseline_auroc'])} | "
                f"{'  -  ' if diff is None else f'{diff:+.3f}'} |"
            )
        vals = [nest[d]["auroc"] for d in held if nest[d]["auroc"] is not None]
        rt = [nest[d]["auroc"] for d in held if d.startswith("ragtruth") and nest[d]["auroc"] is not None]
        rt_macro = f"{np.mean(rt):.3f}" if rt else "  -  "
        lines.append(
            f"macro AUROC {np.mean(vals):.3f}; RAGTruth held-out macro {rt_macro}; "
            f"the rule on every shippable domain chooses: {nest['shipped']['chosen']}"
        )
    if "within" in result:
        lines.append(
            "\n## Within each domain: its own rows only, 5-fold grouped CV, best candidate (optimistic)"
        )
        lines.append("| domain | best AUROC | set |")
        lines.append("|---|---|---|")
        for d, m in result["within"].items():
            lines.append(f"| {d} | {_f(m['auroc'])} | {m['chosen']} |")
    if "length" in result:
        lines.append(
            "\n## By response length: share hallucinated / mean embedding per quarter; AUROC in each half"
        )
        lines.append("| domain | quarter 1 | 2 | 3 | 4 | embedding short / long | baseline short / long |")
        lines.append("|---|---|---|---|---|---|---|")
        for d, m in result["length"].items():
            qs = " | ".join(
                f"{q['words'][0]:.0f}-{q['words'][1]:.0f} w: {q['hallucinated']:.2f} / {q['embedding']:.2f}"
                for q in m["quarters"]
            )
            e, b = m["embedding_auroc_halves"], m["baseline_auroc_halves"]
            lines.append(f"| {d} | {qs} | {_f(e[0])} / {_f(e[1])} | {_f(b[0])} / {_f(b[1])} |")
    if "candidates" in result:
        lines.append("\n## Feature sets, leave one domain out (AUROC on the held-out domain; not nested)")
        lines.append("| features | " + " | ".join(doms) + " | macro |")
        lines.append("|---" * (len(doms) + 2) + "|")
        for key, per in result["candidates"].items():
            lines.append(f"| {key} | " + " | ".join(_f(per[d]) for d in doms) + f" | {_f(per['macro'])} |")
    if "adapt" in result:
        lines.append(
            "\n## Few labels: LODO model adapted with n rows of the held-out domain (median [min, max])"
        )
        lines.append(
            "| domain | base ECE | base AUROC | n | ECE adapted | ECE base same rows | AUROC adapted |"
        )
        lines.append("|---|---|---|---|---|---|---|")
        for d, per in result["adapt"].items():
            for n in [k for k in per if k != "base"]:
                m = per[n]
                if m["ece"] is None:
                    continue
                lines.append(
                    f"| {d} | {_f(per['base']['ece'])} | {_f(per['base']['auroc'])} | {n} | "
                    f"{m['ece']['median']:.3f} [{m['ece']['min']:.3f}, {m['ece']['max']:.3f}] | "
                    f"{m['base_ece_same_rows']['median']:.3f} | "
                    f"{m['auroc']['median']:.3f} [{m['auroc']['min']:.3f}, {m['auroc']['max']:.3f}] |"
                )
    return "\n".join(lines)


def run(rows: Sequence[ScoredRow], *, adapt: bool, candidates: bool = False) -> dict[str, Any]:
    result: dict[str, Any] = {
        "signals": signal_table(rows),
        "lodo": leave_one_domain_out(rows),
        "in_domain": in_domain(rows),
    }
    if candidates:
        held = _HeldOut(rows)
        result["nested"] = nested(rows, held)
        result["candidates"] = compare_candidates(held)
        result["within"] = within_domain(rows)
        result["length"] = by_length(rows)
    if adapt:
        result["adapt"] = few_labels(rows)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scored", type=Path, default=DEFAULT_SCORED)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--adapt", action="store_true", help="also run the few-label benchmark")
    parser.add_argument(
        "--candidates",
        action="store_true",
        help="also choose the feature set by the nested rule and compare every candidate",
    )
    parser.add_argument(
        "--claims",
        action="store_true",
        help="only the claims signal: how precise each kind of contradiction is, and the shipped features "
        "without and with the claims features, leave one domain out",
    )
    args = parser.parse_args(argv)
    if not args.scored.exists():
        print(f"SKIP: {args.scored} not found; build and score the corpus first (see the docstring)")
        return 0
    rows = read_scored(args.scored)
    if args.claims:
        print(claims_report(rows))
        return 0
    result = run(rows, adapt=args.adapt, candidates=args.candidates)
    print(report(result))
    return save_json(result, args.json)


if __name__ == "__main__":
    sys.exit(main())
