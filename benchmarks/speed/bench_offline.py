"""The offline default (lexical + embedding) against a floor of its unavoidable work, side by side in one run.

    .venv/bin/python -m benchmarks.speed.bench_offline [--rows 300] [--repeats 3] [--busy 2]

Every measurement is a fresh subprocess; its CPU seconds and peak RSS come from ``wait4``.

* **floor** (the unavoidable work, in one process): import torch and transformers, load the bundled
  MiniLM, one forward per unique text that embedding grounding embeds for these rows (response
  sentences, short-answer claims and context chunks: computed here beforehand and handed over),
  sorted by length in batches of 64, on the main thread.
* **floor, batches of 12**: the same forwards in as many batches as the cold run's lane makes: what
  the batch count costs.
* **score cold**: ``trustscore score`` on the rows (offline default: lexical + embedding grounding)
  with an empty cache directory.
* **score cold, short spin**: the same with ``GOMP_SPINCOUNT=10000`` exported (trustscore then keeps
  it instead of its passive OpenMP waiting, see ``trustscore/compute/_torch_import.py``): what that choice is
  worth, side by side.
* **score warm**: the same command again, same cache directory (the local-signal cache answers).
* **floor load** / **first score**: a fresh process that imports torch and transformers and loads
  MiniLM, against one that imports trustscore and returns its first ``score_sync`` (time to first
  score, the cold start).

``--busy N`` runs N busy-looping processes for the whole measurement, a box shared with other jobs
(what passive OpenMP waiting is chosen for, see ``trustscore/compute/_torch_import.py``).

Prints min / median / max of each and the ratios of the medians (targets: cold RSS <= 1.2x and
wall <= 1.1x the floor; warm >= 5x faster than cold; first score <= 1.3x the floor load).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "ragtruth" / "test.jsonl"

FLOOR = r"""
import json, sys
import torch
from transformers import AutoModel, AutoTokenizer
path, texts_file, per_batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
tok = AutoTokenizer.from_pretrained(path, local_files_only=True)
model = AutoModel.from_pretrained(path, local_files_only=True).eval()
texts = json.load(open(texts_file)) if texts_file != "-" else []
texts.sort(key=len)
with torch.inference_mode():
    for i in range(0, len(texts), per_batch):
        batch = tok(
            texts[i : i + per_batch], padding=True, truncation=True, max_length=256, return_tensors="pt"
        )
        hidden = model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1)
        (pooled / pooled.norm(dim=1, keepdim=True)).numpy()
"""

FIRST_SCORE = r"""
from trustscore import score_sync
r = score_sync(question="When did the bridge open?", context=["The bridge opened in 1998."],
               response="It opened in 1998.")
assert r.signals["embedding"].value is not None and r.signals["lexical"].value is not None, r
"""

BUSY = """
import os, sys
parent = int(sys.argv[1])  # handed over: reading getppid() here could already see the reaper
while os.getppid() == parent:  # ends with the benchmark, even one killed with -9
    for _ in range(1_000_000):
        pass
