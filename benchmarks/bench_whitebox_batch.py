"""Self-Familiarity's explanations batched vs one at a time, on SmolLM2-135M-Instruct on CPU.

    .venv/bin/python -m benchmarks.bench_familiarity_batch [--questions 8] [--repeats 3] [--tokens 100]

Needs the trained test model (``bash scripts/setup --realmodel``). Local Self-Familiarity (heuristic
concepts, up to 5 a question, 100-token greedy explanations) on RAGTruth-like questions, three arms in
one process on the same loaded model, interleaved:

- ``one at a time``: each explanation its own ``generate`` (the previous behaviour), questions in turn;
- ``batched per question``: the concepts of a question in one batch, questions in turn;
- ``batched in flight``: all questions at once, so concepts of different samples share batches.

Prints seconds per question for each arm, the speed-up over one at a time (min / median / max), how
many concept scores agree within 1e-3 (the same explanation), and the largest difference of a
familiarity value.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

import anyio

QUESTIONS = [
    "What did Marie Curie discover in Paris?",
    "How does the Krebs cycle produce ATP in mitochondria?",
    "Who founded the Hanseatic League in Lübeck?",
    "Why did the Byzantine Empire adopt the solidus coin?",
    "When was the Treaty of Westphalia signed in Osnabrück?",
    "What causes aurora borealis over Tromsø?",
    "How did Ada Lovelace describe the Analytical Engine?",
    "Which enzyme does penicillin inhibit in bacteria?",
    "What is the role of the Rosetta Stone in Egyptology?",
    "How do tardigrades survive cryptobiosis?",
    "Who painted the Arnolfini Portrait in Bruges?",
    "Where is the Atacama Large Millimeter Array built?",
]


def main() -> None:
    from trustscore.testing.real_model import default_real_model_dir, real_model_ready
    from trustscore.types import Usage
    from trustscore.whitebox.familiarity import FamiliaritySignal, LocalFamiliarityBackend
    from trustscore.whitebox.familiarity_config import FamiliarityConfig

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--questions", type=int, default=8)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--tokens", type=int, default=100)
    args = p.parse_args()
    if not real_model_ready():
        raise SystemExit("the trained model is not built: bash scripts/setup --realmodel")

    class OneAtATime(LocalFamiliarityBackend):
        async def explain(self, message: str, max_tokens: int) -> tuple[str, Usage]:
            return await self._in_worker(self._explain, message, max_tokens)  # type: ignore[no-any-return]

    familiarity = FamiliarityConfig(
        enabled=True,
        backend="local",
        concepts="heuristic",
        explanation_max_tokens=args.tokens,
        model_path=default_real_model_dir(),
    )
    questions = QUESTIONS[: args.questions]
    model = default_real_model_dir()
    signals = {
        "one at a time": FamiliaritySignal(familiarity, OneAtATime(model)),
        "batched per question": FamiliaritySignal.from_config(familiarity, None),
        "batched in flight": FamiliaritySignal.from_config(familiarity, None),
    }

    async def run(arm: str) -> tuple[float, list[Any]]:
        signal = signals[arm]
        started = time.perf_counter()
        if arm == "batched in flight":
            results: list[Any] = [None] * len(questions)

            async def one(i: int) -> None:
                results[i] = await signal.familiarity(questions[i])

            async with anyio.create_task_group() as tg:
                for i in range(len(questions)):
                    tg.start_soon(one, i)
        else:
            results = [await signal.familiarity(q) for q in questions]
        return (time.perf_counter() - started) / len(questions), results

    async def all_arms() -> tuple[dict[str, list[float]], dict[str, list[Any]]]:
        await signals["one at a time"].familiarity(questions[0])  # load the model once, outside the clock
        seconds: dict[str, list[float]] = {arm: [] for arm in signals}
        last: dict[str, list[Any]] = {}
        for _ in range(args.repeats):
            for arm in signals:
                s, last[arm] = await run(arm)
                seconds[arm].append(s)
        return seconds, last

    seconds, last = anyio.run(all_arms)
    print(
        f"{len(questions)} questions x {args.repeats} repeats, {args.tokens}-token explanations, "
        f"load average {os.getloadavg()[0]:.1f}, cpus {os.cpu_count()}"
    )
    base = seconds["one at a time"]
    for arm, values in seconds.items():
        speedup = [b / v for b, v in zip(base, values, strict=True)]
        print(
            f"{arm:<22} s/question {min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"
            f"   speed-up {min(speedup):.2f} / {statistics.median(speedup):.2f} / {max(speedup):.2f}"
        )

    def concept_scores(results: list[Any]) -> list[float]:
        return [c["score"] for r in results for c in (r.raw or {}).get("concepts", [])]

    reference = last["one at a time"]
    for arm in ("batched per question", "batched in flight"):
        pairs = list(zip(reference, last[arm], strict=True))
        diff = max(abs((a.value or 0.0) - (b.value or 0.0)) for a, b in pairs)
        ours, theirs = concept_scores(reference), concept_scores(last[arm])
        same = sum(abs(a - b) <= 1e-3 for a, b in zip(ours, theirs, strict=True))
        print(
            f"{arm}: {same} of {len(ours)} concept scores within 1e-3 of one at a time; "
            f"largest familiarity difference {diff:.2e}"
        )


if __name__ == "__main__":
    main()
