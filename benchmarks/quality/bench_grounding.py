"""RAGTruth AUROC and speed of the fast grounding signals against a bag-of-words baseline.

    python -m benchmarks.quality.bench_grounding [--data ../shared/data] [--out out/bench_grounding.json]

Positive class: hallucinated = 1; score: 1 - signal value (or the raw part, oriented so that higher
means less grounded). AUROC per task (QA, Summary, Data2txt), their macro mean, and pooled. Knobs
are compared on train_extra.jsonl only (the "selection" table); test.jsonl is only ever reported.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from pydantic import JsonValue

from trustscore._types import Sample, Signal
from trustscore.core._hashing import short_hash
from trustscore.grounding import EmbeddingConfig, EmbeddingGrounding, LexicalConfig, LexicalSupport
from trustscore.grounding._embedding import aggregate_similarities
from trustscore.textmodels._embedder import Embedder

TASKS = ("QA", "Summary", "Data2txt")
REPO = Path(__file__).resolve().parents[2]


def auroc(labels: np.ndarray, scores: np.ndarray) -> float:
    """Rank-based AUROC (Mann-Whitney U) with average ranks for ties; nan if one class is absent."""
    pos, neg = int(labels.sum()), int((1 - labels).sum())
    if pos == 0 or neg == 0:
        return float("nan")
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    sorted_scores = scores[order]
    i = 0
    while i < len(scores):
        j = i
        while j + 1 < len(scores) and sorted_scores[j + 1] == sorted_scores[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return float((ranks[labels == 1].sum() - pos * (pos + 1) / 2) / (pos * neg))


_BOW = re.compile(r"\w+")


def bow_unsupported_ratio(sample: Sample) -> float:
    """Baseline: share of the response's lowercase word tokens that never occur in the context."""
    context = set(_BOW.findall(sample.context_text.lower()))
    tokens = _BOW.findall(sample.response.lower())
    return sum(t not in context for t in tokens) / len(tokens) if tokens else float("nan")


def load(path: Path) -> tuple[list[Sample], np.ndarray, list[str]]:
    samples, labels, tasks = [], [], []
    with path.open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            samples.append(
                Sample(
                    question=row["question"],
                    context=row["context"],
                    response=row["response"],
                    id=row["id"],
                    metadata={"source_id": row["source_id"]},
                )
            )
            labels.append(1 if row["hallucinated"] else 0)
            tasks.append(row["task"])
    return samples, np.array(labels), tasks


def report(scores: np.ndarray, labels: np.ndarray, tasks: list[str]) -> dict[str, float]:
    t = np.array(tasks)
    ok = ~np.isnan(scores)
    out = {
        task: auroc(labels[(t == task) & ok], scores[(t == task) & ok]) for task in TASKS if (t == task).any()
    }
    present = [v for v in out.values() if not np.isnan(v)]
    out["macro"] = float(np.mean(present)) if present else float("nan")
    out["pooled"] = auroc(labels[ok], scores[ok])
    out["missing"] = int((~ok).sum())
    return out


def _number(v: JsonValue) -> float:
    return float(v) if isinstance(v, (int, float)) else float("nan")


def lexical_scores(sample: Sample, lexical: LexicalSupport) -> dict[str, float]:
    """Baseline and lexical columns for one sample (higher = less grounded), with their seconds."""
    began = time.perf_counter()
    out = {"baseline: bow unsupported ratio": bow_unsupported_ratio(sample)}
    out["seconds: baseline"] = time.perf_counter() - began
    lx = lexical.score(sample)
    raw = lx.raw if isinstance(lx.raw, dict) else {}
    out["lexical (1 - value)"] = float("nan") if lx.value is None else 1 - lx.value
    for part in (
        "unsupported_share",
        "numbers_unsupported_share",
        "names_unsupported_share",
        "words_unsupported_share",
    ):
        out[f"lexical.{part}"] = _number(raw.get(part))
    out["seconds: lexical"] = lx.usage.seconds
    return out


