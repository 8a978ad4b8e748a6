"""The default pool with a judge, on the corruption benchmark: judges of known accuracy beside the
offline signals.

    .venv/bin/python -m benchmarks.quality.scripted_judges [--scored .cache-data/corruption/scored.jsonl]

For each row of the scored corruption benchmark (``benchmarks.quality.corruption``) a scripted Lynx judge
answers as the test kit's ``lynx_answer(p_pass=...)`` does: right on a fixed share of rows (70%, 85%,
95%, drawn with a fixed seed over the rows in id order), with P(pass) = ``c`` where it is right and
``1 - c`` where it is wrong, ``c`` = 0.95 (confident) or 0.7 (unsure). The row's offline signals and
that judge are fused by the fuser a default Scorer builds for them
(``trustscore.scoring._wiring.load_fuser``: the log-odds pool, with the shipped offline calibrator as
one voice and its evidence terms after) and, for comparison, by the plain pool over every signal.
Prints AUROC (positive = corrupted) of the judge alone, the offline score alone, both pools, and the
share of corrupted rows under 0.5; then the case the pool must hold: a changed-number answer the
judge wrongly passes at P(pass) = 0.9.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from benchmarks.quality.corruption import DEFAULT_SCORED, default_fuser
from trustscore._types import Signal
from trustscore.fusion._fuser import OFFLINE_WEIGHT, DefaultFuser
from trustscore.rows._scored import ScoredRow, read_scored
from trustscore.stats._metrics import auroc

ACCURACIES = (0.70, 0.85, 0.95)
CONFIDENCE = {"confident": 0.95, "unsure": 0.7}
SEED = 0


def judge(p_pass: float) -> Signal:
    return Signal(name="lynx", value=p_pass, version="lynx/scripted")


def judge_values(rows: Sequence[ScoredRow], accuracy: float, confidence: float) -> list[float]:
    rng = np.random.default_rng(SEED)
    right = rng.random(len(rows)) < accuracy
    return [
        confidence if bool(r.fields["hallucinated"]) != bool(ok) else 1.0 - confidence
        for r, ok in zip(rows, right, strict=True)
    ]


def fusers(rows: Sequence[ScoredRow], offline_weight: float = OFFLINE_WEIGHT) -> dict[str, DefaultFuser]:
    """The pool a default Scorer with a judge builds (offline model as one voice, of ``offline_weight``)
    and the plain one."""
    from trustscore.calibrators import shipped_calibrator
    from trustscore.signals import signal_weights

    versions = {n: s.version for n, s in rows[0].signals.items()}
    weights = {**signal_weights(), "lynx": 1.0}
    return {
        "default pool": DefaultFuser(
            weights, offline=shipped_calibrator(versions), offline_weight=offline_weight
        ),
        "plain pool (every signal a voice)": DefaultFuser(weights),
    }


def _auroc(rows: Sequence[ScoredRow], scores: Sequence[float | None]) -> float:
    y = np.array([bool(r.fields["hallucinated"]) for r in rows])
    s = np.array([np.nan if v is None else v for v in scores])
    ok = ~np.isnan(s)
    return auroc(y[ok], 1.0 - s[ok])


def _flagged(rows: Sequence[ScoredRow], scores: Sequence[float | None]) -> float:
    wrong = [v for r, v in zip(rows, scores, strict=True) if r.fields["hallucinated"]]
    return float(np.mean([v is not None and v < 0.5 for v in wrong]))


def table(rows: Sequence[ScoredRow], offline_weight: float = OFFLINE_WEIGHT) -> list[dict[str, object]]:
    _, offline = default_fuser(rows)
    offline_scores = [offline(r.signals) for r in rows]
    pools = fusers(rows, offline_weight)
    out: list[dict[str, object]] = []
    for accuracy in ACCURACIES:
        for how, c in CONFIDENCE.items():
            values = judge_values(rows, accuracy, c)
            entry: dict[str, object] = {"judge": f"right on {accuracy:.0%}, {how} ({c})"}
            entry["judge alone"] = (_auroc(rows, values), _flagged(rows, values))
            entry["offline alone"] = (_auroc(rows, offline_scores), _flagged(rows, offline_scores))
            for name, fuser in pools.items():
                fused = [
                    fuser.predict({**r.signals, "lynx": judge(v)}).score
                    for r, v in zip(rows, values, strict=True)
                ]
                entry[name] = (_auroc(rows, fused), _flagged(rows, fused))
            out.append(entry)
    return out


def sweep(rows: Sequence[ScoredRow], weights: Sequence[float]) -> str:
    """One line per offline weight: the default pool's AUROC in each judge setting, and the settings where
    it ranks above both the judge alone and the offline model alone."""
    lines: list[str] = []
    for w in weights:
        result = table(rows, w)
        if not lines:
            lines.append(
                "| offline weight | " + " | ".join(str(e["judge"]) for e in result) + " | above both |"
            )
            lines.append("|---|" + "---|" * (len(result) + 1))
            for alone in ("judge alone", "offline alone"):
                values = [f"{e[alone][0]:.3f}" for e in result]  # type: ignore[index]
                lines.append(f"| ({alone}) | " + " | ".join(values) + " | |")
        cells = [f"{e['default pool'][0]:.3f}" for e in result]  # type: ignore[index]
        above = sum(
            e["default pool"][0] > max(e["judge alone"][0], e["offline alone"][0])  # type: ignore[index]
            for e in result
        )
        lines.append(f"| {w:g} | " + " | ".join(cells) + f" | {above} of {len(result)} |")
    return "\n".join(lines)


def wrongly_passed(rows: Sequence[ScoredRow]) -> Mapping[str, float]:
    """Changed-number rows whose claims signal found the contradiction, with a judge at P(pass) = 0.9:
    the share each pool puts under 0.5."""
    found = [
        r
        for r in rows
        if r.fields["kind"] == "number"
        and isinstance(raw := r.signals["claims"].raw, dict)
        and (raw.get("contradicted_facts") or 0) > 0
    ]
    return {
        name: float(
            np.mean([(fuser.predict({**r.signals, "lynx": judge(0.9)}).score or 1.0) < 0.5 for r in found])
        )
        for name, fuser in fusers(rows).items()
    } | {"rows": float(len(found))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scored", type=Path, default=DEFAULT_SCORED)
    parser.add_argument(
        "--offline-weights",
        type=float,
        nargs="+",
        default=None,
        help="sweep the offline model's weight in the pool (choose it on the fit pairs, "
        "fit_scored.jsonl, not on the benchmark): per weight, the default pool's AUROC per judge and "
        "in how many settings it ranks above both the judge alone and the offline model alone",
    )
    args = parser.parse_args(argv)
    if not args.scored.exists():
        print(f"SKIP: {args.scored} not found; build and score the corruption benchmark first")
        return 0
    # by id: the judge's right and wrong rows are drawn in an order no scoring run changes
    rows = sorted((r for r in read_scored(args.scored) if "kind" in r.fields), key=lambda r: str(r.id))
    if args.offline_weights:
        print(sweep(rows, args.offline_weights))
        return 0
    result = table(rows)
    names = [k for k in result[0] if k != "judge"]
    print("AUROC (corrupted vs faithful) / corrupted rows under 0.5")
    print("| judge | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for entry in result:
        cells = [f"{a:.3f} / {f:.0%}" for a, f in (entry[n] for n in names)]  # type: ignore[misc]
        print(f"| {entry['judge']} | " + " | ".join(cells) + " |")
    passed = wrongly_passed(rows)
    n = int(passed.pop("rows"))
    print(f"\nA changed number the claims signal found ({n} rows), Lynx wrongly passing it at P(pass) = 0.9:")
    for name, share in passed.items():
        print(f"- {name}: {share:.0%} under 0.5")
    return 0


if __name__ == "__main__":
    sys.exit(main())
