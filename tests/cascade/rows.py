"""Scored rows for fitting cascades: a weak free local signal, a cheap verdict and two costly judges,
in the versions of the fakes of ``scorer_fakes`` (FakeLocal "local@1", FakeJudge "fake@1")."""

from __future__ import annotations

from typing import Any

import numpy as np

from trustscore.rows._scored import ScoredRow, rows_from_dicts

STAGES = (("local", ["loc"]), ("verdict", ["v"]), ("ensemble", ["j1", "j2"]))


def _signal(value: float, requests: int, version: str) -> dict[str, Any]:
    usage = {"requests": requests, "prompt_tokens": 100 * requests, "completion_tokens": 5 * requests}
    return {"value": float(value), "version": version, "usage": usage}


def cascade_rows(n_sources: int = 80, *, seed: int = 0, per_source: int = 4) -> list[ScoredRow]:
    """Each judge's logit is the truth shifted by its strength plus noise; the local signal is weak."""
    rng = np.random.default_rng(seed)
    out = []
    for s in range(n_sources):
        for r in range(per_source):
            trustworthy = rng.random() < 0.6
            sign = 1.0 if trustworthy else -1.0

            def value(strength: float, sign: float = sign) -> float:
                return float(1.0 / (1.0 + np.exp(-(sign * strength + rng.normal(0.0, 1.0)))))

            out.append(
                {
                    "id": f"r{s}-{r}",
                    "score": None,
                    "calibrated": False,
                    "signals": {
                        "loc": _signal(value(0.6), 0, "local@1"),
                        "v": _signal(value(0.9), 1, "fake@1"),
                        "j1": _signal(value(1.1), 3, "fake@1"),
                        "j2": _signal(value(1.1), 3, "fake@1"),
                    },
                    "hallucinated": not trustworthy,
                    "source_id": f"s{s}",
                }
            )
    return rows_from_dicts(out)
