"""ReDeEP feature extraction vs a plain SDPA forward of the same model on the same input.

    .venv/bin/python -m benchmarks.speed.bench_redeep [--lengths 512 2048 4096] [--threads 1] [--out FILE]

Model: a random Llama with hidden 768, 12 layers, 12 heads, MLP 2048, vocab 32000 (~134M
parameters, fp32, CPU), saved once to a temporary directory. Input: a chat-templated RAG prompt
whose context fills the length, with a response of 1/8 of the tokens.

Each (mode, length) runs in a fresh subprocess, because torch's allocator never gives memory back
and tracemalloc does not see it. Memory is the process's RSS high-water mark (``VmHWM`` in
/proc/self/status) after the first pass; "extra" is that peak minus the RSS just before the pass
(weights, tokenizer and input already resident). Time is the median wall time over ``--repeats``
passes, and the median process CPU time (on one torch thread by default, the stable measure on a
shared machine, where wall time swings with other load), after one warm-up pass on 16 tokens
(pages the weights in). Ratios are against the two baselines measured in the same run:

* ``forward+logits``: ``model(input_ids)``, what a plain forward computes (T x V logits included);
* ``decoder``: ``model.model(input_ids)``, the same pass without the unembedding.

ReDeEP modes: ``redeep-scoring`` reads 4 heads (in 3 layers) and 6 layers, the size of the paper's
fitted profiles; ``redeep-candidates`` reads 32 heads and all 12 layers, what profile fitting
extracts. Both at token level, paper (JSD) mode.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

MODES = ("forward+logits", "decoder", "redeep-scoring", "redeep-candidates")
SCORING_HEADS = ((4, 3), (6, 0), (6, 7), (9, 5))
SCORING_LAYERS = (3, 5, 6, 7, 8, 10)


def _rss_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status (Linux only)")


def _sample_of(loaded: Any, n_tokens: int) -> Any:
    from trustscore._types import Sample
    from trustscore.testing._tiny import TINY_CORPUS
    from trustscore.whitebox._model import encode_sample

    response_target = n_tokens // 8
    response = ""
    probe = Sample(question="What does the context say?", context=["x"], response="y")
    while True:
        response += TINY_CORPUS[len(response) % len(TINY_CORPUS)] + " "
        if len(loaded.tokenizer(response)["input_ids"]) >= response_target:
            break
    sentences: list[str] = []
    while True:
        sentences.append(TINY_CORPUS[len(sentences) % len(TINY_CORPUS)])
        probe = Sample(question=probe.question, context=[" ".join(sentences)], response=response.strip())
        if encode_sample(loaded.tokenizer, probe).n_tokens >= n_tokens:
            return probe


def child(mode: str, model_dir: Path, n_tokens: int, repeats: int, threads: int) -> dict[str, Any]:
    import torch

    torch.set_num_threads(threads)
    from trustscore.whitebox._model import encode_sample, load_model
    from trustscore.whitebox._redeep_extract import extract_features
    from trustscore.whitebox._redeep_features import FeatureRecipe

    loaded = load_model(model_dir)
    sample = _sample_of(loaded, n_tokens)
    enc = encode_sample(loaded.tokenizer, sample)
    ids = torch.tensor([enc.input_ids])
    if mode == "redeep-candidates":
        all_heads = tuple((layer, head) for layer in range(12) for head in range(12))
        recipe = FeatureRecipe(heads=all_heads[::4][:32], layers=tuple(range(12)))
    else:
        recipe = FeatureRecipe(heads=SCORING_HEADS, layers=SCORING_LAYERS)

    def run() -> None:
        with torch.inference_mode():
            if mode == "forward+logits":
                loaded.model(input_ids=ids, use_cache=False)
            elif mode == "decoder":
                loaded.decoder(input_ids=ids, use_cache=False)
            else:
                extract_features(loaded, sample, recipe, max_tokens=n_tokens * 2)

    # Page the weights in and initialise kernels on a short input first, so that "extra" is the
    # pass's own working memory and the timed passes do not pay one-time costs.
    with torch.inference_mode():
        loaded.model(input_ids=ids[:, :16], use_cache=False)
    before = _rss_kib("VmRSS")
    walls, cpus = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - start_cpu)
    peak = _rss_kib("VmHWM")
    return {
        "mode": mode,
        "tokens": enc.n_tokens,
        "response_tokens": enc.n_response_tokens,
        "seconds": statistics.median(walls),
        "cpu_seconds": statistics.median(cpus),
        "peak_mib": peak / 1024,
        "extra_mib": (peak - before) / 1024,
    }


def build_model(directory: Path) -> Path:
    from trustscore.testing._tiny import save_tiny_model

    return save_tiny_model(
        directory / "llama-134m", hidden_size=768, num_layers=12, num_heads=12, num_kv_heads=12,
        intermediate_size=2048, vocab_size=32000, max_positions=8192,
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lengths", type=int, nargs="+", default=[512, 2048, 4096])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1, help="torch threads per pass (default 1)")
    parser.add_argument("--out", type=Path, default=None, help="also write the results as JSON here")
    parser.add_argument("--child", nargs=3, metavar=("MODE", "MODEL_DIR", "TOKENS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        mode, model_dir, tokens = args.child
        print(json.dumps(child(mode, Path(model_dir), int(tokens), args.repeats, args.threads)))
        return 0

    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = build_model(Path(tmp))
        for n in args.lengths:
            for mode in MODES:
                cmd = [sys.executable, "-m", "benchmarks.speed.bench_redeep", "--repeats", str(args.repeats),
                       "--threads", str(args.threads),
                       "--child", mode, str(model_dir), str(n)]  # fmt: skip
                done = subprocess.run(cmd, capture_output=True, text=True, check=False)
                if done.returncode != 0:
                    print(done.stderr[-2000:], file=sys.stderr)
                    return 1
                row = json.loads(done.stdout.strip().splitlines()[-1])
                row["length"] = n
                results.append(row)
                line = (
                    f"  {n:>5} {mode:<18} {row['seconds']:7.2f} s  cpu {row['cpu_seconds']:7.2f} s  "
                    f"peak {row['peak_mib']:7.0f} MiB  extra {row['extra_mib']:7.0f} MiB"
                )
                print(line, file=sys.stderr)

    print("| tokens | mode | CPU time vs forward+logits | vs decoder | wall vs forward+logits "
          "| peak RSS vs forward+logits | vs decoder | extra MiB (decoder's) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for n in args.lengths:
        rows = {r["mode"]: r for r in results if r["length"] == n}
        full, dec = rows["forward+logits"], rows["decoder"]
        for mode in ("redeep-scoring", "redeep-candidates"):
            r = rows[mode]
            print(
                f"| {r['tokens']} | {mode} | {r['cpu_seconds'] / full['cpu_seconds']:.2f}x "
                f"| {r['cpu_seconds'] / dec['cpu_seconds']:.2f}x | {r['seconds'] / full['seconds']:.2f}x "
                f"| {r['peak_mib'] / full['peak_mib']:.2f}x | {r['peak_mib'] / dec['peak_mib']:.2f}x "
                f"| {r['extra_mib']:.0f} ({dec['extra_mib']:.0f}) |"
            )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
