"""Which rows may the shipped offline model claim calibrated? Each way of getting there, measured per
domain, never pooled.

    .venv/bin/python -m benchmarks.quality.calibration_claims [--scored .cache-data/corpus/scored.jsonl]
        [--corpus .cache-data/corpus/corpus.jsonl]

Reads the scored corpus (``calibration.build_corpus`` + ``trustscore score``) and, for each row's
question and context (the scored file does not carry them), the corpus itself. The promise measured:
``calibrated=True`` means that on data of this kind the reliability curve lies within ECE(10 equal-mass
bins) 0.10. A way *holds* on a domain when the rows it claims calibrated there have ECE <= 0.10, or fewer
than 50 rows claim it. Every fit uses the shippable domains only (``calibration.build_corpus.SHIPPABLE``);
FActScore is only ever held out. The weights are the shipped model's (``benchmarks.quality.multidomain.fit``:
its features, an intercept per data set while fitting); the ways differ only in the intercept and in
which rows claim:

- ``pooled intercept``: the model as fitted (one intercept, pooled rows calibrated); rows inside the
  calibration domain claim.
- ``task intercept``: one intercept per kind of task (question answering, summary, data-to-text,
  dialogue), refitted with the weights fixed on the training rows of that kind; the kind is read from
  the sample's own shape (:func:`task_kind`), never from a label. A row claims when its kind had
  training rows and it lies inside the calibration domain.
- ``EM base rate``: the pooled model's intercept moved to the base rate estimated, without labels,
  over the held-out batch by the EM prior adjustment of Saerens, Latinne and Decaestecker (2002); every
  row inside the domain claims. Measured on the whole domain as one batch and on batches of 50.
- ``BBSE base rate``: the same, the base rate estimated by black-box shift estimation (Lipton, Wang and
  Smola 2018): the batch's share predicted trustworthy (at 0.5), corrected by the training rows' rates of
  saying so for trustworthy and for untrustworthy rows.
- ``task intercept + EM``: EM started from the task intercept.
- ``no claim``: the ranking score, never claimed calibrated (holds trivially; the honest default).

Leave one domain out: fitted on the other shippable domains, measured on the held-out one. In-domain:
5-fold CV grouped by document over the shippable domains, measured per data set. AUROC is per domain
(an intercept shift leaves a domain's ranking as it is, except EM on batches smaller than the domain).
The task-kind detector's accuracy on the corpus is printed first (truth: RAGTruth's own task labels;
FRANK, XSumFaith and FactCC are summaries, FActScore question answering). Last, the noise floor of the
measure itself: the ECE that a perfectly calibrated score shows on n rows (scores drawn from Beta(2, 2),
labels drawn from the scores: ``trustscore.fitting._claims.noise_floor``), so a measured ECE can be read
against what chance alone gives.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from benchmarks._results import save_json
from benchmarks.quality.multidomain import (
    DEFAULT_SCORED,
    GROUP,
    LABEL,
    _auroc,
    _ece,
    domains_of,
    fit,
    inside,
)
from calibration.build_corpus import SHIPPABLE
from trustscore.fitting._claims import ECE_LIMIT, MIN_CLAIMS, noise_floor, verdict
from trustscore.fusion._model import FusionModel
from trustscore.fusion._task_kind import TASK_KINDS, task_kind
from trustscore.rows._scored import ScoredRow, label_column
from trustscore.stats._cv import grouped_kfold
from trustscore.stats._logistic import intercept_matching_mean, sigmoid

EM_BATCH = 50
KINDS = TASK_KINDS
TRUE_KIND = {
    "ragtruth_qa": "qa",
    "factscore": "qa",
    "ragtruth_summary": "summary",
    "frank_cnndm": "summary",
    "xsumfaith": "summary",
    "factcc": "summary",
    "ragtruth_data2txt": "data2txt",
}


def kinds_of(rows: Sequence[ScoredRow]) -> list[str]:
    out = []
    for r in rows:
        ctx = r.fields.get("context")
        context = ctx if isinstance(ctx, list) else [str(ctx or "")]
        out.append(task_kind(str(r.fields.get("question") or ""), [str(c) for c in context]))
    return out


def detector_accuracy(rows: Sequence[ScoredRow]) -> dict[str, dict[str, Any]]:
    """{domain: {true kind, share detected right, detected counts}}."""
    kinds = kinds_of(rows)
    out: dict[str, dict[str, Any]] = {}
    for d in domains_of(rows):
        got = [k for r, k in zip(rows, kinds, strict=True) if r.fields["dataset"] == d]
        counts = {k: got.count(k) for k in KINDS if got.count(k)}
        out[d] = {
            "true": TRUE_KIND.get(d),
            "accuracy": got.count(TRUE_KIND.get(d, "")) / len(got),
            "detected": counts,
        }
    return out


def _margin(model: FusionModel, rows: Sequence[ScoredRow]) -> NDArray[np.float64]:
    """The model's log-odds of trustworthy without its intercept."""
    p = model.predict_raw(model.raw_matrix([r.signals for r in rows]))
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return np.log(p / (1 - p)) - model.intercept


