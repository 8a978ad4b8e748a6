"""The contrast set: what the offline default tells apart, one phenomenon at a time.

    .venv/bin/python -m benchmarks.quality.contrast           # scores examples/contrast_set.jsonl: the tables
    python -m benchmarks.quality.contrast --build   # rewrites it from benchmarks/quality/contrast_items.py

225 labeled rows: 25 invented subjects (``benchmarks.quality.contrast_items``) x 9 answers to one question
over one context: the context's own words (verbatim), a paraphrase, a changed number, a changed
date, a swapped name, a negation (a stated condition negated or turned to its opposite), an
unsupported addition, a refusal and a correct answer in another language (German, French or Spanish).
``hallucinated`` is true for the five changed kinds.

Scores every row with the offline default twice, in one run: without the claims signal
(``[signals.claims] enabled = false``: lexical + embedding) and with it (the default when the
``claims`` extra is installed). Reports, per phenomenon and configuration, the mean score, the share
flagged at the README's rule (score < 0.5), and for the changed kinds the **pairwise check**: the
share of subjects whose changed answer scores below the verbatim answer to the same question.
Refusals and other-language answers count as flagged only when scored below 0.5 (no score is not a
flag: the result says why each signal could not check it).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.quality.contrast_items import ITEMS, Item

REPO = Path(__file__).resolve().parents[2]
SET = REPO / "examples" / "contrast_set.jsonl"

PHENOMENA = (
    "verbatim",
    "paraphrase",
    "changed number",
    "changed date",
    "swapped name",
    "negation",
    "unsupported addition",
    "refusal",
    "other language",
)
CHANGED = ("changed number", "changed date", "swapped name", "negation")
"""The kinds the pairwise check reads (one atom of the verbatim answer changed)."""
HALLUCINATED = frozenset({*CHANGED, "unsupported addition"})

_REFUSALS = (
    "The context does not say how much {it} cost.",
    "I don't know: the passage does not mention who paid for it.",
    "The text does not specify what {it} is made of.",
    "There is no information about its opening hours in the context.",
    "This is not mentioned in the passage.",
    "I'm not sure.",
    "I am not sure what the context says about who paid for {it}.",
    "I have no idea.",
    "Sorry, I don't have enough information to answer that.",
    "I do not have access to that information.",
    "The provided context doesn't have this information.",
    "The answer is not in the provided documents.",
    "That information isn't in the passage.",
    "I couldn't find that in the context.",
    "There isn't enough information to answer.",
    "Not enough information.",
    "Insufficient information to answer the question.",
    "No relevant information was found.",
    "None of the passages mention who paid for {it}.",
    "The documents make no mention of it.",
    "It is unclear from the context.",
    "It's not possible to tell from the text.",
    "I cannot determine that from the passages provided.",
    "The question cannot be answered from the given context.",
    "I'm sorry, but I can't answer that based on the given text.",
)
"""One wording of declining per subject: naming what the context does not say, the speaker not knowing
or not finding it, too little information."""
_OTHER_LANGUAGES = (
    "Laut dem Text wurde es im Jahr {year} eröffnet, und {person} war dafür verantwortlich.",
    "D'après le texte, il a ouvert ses portes en {year} et {person} en est à l'origine.",
    "Según el texto, se inauguró en el año {year} y {person} estuvo a cargo del proyecto.",
)


def _lower_article(name: str) -> str:
    return "the" + name[3:] if name.startswith("The ") else name


def context(item: Item) -> str:
    return (
        f"{item.name} {item.opened} on {item.date}. It was {item.role} by {item.title} {item.person}. "
        f"{item.figure.format(n=item.n)} It {item.condition}. {item.filler}"
    )


def _verbatim(
    item: Item,
    *,
    date: str | None = None,
    person: str | None = None,
    n: str | None = None,
    condition: str | None = None,
) -> str:
    return (
        f"{item.name} {item.opened} on {date or item.date} and was {item.role} by {item.title} "
        f"{person or item.person}. {item.figure.format(n=n or item.n)} It {condition or item.condition}."
    )


def answers(item: Item, index: int) -> dict[str, str]:
    it = _lower_article(item.name)
    return {
        "verbatim": _verbatim(item),
        "paraphrase": f"{item.title[0].upper()}{item.title[1:]} {item.person} {item.role} {it}, which "
        f"{item.opened} in {item.year}.",
        "changed number": _verbatim(item, n=item.wrong_n),
        "changed date": _verbatim(item, date=item.wrong_date),
        "swapped name": _verbatim(item, person=item.swapped),
        "negation": _verbatim(item, condition=item.flipped),
        "unsupported addition": f"{_verbatim(item)} {item.addition}",
        "refusal": _REFUSALS[index % len(_REFUSALS)].format(it=it),
        "other language": _OTHER_LANGUAGES[index % len(_OTHER_LANGUAGES)].format(
            year=item.year, person=item.person
        ),
    }


def build() -> list[dict[str, Any]]:
    """Every row of the set, in a stable order."""
    rows: list[dict[str, Any]] = []
    for i, item in enumerate(ITEMS):
        question = f"What does the context say about {_lower_article(item.name)}?"
        for kind, response in answers(item, i).items():
            rows.append(
                {
                    "id": f"c{i:02d}-{kind.replace(' ', '_')}",
                    "subject": i,
                    "phenomenon": kind,
                    "question": question,
                    "context": [context(item)],
                    "response": response,
                    "hallucinated": kind in HALLUCINATED,
                }
            )
    return rows


def read_set(path: Path = SET) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def score(rows: list[dict[str, Any]], *, claims: bool) -> list[dict[str, Any]]:
    """Each row's score and signals under the offline default, with or without the claims signal."""
    import trustscore as ts

    config = ts.Config() if claims else ts.Config.from_dict({"signals": {"claims": {"enabled": False}}})
    samples = [{k: r[k] for k in ("id", "question", "context", "response")} for r in rows]
    results = ts.Scorer(config).score_many_sync(samples, concurrency=4, budget_s=600)
    return [
        {
            "score": res.score,
            "signals": {n: s.value for n, s in res.signals.items()},
            "outcomes": {
                n: s.raw["outcome"]
                for n, s in res.signals.items()
                if isinstance(s.raw, dict) and "outcome" in s.raw
            },
            "fusion": res.fusion,
        }
        for res in results
    ]


