"""Fitting a cascade on rows scored with every signal: the library of ``trustscore calibrate --cascade``.

    rows = read_scored("scored.jsonl")           # every signal on every row, labeled
    quality = CascadeQuality(metric="auroc", max_loss=0.01)
    model = fit_cascade(rows, stages, label="hallucinated", quality=quality)
    save_cascade(model, "calibration/cascade.json")

Procedure (every split keeps a ``group`` whole):

1. Per stage ``k``, a fusion model over the signals of stages ``0..k``
   (:func:`~trustscore.fitting._calibrator.fit_calibrator`), with its out-of-fold P(trustworthy) on every row.
2. Each row's cost per stage, from the row's own usage figures: judge requests (a cached answer counts
   as the request it saved) and prompt + completion tokens.
3. The bands: stage ``k >= 1`` (unless ``always``) runs when the stage-``k - 1`` score lies inside its
   band. Starting from the full ensemble (every band ``[0, 1]``), coordinate descent over candidate
   bands (pairs of quantiles of that score) picks, one band at a time, the cheapest whose cascade
   keeps the quality metric (AUROC, or accuracy at a threshold) at most a searched loss below the full
   ensemble's, on the out-of-fold scores; rounds repeat until no band changes. It runs once from the
   first band and once from the last, and keeps the cheaper bands.
4. The held-out estimate: the same search on the rows of all folds but one, applied to that one. The
   searched loss is the largest of ``SHARES`` x ``max_loss`` whose held-out loss stays within
   ``max_loss`` (a search held to ``max_loss`` itself overshoots it on rows it did not see).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from trustscore._version import __version__
from trustscore.fitting._calibrator import FitOptions, data_hash, fit_calibrator, raw_features
from trustscore.fusion._cascade_model import (
    CascadeEstimate,
    CascadeModel,
    CascadeQuality,
    CascadeStage,
    CostUnit,
    SignalCost,
)
from trustscore.fusion._features import FeatureSpec
from trustscore.fusion._model import LabelPolarity
from trustscore.rows._scored import ScoredRow, group_column, label_column, trust_target
from trustscore.stats._cv import grouped_kfold
from trustscore.stats._metrics import auroc

__all__ = ["CascadeScores", "StagePlan", "cascade_scores", "evaluate_cascade", "fit_cascade", "signal_costs"]

GRID = 20
"""Quantile steps per band edge in the search (21 edges, so 231 candidate bands per stage)."""
ROUNDS = 10
"""Most rounds of coordinate descent (it usually settles in two or three)."""
SHARES = (1.0, 0.75, 0.5, 0.25, 0.0)
"""Fractions of the allowed loss the bands are searched with, largest first. The cheapest bands that
just meet the constraint on the rows they were chosen on overshoot it on new rows, so the first
fraction whose held-out loss (step 4) stays within the allowed loss is the one used."""


@dataclass(frozen=True)
class StagePlan:
    """A stage to fit: its name, its signals, and whether it runs on every sample that got that far."""

    name: str
    signals: Sequence[str]
    always: bool = False


@dataclass(frozen=True)
class _Costs:
    requests: NDArray[np.float64]
    """rows x stages"""
    tokens: NDArray[np.float64]

    def of(self, unit: CostUnit) -> NDArray[np.float64]:
        return self.requests if unit == "requests" else self.tokens


def signal_costs(rows: Sequence[ScoredRow], names: Sequence[str]) -> dict[str, SignalCost]:
    """Each signal's mean cost per row (a cached answer counts as a request)."""
    out = {}
    for name in names:
        usages = [r.signals[name].usage for r in rows if name in r.signals]
        n = max(len(usages), 1)
        out[name] = SignalCost(
            requests=sum(u.requests + u.cache_hits for u in usages) / n,
            prompt_tokens=sum(u.prompt_tokens for u in usages) / n,
            completion_tokens=sum(u.completion_tokens for u in usages) / n,
        )
    return out