def embedding_scores(sample: Sample, embedding: EmbeddingGrounding) -> dict[str, float]:
    """Embedding columns for one sample (higher = less grounded), with its seconds."""
    em = embedding.score(sample)
    raw = em.raw if isinstance(em.raw, dict) else {}
    out = {"embedding (1 - value)": float("nan") if em.value is None else 1 - em.value}
    for part in ("min", "mean", "q25", "softmin"):
        out[f"embedding.{part} (1 - x)"] = 1 - _number(raw.get(part))
    out["embedding.frac_low"] = _number(raw.get("frac_low"))
    out["seconds: embedding"] = em.usage.seconds
    return out


def _sentence_similarities(signal: Signal) -> np.ndarray | None:
    if signal.value is None or not isinstance(signal.raw, dict):
        return None
    sims = signal.raw.get("sentence_similarity")
    return np.array(sims, dtype=float) if isinstance(sims, list) else None


def _read_cache(path: Path) -> dict[str, dict[str, float]]:
    """Rows by id; a line cut short by an interrupted run is ignored (and recomputed)."""
    if not path.is_file():
        return {}
    out: dict[str, dict[str, float]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        out[row.pop("id")] = row
    return out


def table(title: str, rows: dict[str, dict[str, float]]) -> str:
    head = f"{'':44s}" + "".join(f"{c:>9s}" for c in (*TASKS, "macro", "pooled"))
    lines = [title, head]
    for name, r in rows.items():
        lines.append(
            f"{name:44s}" + "".join(f"{r.get(c, float('nan')):9.3f}" for c in (*TASKS, "macro", "pooled"))
        )
    return "\n".join(lines)


def selection(
    data: Path, base: EmbeddingConfig, progress: Callable[[str], None]
) -> dict[str, dict[str, float]]:
    """Knob comparison on train_extra only: lexical question support, context window sizes."""
    samples, labels, tasks = load(data / "ragtruth" / "train_extra.jsonl")
    out: dict[str, dict[str, float]] = {}
    for q in (True, False):
        lx = LexicalSupport(LexicalConfig(question_support=q))
        vals = [lx.score(s) for s in samples]
        out[f"lexical, question_support={q}"] = report(
            np.array([np.nan if v.value is None else 1 - v.value for v in vals]), labels, tasks
        )
    for windows in ((1,), (1, 2)):
        cfg = base.model_copy(update={"windows": windows})
        progress(f"train_extra: embedding windows {windows}")
        em = EmbeddingGrounding(cfg)
        sims = [_sentence_similarities(em.score(s)) for s in samples]
        for agg in ("min", "mean", "q25", "softmin"):
            scores = np.array(
                [
                    np.nan if v is None else 1 - aggregate_similarities(v, cfg.low_similarity)[agg]
                    for v in sims
                ]
            )
            out[f"embedding windows={list(windows)} agg={agg}"] = report(scores, labels, tasks)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=REPO / "out" / "bench_grounding.json")
    ap.add_argument("--limit", type=int, default=0, help="only the first N test rows (whole sources first)")
    ap.add_argument("--no-selection", action="store_true", help="skip the train_extra knob comparison")
    ap.add_argument("--selection-only", action="store_true", help="only the train_extra knob comparison")
    ap.add_argument(
        "--cache",
        type=Path,
        default=REPO / ".trustscore-cache" / "bench_grounding",
        help="per-row scores are kept here (gitignored), so an interrupted run resumes where it stopped",
    )
    ap.add_argument("--cached-only", action="store_true", help="report on the rows already cached")
    ap.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch threads for the embedder (1 is fastest on a busy 2-core machine)",
    )
    args = ap.parse_args(argv)
    test_file = args.data / "ragtruth" / "test.jsonl"
    if not test_file.is_file():
        print(f"SKIP: {test_file} not found (pass --data pointing at the shared data folder)")
        return 0

    def progress(msg: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)

    config = EmbeddingConfig(threads=args.threads)
    embedding = EmbeddingGrounding(config)
    began = time.perf_counter()
    embedding.embedder()
    load_s = time.perf_counter() - began
    result: dict[str, object] = {
        "config": config.model_dump(mode="json"),
        "model_load_s": round(load_s, 2),
        "versions": {"lexical": LexicalSupport().version, "embedding": embedding.version},
    }
    if not args.no_selection:
        progress("selection on train_extra.jsonl")
        sel = selection(args.data, config, progress)
        print(table("Knob selection on train_extra.jsonl (AUROC, hallucinated = positive)", sel))
        result["selection_train_extra"] = sel
        if args.selection_only:
            return 0

    samples, labels, tasks = load(test_file)
    # Whole sources in a fixed pseudo-random order: a context is embedded once for its six
    # responses, and any prefix of the run (--limit, or an interrupted run) is a fair mix of tasks.
    order = sorted(range(len(samples)), key=lambda i: (short_hash(str(samples[i].metadata["source_id"])), i))
    if args.limit:
        order = order[: args.limit]
    # Only the embedding columns are slow: they are cached per embedding version (resumable).
    cache_file = args.cache / f"{short_hash(embedding.version)}-test-embedding.jsonl"
    cached = _read_cache(cache_file)
    lexical = LexicalSupport()
    already = sum(str(samples[i].id) in cached for i in order)
    progress(f"test.jsonl: {len(order)} rows ({already} embedded rows cached in {cache_file})")
    lexical.score(samples[order[0]])  # warm-up: wordfreq loads its tables on first use
    began = time.perf_counter()
    computed = 0
    scores: dict[str, dict[str, float]] = {}
    args.cache.mkdir(parents=True, exist_ok=True)
    with cache_file.open("a", encoding="utf-8") as sink:
        for n, i in enumerate(order, 1):
            sid = str(samples[i].id)
            if sid not in cached and not args.cached_only:
                cached[sid] = embedding_scores(samples[i], embedding)
                sink.write(json.dumps({"id": sid, **cached[sid]}) + "\n")
                sink.flush()
                computed += 1
                if computed % 100 == 0:
                    progress(f"{n}/{len(order)} rows")
            if sid in cached:
                scores[sid] = {**lexical_scores(samples[i], lexical), **cached[sid]}
    wall = time.perf_counter() - began
    done = [i for i in order if str(samples[i].id) in scores]
    names = list(scores[str(samples[done[0]].id)]) if done else []
    cols = {name: np.array([scores[str(samples[i].id)][name] for i in done]) for name in names}
    labels = labels[done]
    tasks = [tasks[i] for i in done]
    rows = {name: report(v, labels, tasks) for name, v in cols.items() if not name.startswith("seconds")}
    print(
        table(f"RAGTruth test.jsonl, n={len(done)} of {len(samples)} (AUROC, hallucinated = positive)", rows)
    )
    timing = {
        name.removeprefix("seconds: "): {
            "mean_ms": round(1e3 * float(np.mean(v)), 3),
            "p95_ms": round(1e3 * float(np.quantile(v, 0.95)), 3),
        }
        for name, v in cols.items()
        if name.startswith("seconds")
    }

    # Cold embedding cost (no context reuse): a fresh, cache-less embedder over 20 rows.
    cold_s: list[float] = []
    if not args.cached_only:
        cold_embedder = Embedder(embedding.embedder().path, cache_size=0, threads=args.threads)
        cold = EmbeddingGrounding(config, embedder=cold_embedder)
        cold_s = [cold.score(samples[i]).usage.seconds for i in done[:: max(1, len(done) // 20)][:20]]
    timing["embedding, cold (no shared context)"] = {
        "mean_ms": round(1e3 * float(np.mean(cold_s)), 3) if cold_s else float("nan"),
        "p95_ms": round(1e3 * float(np.quantile(cold_s, 0.95)), 3) if cold_s else float("nan"),
    }
    print("\nPer-sample time (this run, same machine; embedding reuses a context's vectors across responses)")
    for name, t in timing.items():
        print(f"  {name:40s} mean {t['mean_ms']:9.2f} ms   p95 {t['p95_ms']:9.2f} ms")
    print(f"  {computed} rows computed in this run: {wall:.1f} s wall (model load {load_s:.1f} s)")
    result |= {
        "test": rows,
        "timing": timing,
        "test_wall_s": round(wall, 2),
        "rows_computed": computed,
        "n_test": len(done),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, allow_nan=True), encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
