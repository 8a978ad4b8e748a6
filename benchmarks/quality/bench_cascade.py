"""The cascade's cost-quality curve against the full ensemble, held out, on RAGTruth's real local signals
with simulated judges of stated quality.

    python -m benchmarks.quality.bench_cascade [--data ../shared/data] [--json out/bench_cascade.json]

**Rows.** RAGTruth ``test.jsonl`` (2,529 responses) scored by the ``trustscore score`` command itself
with the offline default (lexical + embedding), into ``--local`` (default
``.cache-data/ragtruth_local.jsonl``; scored on the first run, reused after).

**Simulated judges.** Each row gets five judge signals whose quality is set, not measured from a model:
a judge's latent verdict is ``d * (t - 1/2) + e`` (``t`` = 1 for a trustworthy row), with
``d = sqrt(2) * Phi^-1(AUROC)``, so that with unit-variance noise its AUROC alone is the one set in
``JUDGES``. The noise is shared in part: ``e = rho * r + sqrt(1 - rho^2) * (sqrt(kappa) * w +
sqrt(1 - kappa) * u)`` where ``r`` is the row's local fused score (logit, standardised within its
label), so a judge errs more where the local signals err (``rho``); ``w`` is one draw per row shared
by every judge, so judges agree on hard rows (``kappa``); ``u`` is the judge's own. A judge's value is
the sigmoid of its verdict; the one-token Likert verdict keeps only 5 levels. Each judge's cost is a
fixed number of requests and completion tokens per row, with ``prompt tokens = 1.3 x the words of
question, context and response + 150`` per request (about 12 requests a row for the five).

**Stages.** local (lexical, embedding) -> verdict (likert) -> ensemble (prometheus, lynx, chainpoll,
tlm); and, for comparison, local -> all five judges at once.

**Held out.** Five folds by ``source_id``: ``fit_cascade`` chooses the stage calibrators and the bands
on four folds (itself choosing the bands on their out-of-fold scores), and the cascade runs on the
fifth; the held-out scores of the five folds are pooled and compared with the full ensemble's
(fitted on the same four folds) on the same rows. Reported per allowed AUROC loss: judge requests and
tokens per row, the share of judge requests saved, the pooled AUROC loss and the macro AUROC loss over
tasks (RAGTruth's hallucination rate differs by task: pooled AUROC rewards knowing the task), and
where rows stopped; with ``--repeats N``, means over N seeded splits and the worst split's loss.

A real model's judges: read with ``--real SCORED.jsonl`` (a file scored with every signal of the stages,
labeled ``hallucinated``, grouped by ``source_id``); the same curve is drawn on it.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
from numpy.typing import NDArray

from trustscore.fitting._cascade import StagePlan, cascade_scores, fit_cascade
from trustscore.fusion._cascade_model import CascadeQuality
from trustscore.rows._scored import ScoredRow, group_column, label_column, read_scored, rows_from_dicts
from trustscore.stats._cv import grouped_kfold
from trustscore.stats._metrics import auroc

REPO = Path(__file__).resolve().parents[2]
DEFAULT_DATA = REPO.parent / "shared" / "data"
DEFAULT_LOCAL = REPO / ".cache-data" / "ragtruth_local.jsonl"
LOSSES = (0.0, 0.005, 0.01, 0.02)
FOLDS = 5
TARGET_LOSS = 0.01
RHO = 0.3
"""Correlation of each judge's error with the local signals' error."""
KAPPA = 0.4
"""Share of a judge's own noise that every judge shares on a row."""


@dataclass(frozen=True)
class SimulatedJudge:
    name: str
    auroc: float
    requests: int
    completion_tokens: int
    levels: int | None = None
    """Discrete verdict levels (5 for a one-token 1-5 Likert verdict); None: a continuous value."""


