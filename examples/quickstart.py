"""trustscore in a few lines. Runs offline with the default config (fast local signals, no judge):

.venv/bin/python examples/quickstart.py
.venv/bin/python examples/quickstart.py --config examples/trustscore.vllm.toml   # with LLM judges
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import anyio

import trustscore as ts

HERE = Path(__file__).resolve().parent


def load_samples(path: Path) -> list[ts.Sample]:
    """The example file's rows as Samples; the label rides along in metadata."""
    samples = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        samples.append(
            ts.Sample(
                id=row["id"],
                question=row["question"],
                context=row["context"],
                response=row["response"],
                metadata={"hallucinated": row["hallucinated"]},
            )
        )
    return samples


async def main(config: Path | None) -> None:
    # 1. One answer, module-level default scorer.
    result = await ts.score(
        question="How long is the Eastfield footbridge?",
        context=["The Eastfield footbridge over the Marr river is 140 metres long."],
        response="It is 410 metres long.",
    )
    print(f"score={result.score:.3f} calibrated={result.calibrated} fusion={result.fusion}")
    for name, signal in result.signals.items():
        print(f"  {name:<12} value={signal.value} error={signal.error}")

    # 2. A configured Scorer over a file, a bounded number of samples at a time, order kept.
    samples = load_samples(HERE / "rag_samples.jsonl")
    async with ts.Scorer.from_config(config) as scorer:
        results = await scorer.score_many(samples, progress=True)
    print(f"\n{'id':<6}{'planted claim':<15}{'score':>7}  missing")
    for sample, r in zip(samples, results, strict=True):
        score = "-" if r.score is None else f"{r.score:.3f}"
        print(
            f"{sample.id:<6}{sample.metadata['hallucinated']!s:<15}{score:>7}  {', '.join(r.missing) or '-'}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--config", type=Path, default=None, help="trustscore.toml (default: local signals only)"
    )
    anyio.run(main, parser.parse_args().config)

    # 3. The same from synchronous code (also works inside Jupyter's running loop).
    r = ts.score_sync(
        question="Who founded the club?", context="Ada Okafor founded the club.", response="Ada Okafor."
    )
    print(f"\nscore_sync: {r.score:.3f}")