def em_prior(p_trust: NDArray[np.float64], train_prior: float, iterations: int = 200) -> float:
    """Saerens-Latinne-Decaestecker EM: the share trustworthy of a batch whose posteriors ``p_trust``
    were computed under ``train_prior``."""
    prior = train_prior
    for _ in range(iterations):
        a = prior / train_prior * p_trust
        b = (1 - prior) / (1 - train_prior) * (1 - p_trust)
        new = float(np.mean(a / (a + b)))
        if abs(new - prior) < 1e-9:
            return new
        prior = min(max(new, 1e-4), 1 - 1e-4)
    return prior


def _shift(margin: NDArray[np.float64], c: float, train_prior: float, prior: float) -> NDArray[np.float64]:
    return sigmoid(margin + c + np.log(prior / (1 - prior)) - np.log(train_prior / (1 - train_prior)))


def _em(
    margin: NDArray[np.float64],
    c: NDArray[np.float64],
    train_prior: NDArray[np.float64],
    batches: list[NDArray[np.int64]],
) -> tuple[NDArray[np.float64], list[float]]:
    out = np.full(margin.size, np.nan)
    priors = []
    for b in batches:
        # EM per prior the rows were scored under (one per task kind in the batch).
        for tp in np.unique(train_prior[b]):
            sel = b[train_prior[b] == tp]
            prior = em_prior(sigmoid(margin[sel] + c[sel]), float(tp))
            priors.append(prior)
            out[sel] = _shift(margin[sel], c[sel], float(tp), prior)
    return out, priors


class _Fitted:
    """The weights fitted on some rows, with the intercepts each way needs."""

    def __init__(self, train: Sequence[ScoredRow], name: str) -> None:
        self.model = fit(train, data_name=name)
        t = 1.0 - label_column(train, LABEL)
        margin = _margin(self.model, train)
        self.pooled_prior = float(t.mean())
        said = sigmoid(margin + self.model.intercept) >= 0.5
        self.rate_said_given_trust = float(said[t == 1].mean())
        self.rate_said_given_not = float(said[t == 0].mean())
        kinds = np.array(kinds_of(train))
        self.kind_intercept: dict[str, float] = {}
        self.kind_prior: dict[str, float] = {}
        for k in KINDS:
            sel = kinds == k
            if sel.sum() >= 20 and 0 < t[sel].mean() < 1:
                self.kind_intercept[k] = intercept_matching_mean(margin[sel], t[sel])
                self.kind_prior[k] = float(t[sel].mean())

    def ways(
        self, rows: Sequence[ScoredRow], rng: np.random.Generator
    ) -> dict[str, tuple[NDArray[np.float64], NDArray[np.bool_]]]:
        """{way: (P(hallucinated), claims)} on ``rows`` (one batch: a domain, or a fold's rows of one)."""
        margin = _margin(self.model, rows)
        ins = inside(self.model, rows)
        kinds = kinds_of(rows)
        known = np.array([k in self.kind_intercept for k in kinds])
        c_pool = np.full(margin.size, self.model.intercept)
        c_kind = np.array([self.kind_intercept.get(k, self.model.intercept) for k in kinds])
        prior_pool = np.full(margin.size, self.pooled_prior)
        prior_kind = np.array([self.kind_prior.get(k, self.pooled_prior) for k in kinds])
        whole = [np.arange(margin.size)]
        order = rng.permutation(margin.size)
        small = [order[i : i + EM_BATCH] for i in range(0, margin.size, EM_BATCH)]
        em_whole, _ = _em(margin, c_pool, prior_pool, whole)
        em_small, _ = _em(margin, c_pool, prior_pool, small)
        em_kind, _ = _em(margin, c_kind, prior_kind, whole)
        said = float(np.mean(sigmoid(margin + c_pool) >= 0.5))
        gap = self.rate_said_given_trust - self.rate_said_given_not
        bbse = min(max((said - self.rate_said_given_not) / gap, 0.01), 0.99)
        p_bbse = _shift(margin, self.model.intercept, self.pooled_prior, bbse)
        none = np.zeros(margin.size, dtype=bool)
        return {
            "pooled intercept": (1 - sigmoid(margin + c_pool), ins),
            "task intercept": (1 - sigmoid(margin + c_kind), ins & known),
            "EM base rate (domain as one batch)": (1 - em_whole, ins),
            f"EM base rate (batches of {EM_BATCH})": (1 - em_small, ins),
            "BBSE base rate (domain as one batch)": (1 - p_bbse, ins),
            "task intercept + EM (one batch)": (1 - em_kind, ins & known),
            "no claim (ranking score)": (1 - sigmoid(margin + c_pool), none),
        }