JUDGES = (
    SimulatedJudge("likert", 0.74, requests=1, completion_tokens=1, levels=5),
    SimulatedJudge("prometheus", 0.76, requests=1, completion_tokens=120),
    SimulatedJudge("lynx", 0.80, requests=1, completion_tokens=80),
    SimulatedJudge("chainpoll", 0.80, requests=1, completion_tokens=300),
    SimulatedJudge("tlm", 0.78, requests=8, completion_tokens=200),
)
LOCAL = ("lexical", "embedding")
CASCADES = {
    "local -> likert -> ensemble": (
        StagePlan("local", LOCAL),
        StagePlan("verdict", ("likert",)),
        StagePlan("ensemble", ("prometheus", "lynx", "chainpoll", "tlm")),
    ),
    "local -> one-request judges -> tlm": (
        StagePlan("local", LOCAL),
        StagePlan("judges", ("likert", "prometheus", "lynx", "chainpoll")),
        StagePlan("tlm", ("tlm",)),
    ),
    "local -> all judges": (StagePlan("local", LOCAL), StagePlan("judges", tuple(j.name for j in JUDGES))),
}


def local_rows(data: Path, path: Path) -> list[ScoredRow]:
    """RAGTruth test scored with the offline default, scoring it first when ``path`` is missing."""
    if not path.exists():
        source = data / "ragtruth" / "test.jsonl"
        if not source.exists():
            sys.exit(f"RAGTruth is not at {source}: pass --data (the shared data folder)")
        path.parent.mkdir(parents=True, exist_ok=True)
        command = [
            sys.executable,
            "-m",
            "trustscore.cli",
            "score",
            str(source),
            "-o",
            str(path),
            "--no-progress",
        ]
        subprocess.run(command, check=True)
    return read_scored(path)


def simulate(rows: Sequence[ScoredRow], seed: int) -> list[ScoredRow]:
    """``rows`` with the simulated judges of ``JUDGES`` added (see the module docstring)."""
    rng = np.random.default_rng(seed)
    t = 1.0 - label_column(rows, "hallucinated")
    local = np.array([row.score for row in rows], dtype=np.float64)
    z = np.log(np.clip(local, 1e-4, 1 - 1e-4) / np.clip(1 - local, 1e-4, 1))
    r = np.empty_like(z)
    for label in (0.0, 1.0):
        mine = t == label
        r[mine] = (z[mine] - z[mine].mean()) / z[mine].std()
    shared = rng.normal(size=t.size)
    out: list[dict[str, Any]] = []
    judged: dict[str, NDArray[np.float64]] = {}
    for judge in JUDGES:
        d = math.sqrt(2) * NormalDist().inv_cdf(judge.auroc)
        own = rng.normal(size=t.size)
        noise = RHO * r + math.sqrt(1 - RHO**2) * (math.sqrt(KAPPA) * shared + math.sqrt(1 - KAPPA) * own)
        value = 1 / (1 + np.exp(-(d * (t - 0.5) + noise)))
        if judge.levels is not None:
            value = np.round(value * (judge.levels - 1)) / (judge.levels - 1)
        judged[judge.name] = value
    for i, row in enumerate(rows):
        words = row.fields.get("prompt_words", 0)
        signals = {name: s.model_dump(mode="json") for name, s in row.signals.items()}
        for judge in JUDGES:
            signals[judge.name] = {
                "value": float(judged[judge.name][i]),
                "version": "simulated",
                "usage": {
                    "requests": judge.requests,
                    "prompt_tokens": judge.requests * int(1.3 * words + 150),
                    "completion_tokens": judge.completion_tokens,
                },
            }
        out.append(
            {"id": row.id, "score": row.score, "calibrated": row.calibrated, "signals": signals, **row.fields}
        )
    return rows_from_dicts(out)


