"""Likert with and without its explanation on the fake server: cost and agreement (issue 11, item 6).

    .venv/bin/python -m benchmarks.bench_likert_verdict [--samples 200]

The fake server (trustscore.testing) rates each sample from its content (5 for answers the context
supports, 2 for invented ones, with a logprob spread around the rating) and answers in the shape
the prompt asks for: an explanation then ``Score: N``, or ``Score: N`` alone. Both modes run on
a vLLM-flavoured endpoint (verdict-only = the prefilled one-token answer) and on an
OpenAI-flavoured one (verdict-only = a ``Score:`` line in at most 8 tokens). Printed per mode:
requests, prompt and completion tokens per sample, and agreement with the explained mode (share
of equal ratings, max |value difference|). The fake's explanation is one sentence; a real judge's
runs to 50-300 tokens, so the real saving is larger: the real-engine check is the vllm suite's.
"""

from __future__ import annotations

import argparse
from typing import Any

import anyio

from trustscore import Config, Scorer
from trustscore.testing import FakeVLLMServer, judge_policy
from trustscore.testing.script import FakeAnswer, FakeRequest

from benchmarks.bench_judges import make_samples


def _rating(request: FakeRequest) -> FakeAnswer:
    supported = "repaired by Maria Obi" in request.text  # make_samples: the faithful answers say so
    score = 5 if supported else 2
    probs = {str(score): 0.8, str(score - 1): 0.15, str(min(5, score + 1)): 0.05}
    if "write no explanation" in request.text or request.continue_final_message:
        return FakeAnswer(text=f"Score: {score}", verdict_probs=probs)
    return FakeAnswer(
        text=f"Explanation: The answer {'repeats' if supported else 'goes beyond'} what the passages say "
        f"about the record.\nScore: {score}",
        verdict_probs=probs,
    )


def run(server: FakeVLLMServer, flavour: str, verdict_only: bool, samples: list[Any]) -> dict[str, Any]:
    config = Config.from_dict(
        {
            "endpoints": {"judge": {"base_url": server.base_url, "model": server.model, "flavour": flavour}},
            "judges": {"likert": {"endpoint": "judge", "verdict_only": verdict_only}},
            "grounding": {"lexical": False, "embedding": False},
            "cache": {"mode": "off"},
        }
    )
    server.reset()

    async def go() -> list[Any]:
        async with Scorer(config) as scorer:
            return await scorer.score_many(samples, concurrency=16)

    results = anyio.run(go)
    s = server.stats
    n = len(samples)
    return {
        "values": [r.signals["likert"].value for r in results],
        "requests": s.requests / n,
        "prompt": s.prompt_tokens / n,
        "completion": s.completion_tokens / n,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    samples = make_samples(args.samples)
    policy = judge_policy({"likert": _rating})
    print(f"{args.samples} samples; per sample: requests, prompt tokens, completion tokens; agreement")
    with FakeVLLMServer(policy=policy) as server:
        for flavour in ("vllm", "openai"):
            explained = run(server, flavour, False, samples)
            verdict = run(server, flavour, True, samples)
            assert None not in explained["values"] and None not in verdict["values"], "a rating is missing"
            pairs = list(zip(explained["values"], verdict["values"], strict=True))
            same = sum(round(1 + 4 * a) == round(1 + 4 * b) for a, b in pairs) / len(pairs)
            gap = max(abs(a - b) for a, b in pairs)
            for name, r in (("explained", explained), ("verdict-only", verdict)):
                print(
                    f"  {flavour:6} {name:12} requests {r['requests']:.2f}  prompt {r['prompt']:7.1f}  "
                    f"completion {r['completion']:6.1f}"
                )
            saved = 1 - verdict["completion"] / explained["completion"]
            print(
                f"  {flavour:6} verdict-only vs explained: completion tokens -{saved:.0%}, "
                f"same rating {same:.0%}, max |value gap| {gap:.4f}"
            )


if __name__ == "__main__":
    main()