def summarise(rows: list[dict[str, Any]], scored: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    by_subject: dict[int, dict[str, float | None]] = defaultdict(dict)
    per: dict[str, list[float | None]] = defaultdict(list)
    for row, s in zip(rows, scored, strict=True):
        by_subject[row["subject"]][row["phenomenon"]] = s["score"]
        per[row["phenomenon"]].append(s["score"])
    out: dict[str, dict[str, Any]] = {}
    for kind in PHENOMENA:
        values = per[kind]
        present = [v for v in values if v is not None]
        entry: dict[str, Any] = {
            "n": len(values),
            "mean": sum(present) / len(present) if present else None,
            "flagged": sum(v < 0.5 for v in present) / len(values),
            "unscored": sum(v is None for v in values) / len(values),
        }
        if kind in CHANGED or kind == "unsupported addition":
            pairs = [
                (s[kind], s["verbatim"])
                for s in by_subject.values()
                if s.get(kind) is not None and s.get("verbatim") is not None
            ]
            entry["below_verbatim"] = sum(a < b for a, b in pairs) / len(pairs) if pairs else None
        out[kind] = entry
    return out


def _f(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{v:.0%}"


def report(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> str:
    lines = [
        "| phenomenon | rows | mean score: lexical + embedding | with claims | flagged (< 0.5): without "
        "| with | below verbatim of its question: without | with |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for kind in PHENOMENA:
        b, a = before[kind], after[kind]
        lines.append(
            f"| {kind} | {a['n']} | {_f(b['mean'])} | {_f(a['mean'])} | {_pct(b['flagged'])} | "
            f"{_pct(a['flagged'])} | {_pct(b.get('below_verbatim'))} | {_pct(a.get('below_verbatim'))} |"
        )
    return "\n".join(lines)


def examples_table(
    rows: list[dict[str, Any]], before: list[dict[str, Any]], after: list[dict[str, Any]], subject: int = 1
) -> str:
    """README's table: one subject's nine answers, scored without and with the claims signal."""
    lines = ["| answer | example | lexical + embedding | with claims |", "|---|---|---|---|"]
    for row, b, a in zip(rows, before, after, strict=True):
        if row["subject"] == subject:
            lines.append(f"| {row['phenomenon']} | {row['response']} | {_f(b['score'])} | {_f(a['score'])} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--build", action="store_true", help="rewrite the set from the templates and exit")
    parser.add_argument("--set", type=Path, default=SET)
    parser.add_argument("--json", type=Path, default=None, help="also write every row's scores here")
    args = parser.parse_args(argv)
    if args.build:
        rows = build()
        args.set.parent.mkdir(parents=True, exist_ok=True)
        args.set.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        print(f"wrote {len(rows)} rows to {args.set}")
        return 0
    rows = read_set(args.set)
    before, after = score(rows, claims=False), score(rows, claims=True)
    print(f"{len(rows)} rows; fusion without claims: {before[0]['fusion']}; with: {after[0]['fusion']}\n")
    print(report(summarise(rows, before), summarise(rows, after)))
    print("\nOne subject's answers:\n")
    print(examples_table(rows, before, after))
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                [
                    {**r, "without_claims": b, "with_claims": a}
                    for r, b, a in zip(rows, before, after, strict=True)
                ],
                ensure_ascii=False,
                indent=1,
            ),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