def _measure(y: NDArray[np.float64], p: NDArray[np.float64], claims: NDArray[np.bool_]) -> dict[str, Any]:
    n = int(claims.sum())
    e = _ece(y[claims], p[claims]) if n else None
    return {
        "claimed": n,
        "ece_claimed": e,
        "ece_all": _ece(y, p),
        "auroc": _auroc(y, p),
        "mean_p": float(np.nanmean(p)),
        "rate": float(y.mean()),
        "holds": verdict(e, n) != "broken",
    }


def leave_one_domain_out(rows: Sequence[ScoredRow]) -> dict[str, dict[str, dict[str, Any]]]:
    """{way: {held-out domain: measures}}."""
    y_all = label_column(rows, LABEL)
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for d in domains_of(rows):
        train = [r for r in rows if r.fields["dataset"] in SHIPPABLE and r.fields["dataset"] != d]
        test = [i for i, r in enumerate(rows) if r.fields["dataset"] == d]
        fitted = _Fitted(train, f"corpus without {d}")
        for way, (p, claims) in fitted.ways([rows[i] for i in test], np.random.default_rng(0)).items():
            out.setdefault(way, {})[d] = _measure(y_all[test], p, claims)
    return out


def in_domain(rows: Sequence[ScoredRow], folds: int = 5) -> dict[str, dict[str, dict[str, Any]]]:
    """{way: {data set: measures}}: 5-fold grouped CV over the shippable domains pooled; each fold's
    held-out rows of one data set are one batch."""
    pool = [r for r in rows if r.fields["dataset"] in SHIPPABLE]
    y = label_column(pool, LABEL)
    dom = np.array([str(r.fields["dataset"]) for r in pool])
    groups = [str(r.fields[GROUP]) for r in pool]
    p_of: dict[str, NDArray[np.float64]] = {}
    c_of: dict[str, NDArray[np.bool_]] = {}
    rng = np.random.default_rng(0)
    for k, (train, test) in enumerate(grouped_kfold(groups, folds, seed=0)):
        fitted = _Fitted([pool[i] for i in train], f"fold {k}")
        for d in sorted(set(dom[test].tolist())):
            idx = test[dom[test] == d]
            for way, (p, claims) in fitted.ways([pool[i] for i in idx], rng).items():
                p_of.setdefault(way, np.full(len(pool), np.nan))[idx] = p
                c_of.setdefault(way, np.zeros(len(pool), dtype=bool))[idx] = claims
    return {
        way: {
            d: _measure(y[dom == d], p_of[way][dom == d], c_of[way][dom == d])
            for d in sorted(set(dom.tolist()))
        }
        for way in p_of
    }


