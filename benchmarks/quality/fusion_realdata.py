"""Fused fast local signals on real data: RAGTruth held out, and ReDeEP fused with them.

    python -m benchmarks.quality.fusion_realdata [--data ../shared/data] [--json out/fusion_realdata.json]

RAGTruth (``ragtruth/test.jsonl`` + ``train_extra.jsonl``) is scored once by the ``trustscore score``
command itself (offline default: lexical + embedding), in ``--workers`` resumable processes, into
``--cache`` (default ``.cache-data/``, not in the repository); later runs reuse it.

Reported on ``test.jsonl`` by 5-fold cross-validation grouped by ``source_id``. Everything chosen
is chosen on the training folds only: the feature set (among ``CANDIDATES``, by the inner grouped
CV macro AUROC over tasks of ``trustscore.fusion.fit_calibrator``), the coefficients, and the
F1 threshold (the F1-best threshold of the inner out-of-fold predictions). Positive class =
hallucinated. ECE: 15 equal-mass bins. Each single signal is reported beside the fused model
(raw AUROC, and calibrated alone through the same CV for ECE / Brier / F1).

ReDeEP: the 450 llama-2-7b-chat test responses with the authors' released chunk features
(``redeep/llama2_7b_chunk_features.json``, matched by source_id + model). Grouped 5-fold CV; in every
training fold ReDeEP is selected and fitted with ``trustscore.fitting._redeep.fit_paper_profile``
(heads, layers and beta chosen inside), its scores for the training rows come from an inner grouped
CV (so the fusion never learns from in-sample ReDeEP scores), and the fused model is fitted on them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from benchmarks.quality.redeep_realdata import FILE as REDEEP_FILE
from benchmarks.quality.redeep_realdata import LLAMA2_7B, load_features
from trustscore._types import Signal
from trustscore.core._hashing import canonical_json, short_hash
from trustscore.fitting._calibrator import FitOptions, FitReport, fit_calibrator
from trustscore.fitting._evaluation import positive_class_scores
from trustscore.fitting._redeep import FeatureSet, fit_paper_profile, response_scores
from trustscore.fusion._model import FusionModel
from trustscore.rows._scored import ScoredRow, group_column, label_column, read_scored
from trustscore.stats._cv import Fold, grouped_kfold
from trustscore.stats._metrics import auroc, best_f1, evaluate, evaluate_grouped, threshold_metrics
from trustscore.whitebox._profile import RedeepProfile

REPO = Path(__file__).resolve().parents[2]
DEFAULT_DATA = REPO.parent / "shared" / "data"
DEFAULT_CACHE = REPO / ".cache-data"
SPLITS = ("test", "train_extra")
CARRIED = ("hallucinated", "task", "source_id", "model", "split")


class DataMissing(RuntimeError):
    """The RAGTruth files are not where they were looked for."""


def ragtruth_files(data_dir: Path) -> dict[str, Path]:
    """The RAGTruth JSONL files by split; raises DataMissing naming what is absent."""
    files = {split: data_dir / "ragtruth" / f"{split}.jsonl" for split in SPLITS}
    absent = [str(p) for p in files.values() if not p.exists()]
    if absent:
        raise DataMissing(f"RAGTruth not found ({', '.join(absent)}); pass --data DIR holding ragtruth/")
    return files


def write_score_input(data_dir: Path, path: Path) -> int:
    """One ``trustscore score`` input row per RAGTruth response; returns the row count."""
    lines: list[str] = []
    for split, source in ragtruth_files(data_dir).items():
        with source.open(encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                item = {k: row[k] for k in ("id", "question", "context", "response")}
                item.update({k: row[k] for k in CARRIED if k != "split"})
                item["split"] = split
                lines.append(json.dumps(item, ensure_ascii=False))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def default_signal_versions() -> dict[str, str]:
    """The versions of the local signals the offline default Scorer runs (without the claims extra)."""
    from trustscore.grounding import EmbeddingGrounding, LexicalSupport

    return {s.name: s.version for s in (LexicalSupport(), EmbeddingGrounding())}


def claims_signal_versions() -> dict[str, str]:
    """The versions of the local signals the offline default Scorer runs with the claims extra."""
    from trustscore.grounding.claims._config import ClaimsConfig
    from trustscore.grounding.claims._signal import claims_version

    return {**default_signal_versions(), "claims": claims_version(ClaimsConfig())}


def scored_ragtruth(
    data_dir: Path = DEFAULT_DATA, cache_dir: Path = DEFAULT_CACHE, *, workers: int = 3
) -> Path:
    """The scored JSONL of RAGTruth (test + train_extra), computing the missing rows first.

    Kept in ``cache_dir/ragtruth-<fingerprint>/``. The input is cut into ``workers`` shards of whole
    sources (so each context is embedded once), each scored by its own resumable ``trustscore score``
    process; the shards are then merged in input order.
    """
    folder = cache_dir / f"ragtruth-{short_hash(canonical_json(default_signal_versions()), 12)}"
    scored = folder / "scored.jsonl"
    source = folder / "input.jsonl"
    expected = write_score_input(data_dir, source)
    if _count_lines(scored) == expected:
        changed = spot_check(scored, source)
        if not changed:
            return scored
        stale = folder.with_name(folder.name + f".stale-{int(time.time())}")
        print(f"cached scores differ from this code's on {changed}: rescoring (old cache: {stale})")
        folder.rename(stale)
        write_score_input(data_dir, source)
    inputs = source.read_text(encoding="utf-8").splitlines()
    shards = _shard_inputs(inputs, workers, folder / "shards")
    print(f"scoring {expected} RAGTruth rows in {len(shards)} processes (resumable)...", file=sys.stderr)
    running = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "trustscore.cli",
                "score",
                str(shard_in),
                "-o",
                str(shard_out),
                "--concurrency",
                "4",
                "--budget",
                "600",
                "--no-progress",
            ],
            cwd=REPO,
        )
        for shard_in, shard_out in shards
    ]
    failed = [p.args for p in running if p.wait() != 0]
    if failed:
        raise RuntimeError(f"trustscore score failed: {failed}")
    by_id: dict[str, str] = {}
    for _, shard_out in shards:
        for line in shard_out.read_text(encoding="utf-8").splitlines():
            if line.strip():
                by_id[json.loads(line)["id"]] = line
    order = [json.loads(line)["id"] for line in inputs]
    missing = [i for i in order if i not in by_id]
    if missing:
        raise RuntimeError(f"{len(missing)} rows were not scored (e.g. {missing[:3]})")
    scored.write_text("\n".join(by_id[i] for i in order) + "\n", encoding="utf-8")
    return scored


def spot_check(scored: Path, source: Path, n: int = 24, tolerance: float = 1e-4) -> list[str]:
    """Rescore ``n`` rows spread over the input with the code as it is now; the ids that differ.

    Signal versions name the knobs, not every line of shared code (sentence splitting, word folding),
    so a cache is trusted only if a fresh sample of it reproduces.
    """
    lines = source.read_text(encoding="utf-8").splitlines()
    step = max(1, len(lines) // n)
    probe_in = source.with_name("spot_check_input.jsonl")
    probe_out = source.with_name("spot_check_scored.jsonl")
    probe_in.write_text("\n".join(lines[::step][:n]) + "\n", encoding="utf-8")
    probe_out.unlink(missing_ok=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "trustscore.cli",
            "score",
            str(probe_in),
            "-o",
            str(probe_out),
            "--no-progress",
        ],
        cwd=REPO,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    cached = {r.id: r for r in read_scored(scored)}
    return [
        fresh.id or ""
        for fresh in read_scored(probe_out)
        if not _same_signals(fresh, cached[fresh.id], tolerance)
    ]


def _same_signals(a: ScoredRow, b: ScoredRow, tolerance: float) -> bool:
    def numbers(row: ScoredRow) -> dict[str, object]:
        out: dict[str, object] = {}
        for name, sig in row.signals.items():
            out[f"{name}.version"] = sig.version
            out[f"{name}.value"] = sig.value
            if isinstance(sig.raw, dict):
                out.update({f"{name}.raw.{k}": v for k, v in sig.raw.items()})
        return out

    x, y = numbers(a), numbers(b)
    if x.keys() != y.keys():
        return False
    for key, u in x.items():
        v = y[key]
        if isinstance(u, int | float) and isinstance(v, int | float) and not isinstance(u, bool):
            if abs(float(u) - float(v)) > tolerance:
                return False
        elif isinstance(u, list) and isinstance(v, list) and len(u) == len(v):
            if any(abs(float(p) - float(q)) > tolerance for p, q in zip(u, v, strict=True)):
                return False
        elif u != v:
            return False
    return True


def _shard_inputs(lines: list[str], workers: int, folder: Path) -> list[tuple[Path, Path]]:
    """Cut input lines into ``workers`` contiguous shards that never split a source."""
    folder.mkdir(parents=True, exist_ok=True)
    cuts = [0]
    for k in range(1, workers):
        cut = len(lines) * k // workers
        while 0 < cut < len(lines) and _source(lines[cut]) == _source(lines[cut - 1]):
            cut += 1
        cuts.append(cut)
    cuts.append(len(lines))
    shards = []
    for k in range(workers):
        shard_in, shard_out = folder / f"input-{k}.jsonl", folder / f"scored-{k}.jsonl"
        shard_in.write_text("\n".join(lines[cuts[k] : cuts[k + 1]]) + "\n", encoding="utf-8")
        shards.append((shard_in, shard_out))
    return shards


def _source(line: str) -> str:
    return str(json.loads(line)["source_id"])


def _count_lines(path: Path) -> int:
    if not path.exists():
        return 0
    with path.open(encoding="utf-8") as fh:
        return sum(1 for line in fh if line.strip())


# -- held-out evaluation of the fused local signals ------------------------------------------

LABEL = "hallucinated"
GROUP = "source_id"
TASKS = ("QA", "Summary", "Data2txt")
ECE_BINS = 15
LETTUCEDETECT_LARGE_F1 = 0.792
"""Example-level F1 of LettuceDetect-large (a trained ModernBERT detector) on the RAGTruth test set
(Kovács and Recski 2025, "LettuceDetect", arXiv:2502.17125), as quoted in this project's brief."""