def _stage_costs(rows: Sequence[ScoredRow], stages: Sequence[StagePlan]) -> _Costs:
    requests = np.zeros((len(rows), len(stages)))
    tokens = np.zeros((len(rows), len(stages)))
    for i, row in enumerate(rows):
        for k, stage in enumerate(stages):
            for name in stage.signals:
                signal = row.signals.get(name)
                if signal is not None:
                    u = signal.usage
                    requests[i, k] += u.requests + u.cache_hits
                    tokens[i, k] += u.prompt_tokens + u.completion_tokens
    return _Costs(requests, tokens)


def _quality(quality: CascadeQuality, t: NDArray[np.float64], p: NDArray[np.float64]) -> float:
    if quality.metric == "auroc":
        return auroc(t, p)
    assert quality.threshold is not None
    return float(np.mean((p >= quality.threshold) == (t == 1)))


def _run(
    scores: NDArray[np.float64], always: Sequence[bool], bands: Sequence[tuple[float, float]]
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Each row's final score and the stage it stopped at, for these bands (``bands[k]`` for stage k;
    entry 0 unused). ``scores`` is rows x stages, NaN where a stage's signals so far have no value
    (such a row always goes on)."""
    n, stages = scores.shape
    final = scores[:, 0].copy()
    stop = np.zeros(n, dtype=np.int64)
    reach = np.ones(n, dtype=bool)
    for k in range(1, stages):
        before = scores[:, k - 1]
        low, high = bands[k]
        inside = np.isnan(before) | ((before >= low) & (before <= high))
        reach = reach & (inside | always[k])
        final[reach] = scores[reach, k]
        stop[reach] = k
    return final, stop


def _estimate(
    scores: NDArray[np.float64],
    always: Sequence[bool],
    bands: Sequence[tuple[float, float]],
    t: NDArray[np.float64],
    costs: _Costs,
    quality: CascadeQuality,
) -> CascadeEstimate:
    final, stop = _run(scores, always, bands)
    return _summary(final, stop, t, costs, quality)


def _summary(
    final: NDArray[np.float64],
    stop: NDArray[np.int64],
    t: NDArray[np.float64],
    costs: _Costs,
    quality: CascadeQuality,
) -> CascadeEstimate:
    stages = costs.requests.shape[1]
    ran = np.arange(stages)[None, :] <= stop[:, None]
    return CascadeEstimate(
        rows=int(t.size),
        requests=float((costs.requests * ran).sum(axis=1).mean()),
        tokens=float((costs.tokens * ran).sum(axis=1).mean()),
        metric=_quality(quality, t, final),
        stopped=[float(np.mean(stop == k)) for k in range(stages)],
    )


def _candidates(before: NDArray[np.float64]) -> list[tuple[float, float]]:
    present = before[~np.isnan(before)]
    edges = np.unique(np.r_[0.0, np.quantile(present, np.linspace(0, 1, GRID + 1)), 1.0])
    return [(float(lo), float(hi)) for i, lo in enumerate(edges) for hi in edges[i:]]


def _search_bands(
    scores: NDArray[np.float64],
    always: Sequence[bool],
    t: NDArray[np.float64],
    cost: NDArray[np.float64],
    quality: CascadeQuality,
) -> list[tuple[float, float]]:
    """The cheapest bands (by coordinate descent, see the module docstring) whose cascade keeps the
    quality within ``quality.max_loss`` of the full ensemble's on these rows. Coordinate descent
    depends on the order of the bands (the first one searched may spend the whole allowed loss where
    a later, costlier stage would save more), so it runs from the first band and from the last, and
    the cheaper result is kept."""
    stages = scores.shape[1]
    floor = _quality(quality, t, scores[:, -1]) - quality.max_loss
    free = [k for k in range(1, stages) if not always[k]]
    candidates = {k: _candidates(scores[:, k - 1]) for k in free}

    def score_of(trial: list[tuple[float, float]]) -> tuple[float, float] | None:
        final, stop = _run(scores, always, trial)
        metric = _quality(quality, t, final)
        if metric < floor - 1e-12:
            return None
        spent = float(np.take_along_axis(np.cumsum(cost, axis=1), stop[:, None], axis=1).mean())
        return spent, -metric

    def descend(order: list[int]) -> tuple[tuple[float, float], list[tuple[float, float]]]:
        bands = [(0.0, 1.0)] * stages
        best = score_of(bands)
        assert best is not None  # the full ensemble meets its own quality
        for _ in range(ROUNDS):
            changed = False
            for k in order:
                for band in candidates[k]:
                    trial = [*bands[:k], band, *bands[k + 1 :]]
                    got = score_of(trial)
                    if got is not None and got < best:
                        best, bands, changed = got, trial, True
            if not changed:
                break
        return best, bands

    forward = descend(free)
    backward = descend(free[::-1]) if len(free) > 1 else forward
    return min(forward, backward, key=lambda found: found[0])[1]


def _stage_scores(
    rows: Sequence[ScoredRow],
    stages: Sequence[StagePlan],
    *,
    label: str,
    label_means: LabelPolarity,
    group: str | None,
    options: FitOptions,
    name: str,
    data_name: str | None,
) -> tuple[list[CascadeStage], NDArray[np.float64]]:
    """Each stage's fitted calibrator (bands still open) and the rows x stages out-of-fold scores."""
    fitted: list[CascadeStage] = []
    columns: list[NDArray[np.float64]] = []
    signals: list[str] = []
    for stage in stages:
        signals = [*signals, *stage.signals]
        model, report = fit_calibrator(
            rows,
            label=label,
            label_means=label_means,
            group=group,
            features=[FeatureSpec(signal=s) for s in signals],
            name=f"{name}.{stage.name}",
            options=options,
            data_name=data_name,
        )
        columns.append(np.array([np.nan if p is None else p for p in report.oof_trust], dtype=np.float64))
        fitted.append(
            CascadeStage(name=stage.name, signals=list(stage.signals), always=stage.always, calibrator=model)
        )
    return fitted, np.column_stack(columns)


