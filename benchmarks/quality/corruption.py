"""The corruption benchmark: does the offline default flag a real sentence with one fact changed?

    python -m benchmarks.quality.corruption_pairs --data ../shared/data   # builds the pairs (seeded)
    .venv/bin/trustscore score .cache-data/corruption/pairs.jsonl -o .cache-data/corruption/scored.jsonl
    .venv/bin/python -m benchmarks.quality.corruption [--scored FILE] [--calibrator FILE.json]

Reads the scored pairs (``benchmarks.quality.corruption_pairs``: a faithful sentence of a real context,
verbatim or a faithful RAGTruth response's own words, and the same sentence with one fact changed) and fuses
each row's signals afresh with the fuser the offline default picks for those signals (the shipped
calibrator of their versions, else the log-odds pool), or with ``--calibrator``: a refit is measured
without rescoring. Prints, for the fused score and each signal alone: AUROC (positive = corrupted),
per corruption kind the share scored under 0.5, the share of faithful rows at or above 0.5 (verbatim
and paraphrase apart), the share of (faithful sentence, its own corruption) pairs ordered right, and
the share of faithful rows scored above every corruption of their own context (a missing score counts
as 1.0 for a corruption: not flagged); then what keeps paraphrases under the line or under an error of
their context (``benchmarks.quality.corruption_losses``); and, per kind, the changed rows under 0.5 among
the changes of verbatim sentences and of paraphrases apart.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from benchmarks.quality.corruption_losses import paraphrase_losses
from benchmarks.quality.corruption_pairs import DEFAULT_PAIRS, KINDS
from trustscore._types import Signal
from trustscore.rows._scored import ScoredRow, read_scored
from trustscore.stats._metrics import auroc_or_nan

DEFAULT_SCORED = DEFAULT_PAIRS.with_name("scored.jsonl")
FAITHFUL = ("verbatim", "paraphrase")
Scorer = Callable[[Mapping[str, Signal]], float | None]


def default_fuser(rows: Sequence[ScoredRow], calibrator: Path | None = None) -> tuple[str, Scorer]:
    """The fuser a default offline Scorer uses for these rows' signals (or the given calibrator file)."""
    from trustscore.calibrators import shipped_calibrator
    from trustscore.fusion._fuser import DefaultFuser
    from trustscore.fusion._store import load_model

    if calibrator is not None:
        model = load_model(calibrator)
    else:
        versions = {n: s.version for n, s in rows[0].signals.items() if s.value is not None}
        model = shipped_calibrator(versions)  # type: ignore[assignment]
    fuser = model if model is not None else DefaultFuser()
    name = model.description if model is not None else DefaultFuser.description
    return name, lambda signals: fuser.predict(signals).score


def summarise(rows: Sequence[ScoredRow], scores: Sequence[float | None]) -> dict[str, float | None]:
    """AUROC, per-kind shares under / at or above 0.5, and the own-context ranking share."""
    out: dict[str, float | None] = {}
    kind = [str(r.fields["kind"]) for r in rows]
    y = np.array([bool(r.fields["hallucinated"]) for r in rows])
    s = np.array([np.nan if v is None else v for v in scores])
    scored = ~np.isnan(s)
    area = auroc_or_nan(y[scored], 1.0 - s[scored]) if scored.any() else float("nan")
    out["auroc"] = None if np.isnan(area) else area
    out["unscored"] = float((~scored).mean())
    for k in (*FAITHFUL, *KINDS):
        mask = np.array([x == k for x in kind])
        if not mask.any():
            out[k] = None
            continue
        flagged = (s[mask] < 0.5) & scored[mask]
        out[k] = float((~flagged).mean()) if k in FAITHFUL else float(flagged.mean())
    wrong: dict[str, list[float]] = defaultdict(list)
    for r, v in zip(rows, s, strict=True):
        if r.fields["hallucinated"]:
            wrong[str(r.fields["source_id"])].append(float(v) if not np.isnan(v) else 1.0)
    score_of = {r.id: float(v) for r, v in zip(rows, s, strict=True) if not np.isnan(v)}
    role_of = {r.id: k for r, k in zip(rows, kind, strict=True)}
    for role in FAITHFUL:
        pairs = [
            score_of[str(r.fields["faithful_of"])] > score_of.get(str(r.id), 1.0)
            for r in rows
            if r.fields["hallucinated"]
            and str(r.fields.get("faithful_of")) in score_of
            and role_of[str(r.fields["faithful_of"])] == role
        ]
        out[f"{role} above its own corruption (pairs)"] = float(np.mean(pairs)) if pairs else None
        above = [
            float(v) > max(wrong[str(r.fields["source_id"])])
            for r, v in zip(rows, s, strict=True)
            if r.fields["kind"] == role and wrong[str(r.fields["source_id"])] and not np.isnan(v)
        ]
        out[f"{role} above its context's errors"] = float(np.mean(above)) if above else None
    return out