SIGNALS = {"lexical": "lexical", "embedding": "embedding|identity"}
"""Each fast signal's value as a feature: lexical support is a share (logit); the embedding value is a
cosine similarity, not a probability, so it enters as is."""
VALUES = list(SIGNALS.values())
EMBEDDING_PARTS = [f"embedding:raw.{k}|identity" for k in ("min", "q25", "softmin", "frac_low")]
LEXICAL_PARTS = ["lexical:raw.unsupported_share|identity"]
LENGTHS = [
    "lexical:raw.words|clip",
    "lexical:raw.numbers|clip",
    "lexical:raw.names|clip",
    "embedding:raw.sentences|clip",
    "embedding:raw.chunks|clip",
]
CANDIDATES: dict[str, list[str]] = {
    "values": VALUES,
    "values+parts": VALUES + EMBEDDING_PARTS + LEXICAL_PARTS,
    "values+parts+lengths": VALUES + EMBEDDING_PARTS + LEXICAL_PARTS + LENGTHS,
}
"""Feature sets the fusion may choose from (on training folds). ``lengths`` are task-agnostic sample
properties (response words / numbers / names / sentences, context windows); no task label is used."""


@dataclass(frozen=True)
class HeldOut:
    """Out-of-fold P(hallucinated) for every row, and what was chosen in each training fold."""

    p: NDArray[np.float64]
    predicted: NDArray[np.bool_]
    """Hallucinated when p >= the threshold chosen on that row's training folds."""
    chosen: list[str]
    thresholds: list[float]


