"""What labels buy: how often ``trustscore calibrate --adapt`` claims calibrated at 100, 200 and 400
labels, and how often the claim holds; and whether a richer shape than the level and slope would hold
more often at the same count.

    .venv/bin/python -m benchmarks.quality.labels_buy --scored SCORED.jsonl --corpus CORPUS.jsonl
        [--sizes 100 200 400] [--draws 5] [--json out.json]

Leave one domain out on the corpus (``calibration.build_corpus --per-domain 700``, scored by ``trustscore
score``): the model is fitted on the other shippable domains (``benchmarks.quality.multidomain.fit``, the
shipped model's features), adapted with n labeled rows of the held-out domain drawn as whole documents
(``--draws`` draws per n), and measured on that domain's other rows. A cell is measured only where the
domain keeps at least :data:`MIN_HELD_OUT` rows beside its n labels.

Per cell: the draws whose adaptation claims, the held-out rows claiming (inside the adaptation's ranges)
out of all held-out rows, and the claiming draws whose claim holds (ECE(10, equal mass) of the claiming
rows <= 0.10, or within the noise floor's 90th percentile at that many rows:
``trustscore.fitting._claims.verdict``). Then, for every draw whether it claims or not, the share whose
held-out ECE would hold under each shape fitted to the same labels:

- ``level+slope``: the shipped adaptation, ``sigmoid(level + slope * logit(P_base))``;
- ``beta``: beta calibration (Kull, Silva Filho and Flach 2017), ``sigmoid(c + a*log P - b*log(1-P))``,
  one parameter more, fitted by logistic regression on the two log terms (scikit-learn, lightly
  regularised);
- ``isotonic``: isotonic regression of the label on ``P_base`` (scikit-learn), shrunk towards the
  level+slope fit by n / (n + 100) (a prior worth 100 rows).
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

from benchmarks.quality.adapted_claims import _outside, held_out
from benchmarks.quality.calibration_claims import kinds_of, with_texts
from benchmarks.quality.multidomain import LABEL, _draw_groups, _ece, domains_of
from trustscore.fitting._adapt import adapt_model
from trustscore.fitting._claims import verdict
from trustscore.rows._scored import ScoredRow, label_column

SIZES = (100, 200, 400)
DRAWS = 5
MIN_HELD_OUT = 100
"""Fewest held-out rows a cell is measured on (beside its labels)."""
PRIOR_ROWS = 100
"""What the level+slope prior is worth, in rows, when the isotonic fit is shrunk towards it."""
_EPS = 1e-4


def _clip(p: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.clip(p, _EPS, 1.0 - _EPS)


def beta_fit(
    p_label: NDArray[np.float64], y: NDArray[np.float64], p_test: NDArray[np.float64]
) -> NDArray[np.float64]:
    """P(trustworthy) on ``p_test`` by beta calibration of the base ``p`` fitted on (``p_label``, ``y``)."""
    from sklearn.linear_model import LogisticRegression

    def terms(p: NDArray[np.float64]) -> NDArray[np.float64]:
        c = _clip(p)
        return np.column_stack([np.log(c), -np.log(1.0 - c)])

    model = LogisticRegression(C=10.0).fit(terms(p_label), y)
    return np.asarray(model.predict_proba(terms(p_test))[:, 1], dtype=np.float64)


def isotonic_fit(
    p_label: NDArray[np.float64],
    y: NDArray[np.float64],
    p_test: NDArray[np.float64],
    prior: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Isotonic regression of ``y`` on the base ``p``, shrunk towards ``prior`` (the level+slope
    prediction on ``p_test``) by n / (n + :data:`PRIOR_ROWS`)."""
    from sklearn.isotonic import IsotonicRegression

    iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(p_label, y)
    w = y.size / (y.size + PRIOR_ROWS)
    return np.asarray(w * iso.predict(p_test) + (1.0 - w) * prior, dtype=np.float64)


def _holds(y: NDArray[np.float64], p: NDArray[np.float64]) -> bool:
    return verdict(_ece(y, p), int(y.size)) == "holds"


def measure(
    rows: Sequence[ScoredRow], sizes: Sequence[int] = SIZES, draws: int = DRAWS
) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """{held-out domain: {n labels: one entry per draw}}."""
    y_all = 1.0 - label_column(rows, LABEL)  # 1 = trustworthy, as P is
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for d in domains_of(rows):
        base, dom, y, groups = held_out(rows, d, y_all)
        p_base = np.asarray(base.predict_raw(base.raw_matrix([r.signals for r in dom])), dtype=np.float64)
        rng = np.random.default_rng(0)
        per: dict[str, list[dict[str, Any]]] = {}
        for n in sizes:
            if len(dom) < n + MIN_HELD_OUT:
                continue
            per[str(n)] = [
                _one_draw(base, dom, y, p_base, groups, n, rng, kinds_of(dom)) for _ in range(draws)
            ]
        out[d] = per
    return out


