"""Few labels, leave one domain out: what an adaptation of the shipped offline model claims on the
held-out domain's other rows, and whether the claim holds; with each domain's labels shuffled as the
control where the signals are at chance. Run through ``python -m benchmarks.quality.calibration_claims
--adapted`` (its docstring says what the promise is and how a verdict is read)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from benchmarks.quality.calibration_claims import _f, _measure, kinds_of
from benchmarks.quality.multidomain import GROUP, LABEL, _draw_groups, _ece, domains_of, fit
from calibration.build_corpus import SHIPPABLE
from trustscore.fitting._adapt import adapt_model
from trustscore.fitting._claims import verdict
from trustscore.fusion._adaptation import Adaptation
from trustscore.fusion._domain import lengths_of
from trustscore.fusion._model import FusionModel
from trustscore.fusion._task_kind import task_kind
from trustscore.rows._scored import ScoredRow, label_column

ADAPT_SIZES = (25, 50, 100)
ADAPT_DRAWS = 3


def _outside(adaptation: Adaptation, model: FusionModel, row: ScoredRow) -> bool:
    values: dict[str, float | None] = {f.spec.key: f.spec.read(row.signals) for f in model.features}
    values.update(lengths_of(row.fields, [s.raw for s in row.signals.values()]))
    ctx = row.fields.get("context")
    kind = task_kind(
        str(row.fields.get("question") or ""), [str(c) for c in ctx] if isinstance(ctx, list) else []
    )
    return bool(adaptation.outside(kind, values))


def held_out(
    rows: Sequence[ScoredRow], domain: str, y_all: NDArray[np.float64]
) -> tuple[FusionModel, list[ScoredRow], NDArray[np.float64], list[str]]:
    """The model fitted on the shippable domains but ``domain``; ``domain``'s rows, their labels
    (from ``y_all``) and their groups."""
    test = [i for i, r in enumerate(rows) if r.fields["dataset"] == domain]
    train = [
        i for i, r in enumerate(rows) if r.fields["dataset"] != domain and r.fields["dataset"] in SHIPPABLE
    ]
    dom = [rows[i] for i in test]
    base = fit([rows[i] for i in train], data_name=f"corpus without {domain}")
    return base, dom, y_all[test], [str(r.fields[GROUP]) for r in dom]


def adapted_claims(
    rows: Sequence[ScoredRow], *, shuffled: bool = False
) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """{held-out domain: {n labels: one entry per draw}}: the leave-one-domain-out model adapted with n
    labeled rows of the held-out domain (whole documents, ``ADAPT_DRAWS`` draws), measured on the
    domain's other rows: whether it claims, on how many of them, ECE among those and its verdict.

    ``shuffled``: the control where the signals are at chance: each domain's labels permuted among its
    rows (the base rate kept), so nothing the signals say can rank them."""
    y_all = label_column(rows, LABEL)
    if shuffled:
        perm_rng = np.random.default_rng(1)
        y_all = y_all.copy()
        for d in domains_of(rows):
            idx = np.array([i for i, r in enumerate(rows) if r.fields["dataset"] == d])
            y_all[idx] = perm_rng.permutation(y_all[idx])
        rows = [
            r.model_copy(update={"fields": {**r.fields, LABEL: bool(v)}})
            for r, v in zip(rows, y_all.tolist(), strict=True)
        ]
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for d in domains_of(rows):
        base, dom, y, groups = held_out(rows, d, y_all)
        kinds = kinds_of(dom)
        rng = np.random.default_rng(0)
        per: dict[str, list[dict[str, Any]]] = {}
        for n in ADAPT_SIZES:
            draws = []
            for _ in range(ADAPT_DRAWS):
                pick = _draw_groups(groups, n, rng)
                rest = np.setdiff1d(np.arange(len(dom)), pick)
                model = adapt_model(
                    base, [dom[i] for i in pick], label=LABEL, task_kinds=[kinds[i] for i in pick]
                )
                a = model.adaptations[0]
                rest_rows = [dom[i] for i in rest]
                p = 1.0 - model.predict_adapted(model.raw_matrix([r.signals for r in rest_rows]))
                inside_rows = np.array([not _outside(a, model, r) for r in rest_rows], dtype=bool)
                claims = inside_rows & (a.not_calibrated_reason is None)
                m = _measure(y[rest], p, claims)
                draws.append(
                    {
                        **m,
                        "rows": int(rest.size),
                        "inside": int(inside_rows.sum()),
                        "claims": a.not_calibrated_reason is None,
                        "verdict": verdict(m["ece_claimed"], m["claimed"]),
                        "auroc_labeled_low": a.auroc_low,
                        "gap": a.calibration_gap,
                        "groups": a.groups,
                        "level": a.level,
                        "slope": a.slope,
                        "ece_unclaimed": _ece(y[rest], p),
                        "reason": a.not_calibrated_reason,
                    }
                )
            per[str(n)] = draws
        out[d] = per
    return out


def adapted_report(result: dict[str, dict[str, list[dict[str, Any]]]]) -> list[str]:
    lines = [
        "## Few labels: what an adaptation claims, and whether it holds (leave one domain out)",
        "",
        "Per held-out domain and label count, over the draws: draws that claim, rows claiming / rows "
        "scored, ECE(10) among the claiming rows per claiming draw, verdicts (holds: ECE <= 0.10 or within "
        "the noise floor's 90th percentile at that many rows), AUROC on the scored rows, and the ECE every "
        "draw's score shows on all the scored rows.",
        "",
        "| domain | labels | draws claiming | rows claiming | ECE claimed | verdicts | AUROC "
        "| ECE all rows |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for d, per in result.items():
        for n, draws in per.items():
            claiming = [x for x in draws if x["claims"]]
            eces = ", ".join(_f(x["ece_claimed"]) for x in claiming) or "-"
            verdicts = ", ".join(x["verdict"] for x in claiming) or "-"
            aurocs = [x["auroc"] for x in draws if x["auroc"] is not None]
            alls = [x["ece_unclaimed"] for x in draws if x["ece_unclaimed"] is not None]
            lines.append(
                f"| {d} | {n} | {len(claiming)} of {len(draws)} | "
                f"{sum(x['claimed'] for x in draws)} / {sum(x['rows'] for x in draws)} | {eces} | "
                f"{verdicts} | "
                f"{min(aurocs):.2f}-{max(aurocs):.2f} | {min(alls):.3f}-{max(alls):.3f} |"
            )
    return lines