def select_and_fit(
    rows: Sequence[ScoredRow],
    candidates: Mapping[str, Sequence[str]],
    options: FitOptions,
    name: str = "fused",
) -> tuple[str, FusionModel, FitReport]:
    """The candidate feature set with the best inner grouped-CV macro AUROC over tasks, fitted on ``rows``."""
    best: tuple[float, str, FusionModel, FitReport] | None = None
    for key, features in candidates.items():
        model, report = fit_calibrator(
            rows, label=LABEL, group=GROUP, features=list(features), by="task", name=name, options=options
        )
        macro = report.held_out.report.macro["auroc"]
        score = -np.inf if macro is None else macro
        if best is None or score > best[0]:
            best = (score, key, model, report)
    assert best is not None
    return best[1], best[2], best[3]


def p_hallucinated(model: FusionModel, rows: Sequence[ScoredRow]) -> NDArray[np.float64]:
    return 1.0 - model.predict_raw(model.raw_matrix([r.signals for r in rows]))


def cross_validate(
    rows: Sequence[ScoredRow],
    candidates: Mapping[str, Sequence[str]],
    folds: Sequence[Fold],
    options: FitOptions,
) -> HeldOut:
    y = label_column(rows, LABEL)
    p = np.full(len(rows), np.nan)
    predicted = np.zeros(len(rows), dtype=bool)
    chosen: list[str] = []
    thresholds: list[float] = []
    for train, test in folds:
        train_rows = [rows[i] for i in train]
        key, model, report = select_and_fit(train_rows, candidates, options)
        inner = np.array([np.nan if t is None else 1.0 - t for t in report.oof_trust])
        ok = ~np.isnan(inner)
        threshold = best_f1(y[train][ok], inner[ok]).threshold
        p[test] = p_hallucinated(model, [rows[i] for i in test])
        predicted[test] = p[test] >= threshold
        chosen.append(key)
        thresholds.append(threshold)
    return HeldOut(p=p, predicted=predicted, chosen=chosen, thresholds=thresholds)


