"""What the offline default (no judge) can and cannot tell apart.

    .venv/bin/python examples/offline_limits.py

Six answers to one question over one context, from the contrast set (``examples/contrast_set.jsonl``,
the Millbrook footbridge): the context's own words, the same answer with its date or a name changed or
a condition negated, a refusal and a correct answer in French. It prints each answer's score (``–``:
no signal could check it). ``python -m benchmarks.quality.contrast`` scores
all 225 rows of the set, with and without the claims signal.
"""

from __future__ import annotations

import json
from pathlib import Path

import trustscore as ts

CONTRAST_SET = Path(__file__).resolve().parent / "contrast_set.jsonl"
SUBJECT = 1
SHOWN = ("verbatim", "changed date", "swapped name", "negation", "refusal", "other language")


def answers() -> list[dict[str, object]]:
    rows = [
        json.loads(line) for line in CONTRAST_SET.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    return [r for r in rows if r["subject"] == SUBJECT and r["phenomenon"] in SHOWN]


def scores() -> dict[str, ts.TrustScore]:
    scorer = ts.Scorer(ts.Config())
    return {
        str(r["phenomenon"]): scorer.score_sync(
            question=r["question"], context=r["context"], response=r["response"]
        )
        for r in answers()
    }


if __name__ == "__main__":
    for name, result in scores().items():
        print(f"{name:24} {'–' if result.score is None else f'{result.score:.3f}'}")