def _one_draw(
    base: Any,
    dom: Sequence[ScoredRow],
    y: NDArray[np.float64],
    p_base: NDArray[np.float64],
    groups: Sequence[str],
    n: int,
    rng: np.random.Generator,
    kinds: Sequence[str],
) -> dict[str, Any]:
    pick = np.array(_draw_groups(groups, n, rng))
    rest = np.setdiff1d(np.arange(len(dom)), pick)
    model = adapt_model(base, [dom[i] for i in pick], label=LABEL, task_kinds=[kinds[i] for i in pick])
    a = model.adaptations[0]
    rest_rows = [dom[i] for i in rest]
    p = np.asarray(model.predict_adapted(model.raw_matrix([r.signals for r in rest_rows])), dtype=np.float64)
    ok = ~np.isnan(p) & ~np.isnan(p_base[rest])
    lab = ~np.isnan(p_base[pick])
    inside = np.array([not _outside(a, model, r) for r in rest_rows], dtype=bool)
    claims = a.not_calibrated_reason is None
    claiming = inside & ok if claims else np.zeros(rest.size, dtype=bool)
    shapes = {
        "level+slope": p[ok],
        "beta": beta_fit(p_base[pick][lab], y[pick][lab], p_base[rest][ok]),
        "isotonic": isotonic_fit(p_base[pick][lab], y[pick][lab], p_base[rest][ok], p[ok]),
    }
    ece_claimed = _ece(y[rest][claiming], p[claiming]) if claiming.sum() else None
    return {
        "claims": claims,
        "rows": int(rest.size),
        "claimed": int(claiming.sum()),
        "ece_claimed": ece_claimed,
        "verdict": verdict(ece_claimed, int(claiming.sum())) if claims else None,
        "reason": a.not_calibrated_reason,
        "shape_ece": {k: _ece(y[rest][ok], v) for k, v in shapes.items()},
        "shape_holds": {k: _holds(y[rest][ok], v) for k, v in shapes.items()},
    }


def report(result: dict[str, dict[str, list[dict[str, Any]]]]) -> list[str]:
    lines = [
        "| domain | labels | draws claiming | rows claiming | claims holding | ECE claimed "
        "| would hold: level+slope / beta / isotonic |",
        "|---|---|---|---|---|---|---|",
    ]
    total: dict[str, dict[str, int]] = {}
    for d, per in result.items():
        for n, draws in per.items():
            claiming = [x for x in draws if x["claims"]]
            held = [x for x in claiming if x["verdict"] == "holds"]
            eces = (
                ", ".join(f"{x['ece_claimed']:.3f}" for x in claiming if x["ece_claimed"] is not None) or "-"
            )
            would = " / ".join(
                f"{sum(x['shape_holds'][k] for x in draws)}" for k in ("level+slope", "beta", "isotonic")
            )
            lines.append(
                f"| {d} | {n} | {len(claiming)} of {len(draws)} | {sum(x['claimed'] for x in draws)} / "
                f"{sum(x['rows'] for x in draws)} | {len(held)} of {len(claiming)} | {eces} | "
                f"{would} of {len(draws)} |"
            )
            t = total.setdefault(n, {"draws": 0, "claiming": 0, "held": 0, "ls": 0, "beta": 0, "iso": 0})
            t["draws"] += len(draws)
            t["claiming"] += len(claiming)
            t["held"] += len(held)
            t["ls"] += sum(x["shape_holds"]["level+slope"] for x in draws)
            t["beta"] += sum(x["shape_holds"]["beta"] for x in draws)
            t["iso"] += sum(x["shape_holds"]["isotonic"] for x in draws)
    lines += [
        "",
        "| labels | draws claiming | claims holding | would hold: level+slope / beta / isotonic |",
        "|---|---|---|---|",
    ]
    for n, t in sorted(total.items(), key=lambda item: int(item[0])):
        lines.append(
            f"| {n} | {t['claiming']} of {t['draws']} | {t['held']} of {t['claiming']} | "
            f"{t['ls']} / {t['beta']} / {t['iso']} of {t['draws']} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scored", type=Path, required=True, help="the corpus scored by `trustscore score`")
    parser.add_argument("--corpus", type=Path, required=True, help="the corpus (question and context by id)")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--draws", type=int, default=DRAWS)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    from trustscore.rows._scored import read_scored

    rows = with_texts(read_scored(args.scored), args.corpus)
    result = measure(rows, args.sizes, args.draws)
    print("\n".join(report(result)))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
