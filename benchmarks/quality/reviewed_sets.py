"""Two reviewer-written sets scored by the offline default: summaries with one edit, and short answers.

    .venv/bin/python -m benchmarks.quality.reviewed_sets     # both sets' tables

Written for this project by a reviewer who read none of its code (``benchmarks/quality/data``):

- **summaries** (``reviewed_summaries.json``): 24 invented news articles of 120-260 words, each with
  three faithful summaries in the way a summarizer words them (abstractive, merged, one short) and six
  with one factual edit a fluent rewrite makes: a number, a date, a name the article never gives, two
  entities exchanged, a negation, an antonym, a cause, a quantifier, a role, or an added detail;
- **short answers** (``reviewed_short_qa.json``): 30 invented passages of 60-180 words, each with three
  questions, two faithful answers (one short, one reworded; a correct refusal where the passage does
  not answer) and three wrong ones of one error each: a number, a date, a name, two entities exchanged,
  a negation, an antonym, a unit, or an added detail.

These sets were used to find what the claims check reads wrong (they are development sets, not held
out). Per set: AUROC (positive = wrong) of the fused score and of each signal alone, faithful answers at
or above 0.5 and with a contradiction, each edit's share under 0.5 and contradicted, and the faithful
answers above every wrong answer to the same question.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio

import trustscore as ts
from trustscore.stats._metrics import auroc

__all__ = ["SETS", "Answer", "Scored", "load", "main", "report"]

DATA = Path(__file__).parent / "data"
SETS = {"summaries": DATA / "reviewed_summaries.json", "short answers": DATA / "reviewed_short_qa.json"}
SIGNALS = ("lexical", "embedding", "claims")


@dataclass(frozen=True)
class Answer:
    """One answer to a question over a context, with its edit (None for a faithful answer)."""

    group: str
    context: str
    question: str
    text: str
    faithful: bool
    edit: str | None


@dataclass(frozen=True)
class Scored:
    """What the report reads of one result: the fused score, each signal's value, and whether the claims
    signal contradicts something."""

    score: float
    values: dict[str, float | None]
    contradicted: bool

    @classmethod
    def of(cls, result: ts.Result) -> Scored:
        claims = result.signals.get("claims")
        raw = claims.raw if claims is not None else None
        return cls(
            result.score,
            {name: sig.value for name, sig in result.signals.items()},
            isinstance(raw, dict) and bool(raw.get("contradicted")),
        )


def load(path: Path) -> list[Answer]:
    """The set's answers, each with its question's group (its context's name and the question's index)."""
    cases = json.loads(path.read_text(encoding="utf-8"))
    return [
        Answer(f"{c['name']}/{i}", c["context"], item["question"], a["text"], a["faithful"], a["edit"])
        for c in cases
        for i, item in enumerate(c["items"])
        for a in item["answers"]
    ]


def report(answers: Sequence[Answer], results: Sequence[Scored]) -> str:
    """The set's table (see the module)."""
    wrong = [not a.faithful for a in answers]
    lines = [
        "| measure | value |",
        "|---|---|",
        f"| AUROC, fused | {_auroc(wrong, [r.score for r in results])} |",
    ]
    for name in SIGNALS:
        lines.append(f"| AUROC, {name} alone | {_auroc(wrong, [r.values.get(name) for r in results])} |")
    faithful = [r for a, r in zip(answers, results, strict=True) if a.faithful]
    lines.append(f"| faithful at or above 0.5 | {_share(r.score >= 0.5 for r in faithful)} |")
    lines.append(f"| faithful with a contradiction | {_share(r.contradicted for r in faithful)} |")
    by_edit: dict[str, list[Scored]] = defaultdict(list)
    for a, r in zip(answers, results, strict=True):
        if not a.faithful:
            by_edit[str(a.edit)].append(r)
    for edit, found in sorted(by_edit.items()):
        under, contradicted = _share(r.score < 0.5 for r in found), _share(r.contradicted for r in found)
        lines.append(f"| {edit}: under 0.5 / contradicted | {under} / {contradicted} |")
    groups: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    for a, r in zip(answers, results, strict=True):
        groups[a.group][0 if a.faithful else 1].append(r.score)
    above = [f > max(w) for f_all, w in groups.values() if w for f in f_all]
    lines.append(f"| faithful above every wrong answer to its question | {_share(above)} |")
    return "\n".join(lines)


def _auroc(wrong: Sequence[bool], trust: Sequence[float | None]) -> str:
    kept = [(w, t) for w, t in zip(wrong, trust, strict=True) if t is not None]
    if not any(w for w, _ in kept) or all(w for w, _ in kept):
        return "-"
    return f"{auroc([float(w) for w, _ in kept], [-t for _, t in kept]):.3f}"


def _share(flags: Iterable[bool]) -> str:
    seen = list(flags)
    return f"{sum(seen)} of {len(seen)} ({sum(seen) / len(seen):.0%})" if seen else "-"


async def _score(answers: Sequence[Answer]) -> list[Scored]:
    samples = [ts.Sample(question=a.question, context=[a.context], response=a.text) for a in answers]
    async with ts.Scorer() as scorer:
        return [Scored.of(r) for r in await scorer.score_many(samples)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.parse_args(argv)
    for name, path in SETS.items():
        answers = load(path)
        results = anyio.run(_score, answers)
        print(f"## {name}: {len(answers)} answers, {sum(not a.faithful for a in answers)} wrong\n")
        print(report(answers, results))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
