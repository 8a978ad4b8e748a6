"""How closely the score budget binds the local signals on oversized input (5 MB texts, 3,000 passages).

    .venv/bin/python -m benchmarks.speed.bench_budget [--repeats 3] [--budget 1.0]

For each input (a 5 MB response, a 5 MB context, a 900,000-word response, 3,000 passages) the default
offline Scorer (lexical + embedding) scores it under the budget; the table gives wall seconds
(min / median / max over repeats), whether the result is complete and which signals were cut. Also
times split_sentences on 100 KB and 2 MB of text (linear: the old splitter took 13.5 s on 100 KB).
"""

from __future__ import annotations

import argparse
import statistics
import time

import anyio

from trustscore import Config, Scorer
from trustscore._types import Sample
from trustscore.grounding._text import split_sentences

SENTENCE = "The Zarvok treaty of 1847 moved 12,500 settlers across the Quellen river to Brindale. "
FIVE_MB = SENTENCE * (5_000_000 // len(SENTENCE))


def inputs() -> dict[str, Sample]:
    q = "Where did the settlers go?"
    return {
        "5 MB response": Sample(question=q, context=[SENTENCE], response=FIVE_MB),
        "5 MB context": Sample(question=q, context=[FIVE_MB], response=SENTENCE),
        "900k-word response": Sample(
            question=q, context=[SENTENCE], response=SENTENCE * (900_000 // len(SENTENCE.split()))
        ),
        "3,000 passages": Sample(
            question=q, context=[f"Passage {i}: {SENTENCE * 3}" for i in range(3000)], response=SENTENCE * 5
        ),
    }


def _stats(xs: list[float]) -> str:
    return f"{min(xs):6.2f} / {statistics.median(xs):6.2f} / {max(xs):6.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budget", type=float, default=1.0)
    args = parser.parse_args()

    scorer = Scorer(Config())
    anyio.run(lambda: scorer.score(question="q", context=[SENTENCE], response=SENTENCE))  # load the models
    print(f"budget {args.budget:g}s; wall seconds min / median / max over {args.repeats} runs")
    for name, sample in inputs().items():
        walls, cut = [], set()
        complete = True
        for _ in range(args.repeats):
            began = time.perf_counter()
            result = anyio.run(lambda s=sample: scorer.score_sample(s, budget_s=args.budget))
            walls.append(time.perf_counter() - began)
            complete &= result.complete
            cut |= set(result.incomplete_signals)
        print(f"  {name:20s} {_stats(walls)}  complete={complete}  cut={sorted(cut)}")
    for size in (100_000, 2_000_000):
        text = SENTENCE * (size // len(SENTENCE))
        times = []
        for _ in range(args.repeats):
            began = time.perf_counter()
            split_sentences(text)
            times.append(time.perf_counter() - began)
        print(f"  split_sentences {size // 1000:5d} KB {_stats(times)}")


if __name__ == "__main__":
    main()