def fit_cascade(
    rows: Sequence[ScoredRow],
    stages: Sequence[StagePlan],
    *,
    label: str,
    quality: CascadeQuality,
    label_means: LabelPolarity = "untrustworthy",
    group: str | None = "source_id",
    cost: CostUnit = "requests",
    options: FitOptions | None = None,
    name: str = "cascade",
    data_name: str | None = None,
) -> CascadeModel:
    """Fit every stage's calibrator and the bands (see the module docstring) on rows scored with every
    signal. Rows where no signal has a value are left out; a row missing some signals is kept (its
    stage scores impute them as any fitted model does)."""
    opts = options or FitOptions()
    if len(stages) < 2:
        raise ValueError("a cascade needs at least two stages")
    if stages[0].always:
        raise ValueError(f"stage {stages[0].name!r} is the first: it always runs, do not mark it always")
    names = [s for stage in stages for s in stage.signals]
    through_cascade = [
        r.id or f"row {i + 1}" for i, r in enumerate(rows) if (r.fields.get("cascade") or {}).get("skipped")
    ]
    if through_cascade:
        raise ValueError(
            f"{len(through_cascade)} rows skipped signals in a cascade ({', '.join(through_cascade[:3])}): "
            "fit on a labeled file scored with every signal (score it with a config without [cascade])"
        )
    in_rows = {n for r in rows for n in r.signals}
    absent = [n for n in names if n not in in_rows]
    if absent:
        raise ValueError(
            f"signal(s) {absent} of the stages are in no row of the scored file: score it with every "
            "signal of the cascade"
        )
    fitted, scores = _stage_scores(
        rows,
        stages,
        label=label,
        label_means=label_means,
        group=group,
        options=opts,
        name=name,
        data_name=data_name,
    )
    keep = np.flatnonzero(~np.isnan(scores[:, -1]))
    kept = [rows[i] for i in keep.tolist()]
    scores = scores[keep]
    t = trust_target(label_column(kept, label), label_means)
    costs = _stage_costs(kept, stages)
    always = [stage.always for stage in stages]
    full = _estimate(scores, always, [(0.0, 1.0)] * len(stages), t, costs, quality)
    for share in SHARES:
        searched = quality.model_copy(update={"max_loss": quality.max_loss * share})
        held_out = _held_out(kept, scores, always, t, costs, cost, searched, group, opts)
        if full.metric - held_out.metric <= quality.max_loss:
            break
    bands = _search_bands(scores, always, t, costs.of(cost), searched)
    chosen = _estimate(scores, always, bands, t, costs, quality)
    raw = raw_features(kept, [FeatureSpec(signal=s) for s in names])
    return CascadeModel.build(
        name=name,
        stages=[
            stage.model_copy(update={"band": None if k == 0 or stage.always else bands[k]})
            for k, stage in enumerate(fitted)
        ],
        quality=quality,
        searched_loss=searched.max_loss,
        cost=cost,
        signal_costs=signal_costs(kept, names),
        full=full,
        fitted=chosen,
        held_out=held_out,
        label=label,
        label_means=label_means,
        data_sha256=data_hash(kept, label_column(kept, label), raw),
        trustscore_version=__version__,
    )


