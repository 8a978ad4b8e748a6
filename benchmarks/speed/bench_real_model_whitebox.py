"""White-box signals on a trained model (SmolLM2-135M-Instruct as a proxy), held out, beside the offline ones.

    PYTHONPATH=$PWD .venv/bin/python -m benchmarks.speed.bench_real_model_whitebox --model DIR \\
        [--per-task 20] [--threads 2] [--familiarity] [--cache .cache-data/bench_real_model_whitebox]

``DIR`` is the SmolLM2 build (``python -m trustscore.testing.real_model`` prints it). Rows: RAGTruth test
rows (``../shared/data/ragtruth/test.jsonl`` beside the checkout), per task the shortest ``--per-task`` (half
hallucinated, half not) so extraction stays within minutes on two shared cores; short rows are not a
random sample, so read the figures as this slice's.

1. Extraction (cached per row, resumable): ReDeEP features of every candidate head and layer (token
   level, JSD), the lexical and embedding signals, and with ``--familiarity`` local Self-Familiarity;
   wall seconds per row and the process's peak RSS.
2. Held out: each task's sources split in half (seeded); a paper-style ReDeEP profile is fitted on the
   train halves (all tasks) and scores the test halves. AUROC per task for ReDeEP, lexical
   (``1 - raw.unsupported_share``, bag of words) and embedding.
3. Fusion: logistic regression over (lexical, embedding) vs (lexical, embedding, ReDeEP
   [, familiarity]), fitted on the train halves and scored on the test halves; and leave one task out
   (profile and fusion fitted on two tasks, scored on the third).

AUROC has "trustworthy" as the positive class (1 = no hallucinated span) throughout.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from trustscore._types import Sample
from trustscore.stats import _metrics as metrics
from trustscore.stats._logistic import fit_logistic, sigmoid

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "ragtruth" / "test.jsonl"
TASKS = ("QA", "Summary", "Data2txt")


def pick_rows(path: Path, per_task: int) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    picked = []
    for task in TASKS:
        mine = sorted(
            (r for r in rows if r["task"] == task),
            key=lambda r: (len(r["response"]) + sum(len(c) for c in r["context"]), r["id"]),
        )
        for hallucinated in (True, False):
            picked += [r for r in mine if bool(r["spans"]) == hallucinated][: per_task // 2]
    return picked


def held_out(source_id: str, seed: int) -> bool:
    return hashlib.sha256(f"{seed}|{source_id}".encode()).digest()[0] < 128


def extract(args: argparse.Namespace, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every row's features, from the cache when there (one JSON file per row)."""
    import torch

    from trustscore.fitting._redeep import label_units
    from trustscore.grounding._embedding import EmbeddingGrounding
    from trustscore.grounding._lexical import LexicalSupport
    from trustscore.textmodels._embedder import load_embedder
    from trustscore.whitebox._model import load_model
    from trustscore.whitebox._redeep_extract import extract_features
    from trustscore.whitebox._redeep_features import candidate_recipe

    torch.set_num_threads(args.threads)
    args.cache.mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()
    loaded = load_model(args.model)
    recipe = candidate_recipe(loaded)
    print(f"model loaded, {len(recipe.heads)} candidate heads scored: {time.perf_counter() - began:.1f} s",
          file=sys.stderr)  # fmt: skip
    lexical = LexicalSupport()
    embedding = EmbeddingGrounding(embedder=load_embedder())
    familiarity = None
    if args.familiarity:
        from trustscore.whitebox._familiarity import FamiliaritySignal
        from trustscore.whitebox._familiarity_config import FamiliarityConfig

        familiarity = FamiliaritySignal.from_config(FamiliarityConfig(model_path=args.model), None)
    out = []
    for i, row in enumerate(rows, 1):
        cached = args.cache / f"{row['id']}.json"
        if cached.is_file():
            record = json.loads(cached.read_text(encoding="utf-8"))
            if not args.familiarity or "familiarity" in record:
                out.append(record)
                continue
        sample = Sample(
            question=row["question"], context=row["context"], response=row["response"], id=row["id"]
        )
        t0 = time.perf_counter()
        features = extract_features(loaded, sample, recipe)
        seconds = time.perf_counter() - t0
        spans = [(int(s["start"]), int(s["end"])) for s in row["spans"]]
        record = {
            "id": row["id"], "task": row["task"], "source_id": str(row["source_id"]),
            "hallucinated": bool(spans), "ecs": features.ecs.tolist(), "pks": features.pks.tolist(),
            "labels": label_units(features.spans, spans).tolist(), "tokens": features.n_tokens,
            "redeep_seconds": seconds, "heads": [list(h) for h in recipe.heads],
            "layers": list(recipe.layers),
            "lexical": 1.0 - float(lexical.score(sample).raw["unsupported_share"]),  # type: ignore[index,arg-type]
            "embedding": embedding.score(sample).value,
        }  # fmt: skip
        if familiarity is not None:
            import anyio

            t0 = time.perf_counter()
            signal = anyio.run(familiarity.run, sample)
            record["familiarity"] = signal.value
            record["familiarity_seconds"] = time.perf_counter() - t0
        record["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        cached.write_text(json.dumps(record), encoding="utf-8")
        out.append(record)
        print(f"{i}/{len(rows)} {row['task']} {record['tokens']} tokens {seconds:.1f} s", file=sys.stderr)
    return out


def auroc(scores: list[float], trustworthy: list[int]) -> float | None:
    y = np.asarray(trustworthy)
    s = np.asarray(scores, dtype=float)
    keep = np.isfinite(s)
    if keep.sum() < 2 or y[keep].min() == y[keep].max():
        return None
    return round(float(metrics.auroc(y[keep], s[keep])), 3)


def fit_profile(records: list[dict[str, Any]]) -> Any:
    from trustscore.fitting._redeep import FeatureSet, fit_paper_profile
    from trustscore.whitebox._profile import ModelIdentity

    first = records[0]
    data = FeatureSet.build(
        np.vstack([r["ecs"] for r in records]), np.vstack([r["pks"] for r in records]),
        np.concatenate([r["labels"] for r in records]),
        heads=[tuple(h) for h in first["heads"]], layers=first["layers"],
        groups=[r["source_id"] for r in records for _ in r["labels"]],
        responses=[r["id"] for r in records for _ in r["labels"]],
    )  # fmt: skip
    identity = ModelIdentity(model_type="llama", n_layers=30, n_heads=9, hidden_size=576, name="SmolLM2-135M")
    return fit_paper_profile(
        data, model=identity, level="token", pks_mode="jsd", split="bench train half", n_folds=3
    ), data


def redeep_values(profile: Any, records: list[dict[str, Any]]) -> list[float]:
    head_index = {tuple(h): i for i, h in enumerate(records[0]["heads"])}
    layer_index = {layer: i for i, layer in enumerate(records[0]["layers"])}
    cols_e = [head_index[tuple(h)] for h in profile.heads]
    cols_p = [layer_index[layer] for layer in profile.layers]
    out = []
    for r in records:
        probs = profile.token_scores(np.asarray(r["ecs"])[:, cols_e], np.asarray(r["pks"])[:, cols_p])
        out.append(1.0 - profile.aggregate(probs))
    return out


def fused(train: list[dict[str, Any]], test: list[dict[str, Any]], columns: list[str]) -> list[float]:
    def design(records: list[dict[str, Any]]) -> np.ndarray:
        return np.array([[r[c] if r[c] is not None else 0.5 for c in columns] for r in records], dtype=float)

    x_tr, x_te = design(train), design(test)
    mean, scale = x_tr.mean(axis=0), np.where(x_tr.std(axis=0) > 0, x_tr.std(axis=0), 1.0)
    y = np.array([0 if r["hallucinated"] else 1 for r in train])
    coef, b = fit_logistic((x_tr - mean) / scale, y, l2=1.0)
    return [float(v) for v in sigmoid(((x_te - mean) / scale) @ coef + b)]


def evaluate(records: list[dict[str, Any]], seed: int, with_familiarity: bool) -> dict[str, Any]:
    train = [r for r in records if not held_out(r["source_id"], seed)]
    test = [r for r in records if held_out(r["source_id"], seed)]
    profile, _ = fit_profile(train)
    for r, v in zip(test, redeep_values(profile, test), strict=True):
        r["redeep"] = v
    for r, v in zip(train, redeep_values(profile, train), strict=True):
        r["redeep"] = v  # in-sample: only the fusion's weights are fitted on it
    base = ["lexical", "embedding"]
    plus = base + ["redeep"] + (["familiarity"] if with_familiarity else [])
    report: dict[str, Any] = {
        "rows": {"train": len(train), "test": len(test)},
        "profile": {
            "heads": profile.heads,
            "layers": profile.layers,
            "selection": profile.training.selection,
        },
    }
    fuse_base, fuse_plus = fused(train, test, base), fused(train, test, plus)
    for task in (*TASKS, "pooled"):
        idx = [i for i, r in enumerate(test) if task in ("pooled", r["task"])]
        y = [0 if test[i]["hallucinated"] else 1 for i in idx]
        row = {
            s: auroc([test[i][s] for i in idx], y)
            for s in ["redeep", *base] + (["familiarity"] if with_familiarity else [])
        }
        row["fused_lex_emb"] = auroc([fuse_base[i] for i in idx], y)
        row["fused_plus_whitebox"] = auroc([fuse_plus[i] for i in idx], y)
        row["n"] = len(idx)
        report[task] = row
    lopo: dict[str, Any] = {}
    for task in TASKS:
        tr = [r for r in records if r["task"] != task]
        te = [r for r in records if r["task"] == task]
        profile, _ = fit_profile(tr)
        for r, v in zip(te + tr, redeep_values(profile, te + tr), strict=True):
            r["redeep"] = v
        y = [0 if r["hallucinated"] else 1 for r in te]
        lopo[task] = {
            "redeep": auroc([r["redeep"] for r in te], y),
            "fused_lex_emb": auroc(fused(tr, te, base), y),
            "fused_plus_whitebox": auroc(fused(tr, te, plus), y),
            "n": len(te),
        }
    report["leave_one_task_out"] = lopo
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--per-task", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--familiarity", action="store_true", help="also run local Self-Familiarity (slow)")
    parser.add_argument("--cache", type=Path, default=Path(".cache-data/bench_real_model_whitebox"))
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    args = parser.parse_args(argv)
    records = extract(args, pick_rows(args.data, args.per_task))
    seconds = [r["redeep_seconds"] for r in records]
    report = {
        "model": str(args.model),
        "rows": len(records),
        "redeep_seconds_per_row": {
            "median": round(float(np.median(seconds)), 2),
            "max": round(max(seconds), 2),
        },
        "tokens_per_row_median": int(np.median([r["tokens"] for r in records])),
        "peak_rss_mb": round(max(r["peak_rss_mb"] for r in records)),
        "threads": args.threads,
        **evaluate(records, args.seed, args.familiarity),
    }
    if args.familiarity:
        fam = [r["familiarity_seconds"] for r in records]
        report["familiarity_seconds_per_row"] = {
            "median": round(float(np.median(fam)), 2),
            "max": round(max(fam), 2),
        }
    text = json.dumps(report, indent=1, default=list)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