def with_prompt_words(rows: Sequence[ScoredRow], data: Path) -> list[ScoredRow]:
    """Each row with the words of its question, context and response (for the simulated prompt tokens)."""
    words: dict[str, int] = {}
    with (data / "ragtruth" / "test.jsonl").open(encoding="utf-8") as f:
        for line in f:
            item = json.loads(line)
            text = " ".join([item["question"], *item["context"], item["response"]])
            words[item["id"]] = len(text.split())
    return [
        r.model_copy(update={"fields": {**r.fields, "prompt_words": words.get(r.id or "", 0)}}) for r in rows
    ]


def macro_auroc(rows: Sequence[ScoredRow], p: NDArray[np.float64]) -> float:
    t = 1.0 - label_column(rows, "hallucinated")
    tasks = np.array(group_column(rows, "task"))
    return float(np.mean([auroc(t[tasks == task], p[tasks == task]) for task in sorted(set(tasks))]))


def curve(rows: Sequence[ScoredRow], stages: Sequence[StagePlan], repeats: int) -> list[dict[str, Any]]:
    """Per allowed loss: the held-out measurement of each repeat (see the module docstring)."""
    groups = group_column(rows, "source_id")
    t = 1.0 - label_column(rows, "hallucinated")
    plans = [StagePlan(s.name, s.signals, s.always) for s in stages]
    points = []
    for loss in LOSSES:
        measured = []
        for repeat in range(repeats):
            final = np.full(len(rows), np.nan)
            full = np.full(len(rows), np.nan)
            stop = np.zeros(len(rows), dtype=np.int64)
            for fit_on, measure_on in grouped_kfold(groups, FOLDS, seed=100 + repeat):
                model = fit_cascade(
                    [rows[i] for i in fit_on],
                    plans,
                    label="hallucinated",
                    quality=CascadeQuality(metric="auroc", max_loss=loss),
                )
                run = cascade_scores(model, [rows[i] for i in measure_on])
                assert len(run.rows) == len(measure_on), "every row of the file has a full-ensemble score"
                final[measure_on], full[measure_on], stop[measure_on] = run.final, run.full, run.stop
            measured.append(measure(rows, stages, t, final, full, stop))
        points.append({"max_loss": loss, "repeats": measured, **summarise(measured)})
    return points


def measure(
    rows: Sequence[ScoredRow],
    stages: Sequence[StagePlan],
    t: NDArray[np.float64],
    final: NDArray[np.float64],
    full: NDArray[np.float64],
    stop: NDArray[np.int64],
) -> dict[str, Any]:
    """Cost and quality of pooled held-out scores against the full ensemble's on the same rows."""
    requests = np.zeros(len(rows))
    tokens = np.zeros(len(rows))
    full_requests = np.zeros(len(rows))
    full_tokens = np.zeros(len(rows))
    for i, row in enumerate(rows):
        for k, stage in enumerate(stages):
            for name in stage.signals:
                u = row.signals[name].usage
                full_requests[i] += u.requests
                full_tokens[i] += u.prompt_tokens + u.completion_tokens
                if k <= stop[i]:
                    requests[i] += u.requests
                    tokens[i] += u.prompt_tokens + u.completion_tokens
    return {
        "requests": float(requests.mean()),
        "full_requests": float(full_requests.mean()),
        "tokens": float(tokens.mean()),
        "full_tokens": float(full_tokens.mean()),
        "auroc": auroc(t, final),
        "full_auroc": auroc(t, full),
        "macro_loss": macro_auroc(rows, full) - macro_auroc(rows, final),
        "stopped": [float(np.mean(stop == k)) for k in range(len(stages))],
    }


def summarise(measured: list[dict[str, Any]]) -> dict[str, Any]:
    def mean(key: str) -> float:
        return float(np.mean([m[key] for m in measured]))

    losses = [m["full_auroc"] - m["auroc"] for m in measured]
    return {
        "requests": mean("requests"),
        "full_requests": mean("full_requests"),
        "saved": 1 - mean("requests") / mean("full_requests"),
        "tokens_saved": 1 - mean("tokens") / mean("full_tokens"),
        "auroc": mean("auroc"),
        "full_auroc": mean("full_auroc"),
        "loss": float(np.mean(losses)),
        "worst_loss": float(np.max(losses)),
        "macro_loss": mean("macro_loss"),
        "stopped": np.mean([m["stopped"] for m in measured], axis=0).tolist(),
    }