def summarise(y: NDArray[np.float64], tasks: Sequence[str], held: HeldOut) -> dict[str, Any]:
    """AUROC per task / macro / pooled, ECE (15 equal-mass bins), Brier, F1 at training-fold thresholds."""
    ok = ~np.isnan(held.p)
    task_arr = np.asarray(tasks)
    report = evaluate_grouped(y[ok], held.p[ok], task_arr[ok].tolist(), by="task", n_bins=ECE_BINS)
    f1 = threshold_metrics(y[ok], held.predicted[ok].astype(np.float64), 0.5)
    per_task_f1 = {
        t: threshold_metrics(y[ok & (task_arr == t)], held.predicted[ok & (task_arr == t)].astype(float)).f1
        for t in TASKS
        if (ok & (task_arr == t)).any()
    }
    return {
        "n": int(ok.sum()),
        "unscored": int((~ok).sum()),
        "auroc": {t: report.groups[t].auroc for t in TASKS if t in report.groups}
        | {"macro": report.macro["auroc"], "pooled": report.pooled.auroc},
        "ece_mass15": {"pooled": report.pooled.ece_mass, "macro": report.macro["ece_mass"]}
        | {t: report.groups[t].ece_mass for t in TASKS if t in report.groups},
        "brier": {"pooled": report.pooled.brier, "macro": report.macro["brier"]},
        "f1_training_fold_threshold": {
            "pooled": f1.f1,
            "precision": f1.precision,
            "recall": f1.recall,
            "thresholds": held.thresholds,
        }
        | per_task_f1,
        "chosen": held.chosen,
    }


def raw_aurocs(rows: Sequence[ScoredRow], signal: str) -> dict[str, float | None]:
    """AUROC of 1 - the signal's value (no fitting), per task, macro and pooled."""
    idx, p = positive_class_scores(rows, signal, "untrustworthy")
    y = label_column([rows[i] for i in idx.tolist()], LABEL)
    tasks = group_column([rows[i] for i in idx.tolist()], "task")
    report = evaluate_grouped(y, p, tasks, by="task", n_bins=ECE_BINS)
    return {t: report.groups[t].auroc for t in TASKS if t in report.groups} | {
        "macro": report.macro["auroc"],
        "pooled": report.pooled.auroc,
    }


