"""How much prompt prefill the shared evidence block saves for the Likert, ChainPoll and TLM judges.

    .venv/bin/python -m benchmarks.judges.bench_judge_prefix [--data ../shared/data] [--samples 200]

The three judges run one after another on each RAGTruth QA sample against the in-process fake vLLM
(trustscore.testing.MockRouter, its prefix cache modelled in 16-token blocks, as vLLM's). The server
counts prompt tokens and the tokens it actually prefilled after its prefix cache. Two arms, side by
side in one run on fresh servers: our prompts (evidence block first, instruction last) and the same
prompts with the instruction moved before the evidence (what a per-judge template would do). Reported:
prefilled tokens per sample in each arm (mean, and min/median/max over samples) and the ratio of the means.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import anyio

from trustscore._types import Sample
from trustscore.judges import ChainPollConfig, LikertConfig, TLMConfig
from trustscore.judges import _chainpoll as chainpoll
from trustscore.judges import _likert as likert
from trustscore.judges import _tlm as tlm
from trustscore.judges._chainpoll import ChainPollJudge
from trustscore.judges._evidence import evidence_messages, question_messages
from trustscore.judges._likert import LikertJudge
from trustscore.judges._tlm import TLMJudge
from trustscore.llm._client import LLMClient
from trustscore.llm._config import EndpointConfig
from trustscore.llm._protocol import Message
from trustscore.signals._protocols import Judge
from trustscore.testing import LatencyModel, MockRouter, judge_policy

REPO = Path(__file__).resolve().parents[2]


def load_samples(data: Path, limit: int) -> list[Sample]:
    path = data / "ragtruth" / "test.jsonl"
    out: list[Sample] = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["task"] == "QA":
                out.append(Sample(question=row["question"], context=row["context"], response=row["response"]))
            if len(out) == limit:
                break
    return out


def instruction_first(*, question: str, context: str, answer: str, instruction: str) -> list[Message]:
    """The counterfactual layout: same text, but the judge-specific instruction comes first."""
    system, user = evidence_messages(question=question, context=context, answer=answer, instruction="")
    return [system, Message(role="user", content=instruction + "\n\n" + user.content)]


def question_instruction_first(*, question: str, context: str, instruction: str) -> list[Message]:
    """The same for TLM's answer sampling (no answer shown): instruction, then context and question."""
    system, user = question_messages(question=question, context=context, instruction="")
    return [system, Message(role="user", content=instruction + "\n\n" + user.content)]


@contextmanager
def layout(first: bool) -> Iterator[None]:
    swaps: list[tuple[ModuleType, str, Callable[..., list[Message]]]] = [
        (m, "evidence_messages", instruction_first) for m in (likert, chainpoll, tlm)
    ]
    swaps.append((tlm, "question_messages", question_instruction_first))
    saved = [getattr(m, name) for m, name, _ in swaps]
    if first:
        for m, name, swap in swaps:
            setattr(m, name, swap)
    try:
        yield
    finally:
        for (m, name, _), original in zip(swaps, saved, strict=True):
            setattr(m, name, original)


async def run_arm(samples: list[Sample], *, first: bool) -> dict[str, float]:
    router = MockRouter(judge_policy(), latency=LatencyModel(prefix_cache=True), max_model_len=32768)
    llm = LLMClient(
        EndpointConfig(base_url=router.base_url, model="fake-judge", context_window=32768),
        transport=router.transport,
    )
    judges: list[Judge] = [
        LikertJudge(LikertConfig(endpoint="j")),
        ChainPollJudge(ChainPollConfig(endpoint="j")),
        TLMJudge(TLMConfig(endpoint="j")),
    ]
    missing = 0
    prefilled: list[int] = []
    with layout(first):
        for sample in samples:
            before = router.stats.prefilled_tokens
            for judge in judges:
                signal = await judge.run(sample, llm)
                missing += signal.missing
            prefilled.append(router.stats.prefilled_tokens - before)
    stats = router.stats
    n = len(samples)
    return {
        "requests_per_sample": stats.requests / n,
        "prompt_tokens_per_sample": stats.prompt_tokens / n,
        "prefilled_tokens_per_sample": stats.prefilled_tokens / n,
        "prefilled_min": min(prefilled),
        "prefilled_median": statistics.median(prefilled),
        "prefilled_max": max(prefilled),
        "missing_signals": missing,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--samples", type=int, default=200)
    args = ap.parse_args()
    if not (args.data / "ragtruth" / "test.jsonl").exists():
        print(f"skipped: {args.data}/ragtruth/test.jsonl not found (pass --data)", file=sys.stderr)
        return
    samples = load_samples(args.data, args.samples)
    shared = anyio.run(lambda: run_arm(samples, first=False))
    first = anyio.run(lambda: run_arm(samples, first=True))
    print(f"samples: {len(samples)} RAGTruth QA; judges: likert, chainpoll (n=5), tlm (k=5)")
    for name, arm in (("evidence first (ours)", shared), ("instruction first", first)):
        print(f"{name:>22}: " + ", ".join(f"{k}={v:.1f}" for k, v in arm.items()))
    ratio = shared["prefilled_tokens_per_sample"] / first["prefilled_tokens_per_sample"]
    print(f"prefilled tokens, ours / instruction-first: {ratio:.3f}")


if __name__ == "__main__":
    main()