"""


@dataclass
class Run:
    wall: float
    cpu: float
    rss_mib: float


def measure(cmd: list[str], env: dict[str, str]) -> Run:
    began = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - began
    err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{err[-3000:]}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def unique_texts(rows_file: Path) -> list[str]:
    """Every distinct text the embedding signal embeds for these rows (as EmbeddingGrounding.score does)."""
    from trustscore._types import Sample
    from trustscore.grounding._config import EmbeddingConfig
    from trustscore.grounding._embedding import EmbeddingGrounding
    from trustscore.grounding._text import split_long, split_sentences

    cfg = EmbeddingConfig()
    signal = EmbeddingGrounding(cfg)
    texts: set[str] = set()
    for line in rows_file.read_text().splitlines():
        row = json.loads(line)
        sample = Sample(question=row["question"], context=row["context"], response=row["response"])
        sentences = [
            p.text for s in split_sentences(sample.response) for p in split_long(s, cfg.max_words_per_chunk)
        ]
        short = bool(sample.question.strip()) and len(sample.response.split()) < cfg.claim_words
        texts.update(sentences)
        if short:
            texts.update(f"{sample.question.strip()} {s}" for s in sentences)
        texts.update(signal._chunks(sample.context).texts)
    return sorted(t for t in texts if t.strip())


def stats(xs: list[float]) -> str:
    return f"{min(xs):8.2f} {statistics.median(xs):8.2f} {max(xs):8.2f}"


def run_offline(data: Path, rows: int, repeats: int) -> tuple[str, dict[str, list[Run]]]:
    """Every arm, ``repeats`` times interleaved; returns a line describing the rows and the runs."""
    from trustscore.textmodels._embedder import bundled_model_path

    python = sys.executable
    # The OpenMP settings are the arms' own: one the caller exported would turn every arm passive.
    unset = ("TRUSTSCORE_CACHE_DIR", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    arms = ("floor", "floor, batches of 12", "cold", "cold, short spin", "warm", "floor load", "first score")
    results: dict[str, list[Run]] = {k: [] for k in arms}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        rows_file = work / "rows.jsonl"
        lines = data.read_text().splitlines()[:rows]
        rows_file.write_text("\n".join(lines) + "\n")
        texts = unique_texts(rows_file)
        (work / "texts.json").write_text(json.dumps(texts))
        contexts = len({json.dumps(json.loads(line)["context"]) for line in lines})
        info = f"{len(lines)} rows of {data}, {contexts} distinct contexts, {len(texts)} unique texts"
        print(info, file=sys.stderr)
        floor = [python, "-c", FLOOR, str(bundled_model_path()), str(work / "texts.json"), "64"]
        # The same forwards in as many batches as the cold run's lane makes (~380 for 300 rows: texts
        # arrive over ~17 rounds, each cut by padding and token bounds): what the batch count costs.
        floor_small = [python, "-c", FLOOR, str(bundled_model_path()), str(work / "texts.json"), "12"]
        floor_load = [python, "-c", FLOOR, str(bundled_model_path()), "-", "64"]
        for r in range(repeats):
            cache = work / f"cache{r}"
            run_env = {**env, "TRUSTSCORE_CACHE_DIR": str(cache)}
            score = [python, "-m", "trustscore.cli", "score", str(rows_file), "--no-progress"]
            results["floor"].append(measure(floor, env))
            results["floor, batches of 12"].append(measure(floor_small, env))
            spin_env = {**run_env, "GOMP_SPINCOUNT": "10000", "TRUSTSCORE_CACHE_DIR": str(work / f"spin{r}")}
            colds = [
                ("cold", [*score, "-o", str(work / f"cold{r}.jsonl")], run_env),
                ("cold, short spin", [*score, "-o", str(work / f"spin{r}.jsonl")], spin_env),
            ]
            # Which of the two runs first alternates: in fixed order the first one ran up to 10% slower.
            for arm, cmd, arm_env in colds if r % 2 == 0 else colds[::-1]:
                results[arm].append(measure(cmd, arm_env))
            results["warm"].append(measure([*score, "-o", str(work / f"warm{r}.jsonl")], run_env))
            results["floor load"].append(measure(floor_load, env))
            first_env = {**env, "TRUSTSCORE_CACHE_DIR": str(work / f"first{r}")}
            results["first score"].append(measure([python, "-c", FIRST_SCORE], first_env))
            print(f"offline: repeat {r + 1}/{repeats} done", file=sys.stderr, flush=True)
    return info, results


def ratio(results: dict[str, list[Run]], a: str, b: str, attr: str) -> tuple[float, float, float]:
    """min / median / max over repeats of arm ``a``'s ``attr`` over arm ``b``'s, taken side by side."""
    per = sorted(getattr(x, attr) / getattr(y, attr) for x, y in zip(results[a], results[b], strict=True))
    return per[0], statistics.median(per), per[-1]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--busy", type=int, default=0, help="busy-looping processes beside the runs")
    args = parser.parse_args()
    hogs = [subprocess.Popen([sys.executable, "-c", BUSY, str(os.getpid())]) for _ in range(args.busy)]
    try:
        info, results = run_offline(args.data, args.rows, args.repeats)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    if args.busy:
        info += f", {args.busy} busy-looping processes beside every run"
    print(info)
    columns = ("wall s min/median/max", "CPU s min/median/max", "peak RSS MiB min/median/max")
    print(f"\n{'':14} {columns[0]:>27} {columns[1]:>27} {columns[2]:>29}")
    for name, runs in results.items():
        print(
            f"{name:14} {stats([r.wall for r in runs])}   {stats([r.cpu for r in runs])}   "
            f"{stats([r.rss_mib for r in runs])}"
        )

    def show(a: str, b: str, attr: str) -> str:
        return " / ".join(f"{x:.2f}" for x in ratio(results, a, b, attr))

    print("\nratios per repeat (min / median / max), measured side by side:")
    print(f"  cold score / floor    wall {show('cold', 'floor', 'wall')}  (target <= 1.1)")
    print(f"  cold score / floor    RSS  {show('cold', 'floor', 'rss_mib')}  (target <= 1.2)")
    print(f"  cold score / floor    CPU  {show('cold', 'floor', 'cpu')}")
    print(f"  cold short spin / cold  wall {show('cold, short spin', 'cold', 'wall')}"
          f"  CPU {show('cold, short spin', 'cold', 'cpu')}")
    print(f"  floor in batches of 12 / floor  wall {show('floor, batches of 12', 'floor', 'wall')}"
          f"  CPU {show('floor, batches of 12', 'floor', 'cpu')}")
    print(f"  cold / warm           wall {show('cold', 'warm', 'wall')}  (target >= 5)")
    print(f"  first score / load    wall {show('first score', 'floor load', 'wall')}  (target <= 1.3)")
    print(f"  first score / load    CPU  {show('first score', 'floor load', 'cpu')}")
    print(f"  first score / load    RSS  {show('first score', 'floor load', 'rss_mib')}")


if __name__ == "__main__":
    main()