def flagged_by_source(rows: Sequence[ScoredRow], scores: Sequence[float | None]) -> str:
    """Per kind, the changed rows under 0.5 among the changes of a verbatim sentence and among those of a
    paraphrase (a faithful answer's own words, which no context sentence states as written): the checks
    that read a sentence against the one it copies reach only the first. A missing score is not flagged."""
    role = {str(r.id): str(r.fields["kind"]) for r in rows}
    tally: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r, v in zip(rows, scores, strict=True):
        source = role.get(str(r.fields.get("faithful_of")))
        if r.fields["hallucinated"] and source in FAITHFUL:
            cell = tally[(str(r.fields["kind"]), str(source))]
            cell[0] += v is not None and v < 0.5
            cell[1] += 1
    lines = [
        "Changed rows under 0.5 (fused), by the faithful sentence changed:",
        "",
        "| kind | of a verbatim sentence | of a paraphrase |",
        "|---|---|---|",
    ]
    for kind in KINDS:
        cells = [tally.get((kind, source)) for source in FAITHFUL]
        lines.append(f"| {kind} | " + " | ".join(f"{c[0]} of {c[1]}" if c else "–" for c in cells) + " |")
    return "\n".join(lines)


def _cell(key: str, v: float | None) -> str:
    if v is None:
        return "–"
    return f"{v:.3f}" if key == "auroc" else f"{v:.0%}"


def report(columns: Mapping[str, Mapping[str, float | None]], counts: Mapping[str, int]) -> str:
    names = list(columns)
    keys = list(next(iter(columns.values())))
    label = {
        "auroc": "AUROC (corrupted vs faithful)",
        "unscored": "unscored rows",
        **{k: f"{k} (n={counts.get(k, 0)}): at or above 0.5" for k in FAITHFUL},
        **{k: f"{k} (n={counts.get(k, 0)}): under 0.5" for k in KINDS},
    }
    lines = ["| measure | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for key in keys:
        lines.append(
            f"| {label.get(key, key)} | " + " | ".join(_cell(key, columns[n][key]) for n in names) + " |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scored", type=Path, default=DEFAULT_SCORED)
    parser.add_argument("--calibrator", type=Path, default=None, help="fuse with this calibrator file")
    args = parser.parse_args(argv)
    if not args.scored.exists():
        print(f"SKIP: {args.scored} not found; build and score the pairs first (see the docstring)")
        return 0
    rows = [r for r in read_scored(args.scored) if "kind" in r.fields]
    name, fuse = default_fuser(rows, args.calibrator)
    fused = [fuse(r.signals) for r in rows]
    columns = {f"fused ({name})": summarise(rows, fused)}
    for signal in sorted({n for r in rows for n in r.signals}):
        columns[f"{signal} alone"] = summarise(
            rows, [r.signals[signal].value if signal in r.signals else None for r in rows]
        )
    counts: dict[str, int] = defaultdict(int)
    for r in rows:
        counts[str(r.fields["kind"])] += 1
    print(
        f"{len(rows)} rows, {sum(bool(r.fields['hallucinated']) for r in rows)} corrupted, from "
        f"{len({r.fields['source_id'] for r in rows})} contexts"
    )
    print(report(columns, counts))
    print()
    print(flagged_by_source(rows, fused))
    print()
    print(paraphrase_losses(rows, fused))
    return 0


if __name__ == "__main__":
    sys.exit(main())