def _f(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def _table(title: str, result: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    domains = sorted(next(iter(result.values())))
    lines = [
        f"## {title}",
        "",
        "ECE among the rows claiming calibrated (claimed rows / all rows); `!` = fails "
        f"the promise (ECE > {ECE_LIMIT} and beyond the noise floor's 90th percentile, with "
        f"{MIN_CLAIMS}+ rows claiming)",
        "",
    ]
    lines.append("| way | " + " | ".join(domains) + " | macro AUROC | holds everywhere |")
    lines.append("|---|" + "---|" * (len(domains) + 2))
    for way, per in result.items():
        cells = []
        for d in domains:
            m = per[d]
            mark = "" if m["holds"] else " !"
            cells.append(f"{_f(m['ece_claimed'])} ({m['claimed']}){mark}")
        aurocs = [m["auroc"] for m in per.values() if m["auroc"] is not None]
        holds = all(m["holds"] for m in per.values())
        lines.append(
            f"| {way} | " + " | ".join(cells) + f" | {np.mean(aurocs):.3f} | {'yes' if holds else 'no'} |"
        )
    lines.append("")
    lines.append(
        "Share hallucinated vs mean P(hallucinated), pooled intercept / task intercept / EM (one batch):"
    )
    lines.append("")
    lines.append("| domain | hallucinated | pooled | task | EM | ECE all rows: pooled / task / EM |")
    lines.append("|---|---|---|---|---|---|")
    keys = list(result)
    for d in domains:
        a, b, c = (result[keys[i]][d] for i in (0, 1, 2))
        lines.append(
            f"| {d} | {a['rate']:.2f} | {a['mean_p']:.2f} | {b['mean_p']:.2f} | {c['mean_p']:.2f} | "
            f"{_f(a['ece_all'])} / {_f(b['ece_all'])} / {_f(c['ece_all'])} |"
        )
    return [*lines, ""]


def report(result: dict[str, Any]) -> str:
    lines = ["## Task-kind detector (from the sample's shape) on the corpus", ""]
    lines.append("| domain | true kind | detected right | detected as |")
    lines.append("|---|---|---|---|")
    for d, m in result["detector"].items():
        got = ", ".join(f"{k} {v}" for k, v in m["detected"].items())
        lines.append(f"| {d} | {m['true']} | {m['accuracy']:.1%} | {got} |")
    lines.append("")
    lines += _table("Leave one domain out (fitted on the other shippable domains)", result["lodo"])
    lines += _table(
        "In-domain (5-fold grouped CV over the shippable domains, per data set)", result["in_domain"]
    )
    lines += ["## ECE(10) of a perfectly calibrated score on n rows (the measure's noise floor)", ""]
    lines += ["| n | median | 90th percentile |", "|---|---|---|"]
    lines += [f"| {n} | {m['median']:.3f} | {m['p90']:.3f} |" for n, m in result["floor"].items()]
    return "\n".join(lines)


FLOOR_SIZES = (50, 100, 150, 200, 300, 1000)


def ece_floor() -> dict[int, dict[str, float]]:
    """{n: median and 90th percentile ECE(10, equal mass) of a perfectly calibrated score on n rows}
    (``trustscore.fitting._claims.noise_floor``, the function eval's verdict reads)."""
    return {n: {"median": noise_floor(n).median, "p90": noise_floor(n).p90} for n in FLOOR_SIZES}


def with_texts(rows: Sequence[ScoredRow], corpus: Path) -> list[ScoredRow]:
    """The scored rows with their ``question`` and ``context`` from the corpus file (joined by id)."""
    texts: dict[str, dict[str, Any]] = {}
    for line in corpus.open(encoding="utf-8"):
        r = json.loads(line)
        texts[str(r["id"])] = {"question": r["question"], "context": r["context"]}
    return [r.model_copy(update={"fields": {**r.fields, **texts[str(r.id)]}}) for r in rows]


def scored_offline(rows: Sequence[ScoredRow]) -> list[ScoredRow]:
    """The rows the offline model gives a score: an abstention or an answer in another language has no
    lexical or embedding value (each is missing with its reason), so no probability is claimed on it
    and none is measured (its NaN would make every intercept and base rate fitted over it NaN)."""
    return [
        r
        for r in rows
        if any(
            s is not None and s.value is not None
            for s in (r.signals.get("lexical"), r.signals.get("embedding"))
        )
    ]


def run(rows: Sequence[ScoredRow]) -> dict[str, Any]:
    return {
        "detector": detector_accuracy(rows),
        "lodo": leave_one_domain_out(rows),
        "in_domain": in_domain(rows),
        "floor": ece_floor(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scored", type=Path, default=DEFAULT_SCORED)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_SCORED.with_name("corpus.jsonl"))
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--adapted",
        action="store_true",
        help="only the few-label adaptation table (claims and verdicts: benchmarks.quality.adapted_claims)",
    )
    args = parser.parse_args(argv)
    if not args.scored.exists() or not args.corpus.exists():
        print(f"SKIP: {args.scored} not found; build and score the corpus first (see the docstring)")
        return 0
    from trustscore.rows._scored import read_scored

    rows = scored_offline(with_texts(read_scored(args.scored), args.corpus))
    if args.adapted:
        from benchmarks.quality.adapted_claims import adapted_claims, adapted_report

        result: dict[str, Any] = {
            "adapted": adapted_claims(rows),
            "shuffled": adapted_claims(rows, shuffled=True),
        }
        print("\n".join(adapted_report(result["adapted"])))
        print("\n### The same with each domain's labels shuffled among its rows (signals at chance)\n")
        print("\n".join(adapted_report(result["shuffled"])[5:]))
    else:
        result = run(rows)
        print(report(result))
    return save_json(result, args.json)


if __name__ == "__main__":
    sys.exit(main())