def ragtruth_figures(rows: Sequence[ScoredRow], folds_k: int, seed: int) -> dict[str, Any]:
    test = [r for r in rows if r.fields.get("split") == "test"]
    y = label_column(test, LABEL)
    tasks = group_column(test, "task")
    folds = grouped_kfold(group_column(test, GROUP), folds_k, seed=seed)
    options = FitOptions(folds=folds_k, seed=seed)
    out: dict[str, Any] = {"rows": len(test), "folds": folds_k, "group": GROUP, "candidates": CANDIDATES}
    out["fused (chosen on training folds)"] = summarise(
        y, tasks, cross_validate(test, CANDIDATES, folds, options)
    )
    for key, features in CANDIDATES.items():
        out[f"fused, fixed {key}"] = summarise(
            y, tasks, cross_validate(test, {key: features}, folds, options)
        )
    for signal, feature in SIGNALS.items():
        alone = summarise(y, tasks, cross_validate(test, {signal: [feature]}, folds, options))
        alone["raw_auroc"] = raw_aurocs(test, signal)
        out[f"{signal} alone"] = alone
    return out


# -- ReDeEP, alone and fused with the fast signals --------------------------------------------


def _redeep_response_scores(
    profile: RedeepProfile, data: FeatureSet, ids: Mapping[str, str]
) -> dict[str, float]:
    """P(hallucinated) per source_id from a fitted profile (responses aggregated its own way)."""
    ecs, pks = data.columns_for(profile)
    scores, _ = response_scores(profile.token_scores(ecs, pks), data, profile.response_aggregation)
    keys = np.unique(data.responses)
    return {ids[str(k)]: float(s) for k, s in zip(keys.tolist(), scores.tolist(), strict=True)}


def _fit_redeep(data: FeatureSet, seed: int) -> RedeepProfile:
    return fit_paper_profile(
        data,
        model=LLAMA2_7B,
        level="chunk",
        pks_mode="legacy",
        split="training folds of the RAGTruth llama-2-7b-chat responses",
        aggregation="mean",
        seed=seed,
    )


def _value(row: ScoredRow, signal: str) -> float:
    found = row.signals.get(signal)
    return np.nan if found is None or found.value is None else found.value


def _with_redeep(row: ScoredRow, p_hallucinated: float) -> ScoredRow:
    signal = Signal(name="redeep", value=min(1.0, max(0.0, 1.0 - p_hallucinated)), version="redeep-cv")
    return row.model_copy(update={"signals": {**row.signals, "redeep": signal}})


