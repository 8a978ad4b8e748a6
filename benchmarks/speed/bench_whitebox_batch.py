"""White-box signals batched across samples in flight vs one at a time, on SmolLM2-135M-Instruct on CPU.

    PYTHONPATH=$PWD .venv/bin/python -m benchmarks.speed.bench_whitebox_batch [--rows 8] [--repeats 3] \\
        [--tokens 32] [--batch 8] [--threads 1] [--data ../shared/data/ragtruth/test.jsonl]

Needs the trained test model (``bash scripts/setup --realmodel``). Rows: the first ``--rows`` QA rows
of the RAGTruth test file, in file order (their lengths as they come). Each arm scores all rows at once,
as a service does with samples in flight, in one process on the same loaded model; the arms alternate
within each repeat:

- **ReDeEP**: the ``redeep`` signal with a scoring-sized profile (4 heads, 6 layers, token level,
  JSD; its weights are arbitrary, the cost is the same) at ``batch_size = 1`` (each sample its own
  forward, the previous behaviour) vs ``batch_size = --batch`` (samples of similar length share a
  right-padded forward);
- **Self-Familiarity** (local, heuristic concepts, ``--tokens``-token greedy explanations) on each
  row's question: each explanation its own ``generate`` vs the explanations waiting together in one
  left-padded ``generate``.

Prints wall and process CPU seconds per row per arm (min / median / max over the repeats), the
speed-up of each repeat (one at a time / batched, wall and CPU: min / median / max), the largest
difference of a signal value between the arms, and the load average before and after. CPU time is
the steadier measure on a shared machine, where wall time swings with other load; torch runs on
``--threads`` threads (1 by default, for that reason).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "ragtruth" / "test.jsonl"
HEADS = [(7, 2), (12, 5), (18, 1), (24, 8)]
LAYERS = [5, 10, 15, 20, 25, 29]


def qa_rows(path: Path, n: int) -> list[Any]:
    from trustscore._types import Sample

    rows = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["task"] == "QA":
                rows.append(
                    Sample(question=row["question"], context=row["context"], response=row["response"])
                )
            if len(rows) == n:
                break
    return rows


def redeep_signal(model: Path, batch_size: int) -> Any:
    from trustscore.whitebox._model import load_model
    from trustscore.whitebox._profile import (
        LogisticCombination,
        ModelIdentity,
        RedeepProfile,
        TrainingSummary,
    )
    from trustscore.whitebox._redeep import RedeepSignal
    from trustscore.whitebox._redeep_config import RedeepConfig

    n = len(HEADS) + len(LAYERS)
    profile = RedeepProfile(
        model=ModelIdentity.from_hf_config(load_model(model).config), level="token", pks_mode="jsd",
        heads=HEADS, layers=LAYERS,
        combination=LogisticCombination(
            mean=[0.0] * n, scale=[1.0] * n, coef=[0.5] * n, intercept=0.0, l2=1.0
        ),
        response_aggregation="mean",
        training=TrainingSummary(n=1, positive_rate=0.5, data_sha256="0" * 64, split="benchmark, unfitted"),
    )  # fmt: skip
    return RedeepSignal(model_path=model, profile=profile, config=RedeepConfig(batch_size=batch_size))


def main() -> None:
    import torch

    from trustscore._types import Usage
    from trustscore.testing.real_model import default_real_model_dir, real_model_ready
    from trustscore.whitebox._familiarity import FamiliaritySignal
    from trustscore.whitebox._familiarity_backends import LocalFamiliarityBackend
    from trustscore.whitebox._familiarity_config import FamiliarityConfig
    from trustscore.whitebox._model import encode_sample, load_model

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=8)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--tokens", type=int, default=32, help="explanation length (the signal's default is 100)")
    p.add_argument("--batch", type=int, default=8, help="ReDeEP batch_size of the batched arm")
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--data", type=Path, default=DATA)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    if not real_model_ready():
        raise SystemExit("the trained model is not built: bash scripts/setup --realmodel")
    model = default_real_model_dir()
    rows = qa_rows(args.data, args.rows)
    loaded = load_model(model)
    lengths = [encode_sample(loaded.tokenizer, s).n_tokens for s in rows]

    class OneAtATime(LocalFamiliarityBackend):
        async def explain(self, message: str, max_tokens: int) -> tuple[str, Usage]:
            return await self._in_worker(self._explain, message, max_tokens)  # type: ignore[no-any-return]

    familiarity = FamiliarityConfig(
        enabled=True, backend="local", concepts="heuristic", explanation_max_tokens=args.tokens,
        model_path=model,
    )  # fmt: skip
    signals: dict[str, Callable[[Any], Awaitable[Any]]] = {
        "redeep, one at a time": redeep_signal(model, 1).run,
        "redeep, batched": redeep_signal(model, args.batch).run,
        "familiarity, one at a time": FamiliaritySignal(familiarity, OneAtATime(model)).run,
        "familiarity, batched": FamiliaritySignal.from_config(familiarity, None).run,
    }

    async def in_flight(run: Callable[[Any], Awaitable[Any]]) -> tuple[float, float, list[Any]]:
        results: list[Any] = [None] * len(rows)

        async def one(i: int) -> None:
            results[i] = await run(rows[i])

        started, started_cpu = time.perf_counter(), time.process_time()
        async with anyio.create_task_group() as tg:
            for i in range(len(rows)):
                tg.start_soon(one, i)
        wall, cpu = time.perf_counter() - started, time.process_time() - started_cpu
        return wall / len(rows), cpu / len(rows), results

    async def all_arms() -> tuple[dict[str, list[float]], dict[str, list[float]], dict[str, list[Any]]]:
        for run in signals.values():  # load the models and page the weights in, outside the clock
            await run(rows[0])
        seconds: dict[str, list[float]] = {arm: [] for arm in signals}
        cpu: dict[str, list[float]] = {arm: [] for arm in signals}
        last: dict[str, list[Any]] = {}
        for _ in range(args.repeats):
            for arm, run in signals.items():
                s, c, last[arm] = await in_flight(run)
                seconds[arm].append(s)
                cpu[arm].append(c)
        return seconds, cpu, last

    load_before = os.getloadavg()
    seconds, cpu, last = anyio.run(all_arms)
    load_after = os.getloadavg()
    print(
        f"{len(rows)} RAGTruth QA rows ({min(lengths)}-{max(lengths)} tokens, median "
        f"{statistics.median(lengths):.0f}), {args.repeats} repeats, ReDeEP batch {args.batch}, "
        f"{args.tokens}-token explanations, torch threads {torch.get_num_threads()}, cpus {os.cpu_count()}, "
        f"load average (1/5/15 min) before {'/'.join(f'{x:.1f}' for x in load_before)}, "
        f"after {'/'.join(f'{x:.1f}' for x in load_after)}"
    )

    def mmm(values: list[float]) -> str:
        return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"

    for signal in ("redeep", "familiarity"):
        alone, batched = f"{signal}, one at a time", f"{signal}, batched"
        for arm in (alone, batched):
            print(f"{arm:<28} s/row wall {mmm(seconds[arm])}   cpu {mmm(cpu[arm])}")
        wall_up = [a / b for a, b in zip(seconds[alone], seconds[batched], strict=True)]
        cpu_up = [a / b for a, b in zip(cpu[alone], cpu[batched], strict=True)]
        diff = max(
            abs((a.value or 0.0) - (b.value or 0.0)) for a, b in zip(last[alone], last[batched], strict=True)
        )
        missing = sum(r.value is None for arm in (alone, batched) for r in last[arm])
        print(
            f"{signal:<28} speed-up wall {mmm(wall_up)}   cpu {mmm(cpu_up)}   "
            f"largest value difference {diff:.1e}   missing {missing}"
        )


if __name__ == "__main__":
    main()
