"""Synthetic scored rows with known answers, shaped like ``trustscore score`` output.

For tests, notebooks and demos of ``trustscore eval`` / ``calibrate`` without an LLM:

    rows = make_scored_rows(n_sources=80, seed=1)
    write_scored_jsonl("scored.jsonl", rows)

Each row has a hidden P(trustworthy) ``q`` drawn from Beta(2, 2) (shifted by task), and a label
``hallucinated = 1 - Bernoulli(q)``. The signals are:

- ``oracle``:    ``q`` itself: perfectly calibrated by construction.
- ``distorted``: ``q ** 3``, a monotone distortion (same ranking as ``oracle``,
  miscalibrated; isotonic or beta calibration should undo it).
- ``noisy``:     ``q`` with logit noise (sd 1.5): informative but weaker; missing (``error=
  "timeout"``) in ``missing_rate`` of the rows.
- ``lexical``:   value ``1 / (1 + k)`` with ``raw = {"numbers_unsupported": k}``, ``k`` Poisson with
  a higher rate for hallucinated rows.

Rows sharing a ``source_id`` (``per_source`` of them) share their task, as RAGTruth's do.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from trustscore.stats._logistic import sigmoid

__all__ = ["make_scored_rows", "write_scored_jsonl"]


def make_scored_rows(
    n_sources: int = 60,
    *,
    per_source: int = 6,
    seed: int = 0,
    missing_rate: float = 0.15,
    tasks: Sequence[str] = ("QA", "Summary", "Data2txt"),
    version: str = "v1",
) -> list[dict[str, Any]]:
    """``n_sources * per_source`` JSON-ready rows (see the module docstring for what they hold)."""
    if n_sources < 1 or per_source < 1:
        raise ValueError("n_sources and per_source must be at least 1")
    if not 0 <= missing_rate < 1:
        raise ValueError(f"missing_rate must be in [0, 1), got {missing_rate}")
    rng = np.random.default_rng(seed)
    rows: list[dict[str, Any]] = []
    task_shift = {t: 0.6 * (i - (len(tasks) - 1) / 2) for i, t in enumerate(tasks)}
    for s in range(n_sources):
        task = tasks[s % len(tasks)]
        for r in range(per_source):
            base = float(rng.beta(2.0, 2.0))
            q = float(sigmoid(np.log(base / (1 - base)) + task_shift[task]))
            trustworthy = bool(rng.random() < q)
            noisy = float(sigmoid(np.log(q / (1 - q)) + rng.normal(0.0, 1.5)))
            k = int(rng.poisson(0.5 if trustworthy else 2.0))
            signals: dict[str, dict[str, Any]] = {
                "oracle": {"value": q, "raw": q, "version": version},
                "distorted": {"value": float(q**3), "raw": float(q**3), "version": version},
                "lexical": {"value": 1.0 / (1 + k), "raw": {"numbers_unsupported": k}, "version": version},
            }
            if rng.random() < missing_rate:
                signals["noisy"] = {"value": None, "error": "timeout", "version": version}
            else:
                signals["noisy"] = {"value": noisy, "raw": noisy, "version": version}
            present = [v["value"] for v in signals.values() if v["value"] is not None]
            rows.append(
                {
                    "id": f"syn-{s}-{r}",
                    "score": float(np.mean(present)),
                    "calibrated": False,
                    "signals": signals,
                    "hallucinated": not trustworthy,
                    "task": task,
                    "source_id": f"src-{s}",
                    "model": f"gen-{r % 3}",
                }
            )
    return rows


def write_scored_jsonl(path: str | Path, rows: Iterable[dict[str, Any]]) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row) + "\n")
    return path