def redeep_figures(rows: Sequence[ScoredRow], redeep_path: Path, folds_k: int, seed: int) -> dict[str, Any]:
    data = load_features(redeep_path)
    released = json.loads(redeep_path.read_text(encoding="utf-8"))
    ids = {str(r["id"]): str(r["source_id"]) for r in released}
    models = {str(r["model"]) for r in released}
    by_source = {
        str(r.fields[GROUP]): r
        for r in rows
        if r.fields.get("split") == "test" and r.fields.get("model") in models
    }
    matched = [by_source[s] for s in sorted(set(ids.values())) if s in by_source]
    sources = [str(r.fields[GROUP]) for r in matched]
    y = label_column(matched, LABEL)
    tasks = group_column(matched, "task")
    folds = grouped_kfold(sources, folds_k, seed=seed)
    options = FitOptions(folds=folds_k, seed=seed)
    redeep_test = np.full(len(matched), np.nan)
    fused_rows: list[ScoredRow | None] = [None] * len(matched)
    held: dict[str, HeldOut] = {}
    fused_p = {k: np.full(len(matched), np.nan) for k in ("fast fused", "redeep + fast fused")}
    fused_pred = {k: np.zeros(len(matched), dtype=bool) for k in fused_p}
    thresholds: dict[str, list[float]] = {k: [] for k in fused_p}
    for fold_no, (train, test) in enumerate(folds):
        train_sources = {sources[i] for i in train}
        in_train = np.array([ids[str(r)] in train_sources for r in data.responses.tolist()])
        outer = _redeep_response_scores(_fit_redeep(data.subset(in_train), seed), data.subset(~in_train), ids)
        # Inner grouped CV on the training fold: ReDeEP scores for training rows that no fit has seen.
        inner_scores: dict[str, float] = {}
        train_list = sorted(train_sources)
        for inner_train, _ in grouped_kfold(train_list, folds_k, seed=seed + 1 + fold_no):
            keep = {train_list[i] for i in inner_train}
            mask_fit = np.array([ids[str(r)] in keep for r in data.responses.tolist()])
            mask_score = in_train & ~mask_fit
            profile = _fit_redeep(data.subset(mask_fit), seed)
            inner_scores.update(_redeep_response_scores(profile, data.subset(mask_score), ids))
        for i in test:
            redeep_test[i] = outer[sources[i]]
            fused_rows[i] = _with_redeep(matched[i], outer[sources[i]])
        train_rows = [_with_redeep(matched[i], inner_scores[sources[i]]) for i in train]
        test_rows = [r for r in (fused_rows[i] for i in test) if r is not None]
        for key, extra in (("fast fused", []), ("redeep + fast fused", ["redeep"])):
            candidates = {k: [*extra, *v] for k, v in CANDIDATES.items()}
            _, model, report = select_and_fit(train_rows, candidates, options)
            inner = np.array([np.nan if t is None else 1.0 - t for t in report.oof_trust])
            ok = ~np.isnan(inner)
            threshold = best_f1(y[train][ok], inner[ok]).threshold
            fused_p[key][test] = p_hallucinated(model, test_rows)
            fused_pred[key][test] = fused_p[key][test] >= threshold
            thresholds[key].append(threshold)
    for key in fused_p:
        held[key] = HeldOut(fused_p[key], fused_pred[key], [], thresholds[key])
    clusters = sources
    out: dict[str, Any] = {"rows": len(matched), "positives": int(y.sum()), "folds": folds_k}
    scores = (
        {"redeep alone (held out)": redeep_test}
        | {f"{s} alone (raw)": 1.0 - np.array([_value(m, s) for m in matched]) for s in SIGNALS}
        | fused_p
    )
    for key, p in scores.items():
        ok = ~np.isnan(p)
        r = evaluate(y[ok], p[ok], n_bins=ECE_BINS, ci=True, groups=[clusters[i] for i in np.flatnonzero(ok)])
        out[key] = {
            "auroc": r.auroc,
            "auroc_ci95": None if r.auroc_ci is None else [r.auroc_ci.low, r.auroc_ci.high],
            "ece_mass15": r.ece_mass,
            "brier": r.brier,
        }
        if key in held:
            f1 = threshold_metrics(y, held[key].predicted.astype(np.float64), 0.5)
            out[key]["f1_training_fold_threshold"] = f1.f1
    out["tasks"] = {t: tasks.count(t) for t in TASKS}
    out["paired_auroc_differences"] = {
        f"{a} - {b}": paired_auroc_difference(y, scores[a], scores[b], sources)
        for a, b in (
            ("redeep + fast fused", "redeep alone (held out)"),
            ("redeep + fast fused", "fast fused"),
            ("fast fused", "redeep alone (held out)"),
        )
    }
    return out


def paired_auroc_difference(
    y: NDArray[np.float64],
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    groups: Sequence[str],
    n_boot: int = 2000,
    seed: int = 0,
) -> dict[str, float]:
    """AUROC(a) - AUROC(b) on the same rows, with a 95% interval resampling whole groups (sources)."""
    ok = ~(np.isnan(a) | np.isnan(b))
    y, a, b = y[ok], a[ok], b[ok]
    keys = np.asarray(groups)[ok]
    members = [np.flatnonzero(keys == k) for k in np.unique(keys)]
    rng = np.random.default_rng(seed)
    diffs = []
    for _ in range(n_boot):
        rows = np.concatenate([members[i] for i in rng.integers(0, len(members), len(members))])
        if 0 < y[rows].sum() < rows.size:
            diffs.append(auroc(y[rows], a[rows]) - auroc(y[rows], b[rows]))
    low, high = np.quantile(np.asarray(diffs), [0.025, 0.975])
    return {"difference": auroc(y, a) - auroc(y, b), "ci95_low": float(low), "ci95_high": float(high)}


# -- printing ---------------------------------------------------------------------------------


def _f(v: object) -> str:
    return "   -  " if v is None or (isinstance(v, float) and np.isnan(v)) else f"{float(v):.3f}"  # type: ignore[arg-type]


