"""Metrics of every signal and of the fused score over a scored file, in the label's polarity."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict

from trustscore.fitting._claims import ClaimCheck, check_claims, check_claims_by
from trustscore.fusion._model import LabelPolarity
from trustscore.rows._scored import ScoredRow, group_column, label_column
from trustscore.stats._metrics import GroupedReport, evaluate_grouped

__all__ = ["FUSED", "EvalResult", "evaluate_scored", "positive_class_scores"]

FUSED = "fused"
"""The name the fused score (each row's ``score``) is reported under."""


class EvalResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    label: str
    label_means: LabelPolarity
    by: str | None
    rows: int
    fused_description: str
    """"calibrated" when every scored row says so, else "uncalibrated"; then the rows' ``fusion`` names."""
    reports: dict[str, GroupedReport]
    """``fused`` first, then each signal by name; each over the rows where it has a value."""
    coverage: dict[str, int]
    """Rows with a value, per source."""
    claims: ClaimCheck | None
    """The calibrated promise checked on every scored row (None when no row has a score)."""
    claims_by: dict[str, ClaimCheck]
    """The same per value of ``by`` (empty without ``by``): the promise is per kind of data."""


def positive_class_scores(
    rows: Sequence[ScoredRow], source: str, label_means: LabelPolarity
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """(row indices with a value, P(label = 1) for those rows) for ``fused`` or a signal name."""
    idx: list[int] = []
    vals: list[float] = []
    for i, r in enumerate(rows):
        if source == FUSED:
            v = r.score
        else:
            sig = r.signals.get(source)
            v = None if sig is None else sig.value
        if v is not None:
            idx.append(i)
            vals.append(v)
    trust = np.asarray(vals, dtype=np.float64)
    return np.asarray(idx, dtype=np.int64), (1.0 - trust if label_means == "untrustworthy" else trust)


def evaluate_scored(
    rows: Sequence[ScoredRow],
    *,
    label: str,
    label_means: LabelPolarity = "untrustworthy",
    by: str | None = None,
    n_bins: int = 10,
    threshold: float = 0.5,
    ci: bool = False,
    cluster: str | None = None,
    n_boot: int = 1000,
) -> EvalResult:
    """Pooled, per-group and macro metrics for the fused score and for every signal.

    ``ci`` adds bootstrap AUROC intervals, resampling whole ``cluster`` values (e.g. source_id).
    """
    y = label_column(rows, label)
    groups = group_column(rows, by) if by else None
    clusters = group_column(rows, cluster) if ci and cluster else None
    names = [FUSED, *sorted({n for r in rows for n in r.signals})]
    reports: dict[str, GroupedReport] = {}
    coverage: dict[str, int] = {}
    for name in names:
        idx, p = positive_class_scores(rows, name, label_means)
        coverage[name] = int(idx.size)
        if idx.size == 0:
            continue
        g = [groups[i] for i in idx.tolist()] if groups is not None else None
        c = [clusters[i] for i in idx.tolist()] if clusters is not None else None
        reports[name] = evaluate_grouped(
            y[idx], p, g, by=by, threshold=threshold, n_bins=n_bins, ci=ci, clusters=c, n_boot=n_boot
        )
    idx, p = positive_class_scores(rows, FUSED, label_means)
    claimed = np.array([rows[i].calibrated for i in idx.tolist()], dtype=bool)
    claims = check_claims(y[idx], p, claimed) if idx.size else None
    claims_by = check_claims_by(y[idx], p, claimed, [groups[i] for i in idx.tolist()]) if groups else {}
    scored = [r for r in rows if r.score is not None]
    calibrated = bool(scored) and all(r.calibrated for r in scored)
    fusions = sorted({str(r.fields["fusion"]) for r in scored if r.fields.get("fusion")})
    description = "calibrated" if calibrated else "uncalibrated"
    if fusions:
        description += ": " + ", ".join(fusions)
    return EvalResult(
        label=label,
        label_means=label_means,
        by=by,
        rows=len(rows),
        fused_description=description,
        reports=reports,
        coverage=coverage,
        claims=claims,
        claims_by=claims_by,
    )