def judge_quality(rows: Sequence[ScoredRow]) -> dict[str, float]:
    """Each signal's AUROC alone on these rows (the simulated judges' are set; here they are measured)."""
    t = 1.0 - label_column(rows, "hallucinated")
    out = {}
    for name in [*LOCAL, *(j.name for j in JUDGES)]:
        values = np.array([r.signals[name].value for r in rows if r.signals[name].value is not None])
        kept = np.array([r.signals[name].value is not None for r in rows])
        out[name] = auroc(t[kept], values)
    return out


def print_curve(title: str, points: list[dict[str, Any]], stage_names: Sequence[str]) -> None:
    print(f"\n{title}")
    print(
        "| allowed AUROC loss | judge requests / row (full) | requests saved | tokens saved "
        "| held-out AUROC (full) | AUROC loss (worst split) | macro-over-tasks loss | stopped at "
        + ", ".join(stage_names)
        + " |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for p in points:
        stopped = " / ".join(f"{s:.0%}" for s in p["stopped"])
        print(
            f"| {p['max_loss']:g} | {p['requests']:.2f} ({p['full_requests']:.2f}) | {p['saved']:.1%} "
            f"| {p['tokens_saved']:.1%} | {p['auroc']:.4f} ({p['full_auroc']:.4f}) "
            f"| {p['loss']:+.4f} ({p['worst_loss']:+.4f}) | {p['macro_loss']:+.4f} | {stopped} |"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    parser.add_argument(
        "--local", type=Path, default=DEFAULT_LOCAL, help="RAGTruth scored with local signals"
    )
    parser.add_argument("--real", type=Path, default=None, help="a file scored with a real model's judges")
    parser.add_argument("--repeats", type=int, default=1, help="5-fold splits by source_id, each seeded anew")
    parser.add_argument("--seed", type=int, default=0, help="seed of the simulated judges")
    parser.add_argument("--json", type=Path, default=None, help="write every measurement here")
    args = parser.parse_args(argv)

    rows = simulate(with_prompt_words(local_rows(args.data, args.local), args.data), args.seed)
    quality = judge_quality(rows)
    print(
        f"RAGTruth test, {len(rows)} rows; each signal's AUROC alone "
        f"(judges simulated, rho={RHO}, kappa={KAPPA}):"
    )
    print(", ".join(f"{name} {value:.3f}" for name, value in quality.items()))
    report: dict[str, Any] = {
        "rows": len(rows),
        "signal_auroc": quality,
        "rho": RHO,
        "kappa": KAPPA,
        "curves": {},
    }
    for title, stages in CASCADES.items():
        points = curve(rows, stages, args.repeats)
        report["curves"][title] = points
        print_curve(f"simulated judges, {title}", points, [s.name for s in stages])
    if args.real is not None:
        real = read_scored(args.real)
        stages = CASCADES["local -> likert -> ensemble"]
        present = {n for r in real for n in r.signals}
        wanted = [n for s in stages for n in s.signals]
        if not set(wanted) <= present:
            stages = (StagePlan("local", LOCAL), StagePlan("judges", tuple(sorted(present - set(LOCAL)))))
        points = curve(real, stages, args.repeats)
        report["curves"]["real model"] = points
        print_curve(f"real model judges ({args.real})", points, [s.name for s in stages])
    print(f"\nat the target (allowed AUROC loss {TARGET_LOSS}):")
    for title, points in report["curves"].items():
        target = next(p for p in points if p["max_loss"] == TARGET_LOSS)
        print(
            f"  {title}: {target['saved']:.1%} of judge requests saved, held-out AUROC loss "
            f"{target['loss']:+.4f} (worst split {target['worst_loss']:+.4f})"
        )
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