def print_ragtruth(fig: dict[str, Any]) -> None:
    print(
        f"\nRAGTruth test ({fig['rows']} rows), {fig['folds']}-fold CV grouped by {fig['group']}; "
        "positive = hallucinated"
    )
    cols = ["QA", "Summary", "Data2txt", "macro", "pooled"]
    print(
        f"{'model':38s} "
        + " ".join(f"{c:>8s}" for c in ["AUROC " + c[:5] for c in cols])
        + f" {'ECE15m':>7s} {'ECEtask':>7s} {'Brier':>6s} {'F1':>6s}"
    )
    for key, v in fig.items():
        if not isinstance(v, dict) or "auroc" not in v:
            continue
        print(
            f"{key:38s} "
            + " ".join(f"{_f(v['auroc'].get(c)):>8s}" for c in cols)
            + f" {_f(v['ece_mass15']['pooled']):>7s} {_f(v['ece_mass15']['macro']):>7s}"
            + f" {_f(v['brier']['pooled']):>6s} {_f(v['f1_training_fold_threshold']['pooled']):>6s}"
        )
        if "raw_auroc" in v:
            raw = v["raw_auroc"]
            print(f"{'  (raw value, no fit)':38s} " + " ".join(f"{_f(raw.get(c)):>8s}" for c in cols))
    fused = fig["fused (chosen on training folds)"]
    f1 = fused["f1_training_fold_threshold"]["pooled"]
    print(f"chosen per fold: {fused['chosen']}")
    print(
        f"example-level F1 {f1:.3f} vs LettuceDetect-large {LETTUCEDETECT_LARGE_F1} "
        f"(gap {LETTUCEDETECT_LARGE_F1 - f1:.3f}); ECE target <= 0.05: "
        f"{'met' if fused['ece_mass15']['pooled'] <= 0.05 else 'NOT met'} pooled"
    )


def print_redeep(fig: dict[str, Any]) -> None:
    print(
        f"\nReDeEP subset: {fig['rows']} llama-2-7b-chat test responses ({fig['positives']} hallucinated), "
        f"{fig['folds']}-fold CV grouped by source_id; tasks {fig['tasks']}"
    )
    print(
        f"{'model':28s} {'AUROC':>6s} {'95% CI (cluster bootstrap)':>27s} "
        f"{'ECE15m':>7s} {'Brier':>6s} {'F1':>6s}"
    )
    for key, v in fig.items():
        if isinstance(v, dict) and "auroc" in v:
            ci = v["auroc_ci95"]
            ci_text = "-" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"
            print(
                f"{key:28s} {_f(v['auroc']):>6s} {ci_text:>27s} "
                f"{_f(v['ece_mass15']):>7s} {_f(v['brier']):>6s}"
                f" {_f(v.get('f1_training_fold_threshold')):>6s}"
            )
    for key, d in fig["paired_auroc_differences"].items():
        print(
            f"AUROC {key}: {d['difference']:+.3f} "
            f"[{d['ci95_low']:+.3f}, {d['ci95_high']:+.3f}] (paired, sources resampled)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA, help="folder holding ragtruth/ and redeep/"
    )
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where the scored RAGTruth is kept")
    parser.add_argument("--json", type=Path, default=REPO / "out" / "fusion_realdata.json")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=3, help="scoring processes (first run only)")
    args = parser.parse_args(argv)
    try:
        scored = scored_ragtruth(args.data, args.cache, workers=args.workers)
    except DataMissing as e:
        print(f"SKIP: {e}")
        return 0
    started = time.perf_counter()
    rows = read_scored(scored)
    figures: dict[str, Any] = {
        "scored_file": str(scored),
        "ragtruth": ragtruth_figures(rows, args.folds, args.seed),
    }
    print_ragtruth(figures["ragtruth"])
    redeep_path = args.data / "redeep" / REDEEP_FILE
    if redeep_path.exists():
        figures["redeep"] = redeep_figures(rows, redeep_path, args.folds, args.seed)
        print_redeep(figures["redeep"])
    else:
        print(f"\nSKIP ReDeEP: {redeep_path} not found")
    figures["seconds"] = time.perf_counter() - started
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.json} ({figures['seconds']:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