def _held_out(
    rows: Sequence[ScoredRow],
    scores: NDArray[np.float64],
    always: Sequence[bool],
    t: NDArray[np.float64],
    costs: _Costs,
    cost: CostUnit,
    quality: CascadeQuality,
    group: str | None,
    opts: FitOptions,
) -> CascadeEstimate:
    """Bands chosen on all folds but one and applied to that one, pooled over the folds."""
    groups = group_column(rows, group) if group else [str(i) for i in range(len(rows))]
    final = np.full(t.size, np.nan)
    stop = np.zeros(t.size, dtype=np.int64)
    unit = costs.of(cost)
    for train, test in grouped_kfold(groups, opts.folds, seed=opts.seed):
        bands = _search_bands(scores[train], always, t[train], unit[train], quality)
        final[test], stop[test] = _run(scores[test], always, bands)
    return _summary(final, stop, t, costs, quality)


@dataclass(frozen=True)
class CascadeScores:
    """A fitted cascade run over scored rows (every signal present): per row, the score of the stage it
    stopped at, the full ensemble's score, and the stage."""

    rows: list[ScoredRow]
    """The rows where the full ensemble has a score (rows without any signal value are left out)."""
    final: NDArray[np.float64]
    full: NDArray[np.float64]
    stop: NDArray[np.int64]


def cascade_scores(model: CascadeModel, rows: Sequence[ScoredRow]) -> CascadeScores:
    """Run ``model``'s stages and bands over ``rows`` as the Scorer would, without calling anything."""
    columns = []
    for stage in model.stages:
        calibrator = stage.calibrator
        columns.append(calibrator.predict_raw(calibrator.raw_matrix([r.signals for r in rows])))
    scores = np.column_stack(columns)
    keep = np.flatnonzero(~np.isnan(scores[:, -1]))
    scores = scores[keep]
    final, stop = _run(scores, [s.always for s in model.stages], [s.band or (0.0, 1.0) for s in model.stages])
    return CascadeScores([rows[i] for i in keep.tolist()], final, scores[:, -1], stop)


def evaluate_cascade(
    model: CascadeModel, rows: Sequence[ScoredRow]
) -> tuple[CascadeEstimate, CascadeEstimate]:
    """A fitted cascade on other rows scored with every signal: (the cascade, the full ensemble), each
    with its cost per row and quality in the model's own metric."""
    run = cascade_scores(model, rows)
    stages = [StagePlan(s.name, s.signals, s.always) for s in model.stages]
    t = trust_target(label_column(run.rows, model.label), model.label_means)
    costs = _stage_costs(run.rows, stages)
    last = np.full(t.size, len(stages) - 1, dtype=np.int64)
    return (
        _summary(run.final, run.stop, t, costs, model.quality),
        _summary(run.full, last, t, costs, model.quality),
    )
