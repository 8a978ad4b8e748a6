"""ReDeEP on the authors' released chunk features: parity with the paper, then an honest held-out figure.

    .venv/bin/python -m benchmarks.quality.redeep_realdata [--data ../shared/data/redeep] [--splits 25]
        [--json out.json]

(~90 s for 25 splits on one core; on a busy machine prefix OPENBLAS_NUM_THREADS=1, as the fits are small.)

Data: ``llama2_7b_chunk_features.json`` (450 RAGTruth test responses of llama-2-7b-chat, 1,159 chunks,
32 ECS per copying head and 32 PKS per layer in the released code's legacy units). It has no licence:
nothing derived from it is written except the figures below (stdout, or ``--json``).

1. Parity: the paper's selection (3 heads, 4 layers, beta 0.6, chosen on these same 450 responses),
   response score = mean of chunk scores, label = any hallucinated chunk. The paper's ReDeEP(chunk)
   0.7458 AUROC / 0.4203 PCC is this response-level figure (the released log says 0.74725 / 0.42072).
2. Held-out: split the SOURCES in half (``--splits`` seeds), fit with trustscore.fitting._redeep on one half
   only (sizes and beta, or the L2 strength, by grouped inner CV), report AUROC on the other half at
   response and chunk level: mean, std, min, max.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from trustscore.fitting._redeep import (
    FeatureSet,
    PaperSelection,
    fit_logistic_profile,
    fit_paper_profile,
    pearson,
    response_scores,
)
from trustscore.stats._metrics import auroc_or_nan
from trustscore.whitebox._profile import ModelIdentity, PaperCombination, RedeepProfile

FILE = "llama2_7b_chunk_features.json"
LLAMA2_7B = ModelIdentity(
    model_type="llama", n_layers=32, n_heads=32, hidden_size=4096, name="llama-2-7b-chat"
)
_HEAD_KEY = re.compile(r"^\((\d+), (\d+)\)$")


def load_features(path: Path) -> FeatureSet:
    rows = json.loads(path.read_text(encoding="utf-8"))
    first = rows[0]["scores"][0]
    head_keys = list(first["prompt_attention_score"])
    heads = []
    for key in head_keys:
        m = _HEAD_KEY.match(key)
        if m is None:
            raise ValueError(f"unexpected head key {key!r} in {path}")
        heads.append((int(m.group(1)), int(m.group(2))))
    layer_keys = sorted(first["parameter_knowledge_scores"], key=lambda k: int(k.split("_")[1]))
    layers = [int(k.split("_")[1]) for k in layer_keys]
    ecs, pks, labels, groups, responses = [], [], [], [], []
    for row in rows:
        for chunk in row["scores"]:
            ecs.append([chunk["prompt_attention_score"][k] for k in head_keys])
            pks.append([chunk["parameter_knowledge_scores"][k] for k in layer_keys])
            labels.append(int(chunk["hallucination_label"]))
            groups.append(str(row["source_id"]))
            responses.append(str(row["id"]))
    return FeatureSet.build(ecs, pks, labels, heads=heads, layers=layers, groups=groups, responses=responses)


def _evaluate(profile: RedeepProfile, data: FeatureSet) -> dict[str, float]:
    ecs, pks = data.columns_for(profile)
    unit = profile.token_scores(ecs, pks)
    resp, resp_y = response_scores(unit, data, profile.response_aggregation)
    out = {
        "auroc_response": auroc_or_nan(resp_y, resp),
        "auroc_chunk": auroc_or_nan(data.labels, unit),
        "pcc_response": pearson(resp, resp_y),
    }
    if isinstance(profile.combination, PaperCombination):
        # the paper's own response score: mean of the un-mapped chunk scores (no Platt map)
        raw = profile.combination.raw_score(ecs, pks)
        raw_resp, _ = response_scores(raw, data, "mean")
        out["auroc_response_raw_mean"] = auroc_or_nan(resp_y, raw_resp)
    return out


def parity(data: FeatureSet) -> dict[str, Any]:
    """Selection on the full set with the paper's sizes and beta (selection-on-test, as released)."""
    profile = fit_paper_profile(
        data,
        model=LLAMA2_7B,
        level="chunk",
        pks_mode="legacy",
        split="all 450 (selection on test, parity only)",
        selection=PaperSelection(3, 4, 0.6, float("nan")),
        aggregation="mean",
    )
    assert isinstance(profile.combination, PaperCombination)
    ecs, pks = data.columns_for(profile)
    raw_resp, resp_y = response_scores(profile.combination.raw_score(ecs, pks), data, "mean")
    return {
        "heads": [list(h) for h in profile.heads],
        "layers": profile.layers,
        "auroc_response": auroc_or_nan(resp_y, raw_resp),
        "pcc_response": pearson(raw_resp, resp_y),
        "paper": {"auroc": 0.7458, "pcc": 0.4203},
        "released_log": {"auroc": 0.74725, "pcc": 0.42072},
    }


def held_out(data: FeatureSet, n_splits: int, n_folds: int) -> dict[str, Any]:
    sources = np.unique(data.groups)
    results: dict[str, dict[str, list[float]]] = {}
    for seed in range(n_splits):
        rng = np.random.default_rng(1000 + seed)
        train_sources = set(rng.permutation(sources)[: sources.size // 2].tolist())
        in_train = np.array([g in train_sources for g in data.groups.tolist()])
        train, test = data.subset(in_train), data.subset(~in_train)
        split = f"half of the sources (seed {1000 + seed}), grouped by source_id"
        common: dict[str, Any] = {
            "model": LLAMA2_7B, "level": "chunk", "pks_mode": "legacy", "split": split,
            "n_folds": n_folds, "seed": seed,
        }  # fmt: skip
        fits = {
            "paper_mean": fit_paper_profile(train, aggregation="mean", **common),
            "paper_max": fit_paper_profile(train, aggregation="max", **common),
            "logistic_all_max": fit_logistic_profile(train, aggregation="max", **common),
            "logistic_all_mean": fit_logistic_profile(train, aggregation="mean", **common),
        }
        for name, profile in fits.items():
            for metric, value in _evaluate(profile, test).items():
                results.setdefault(name, {}).setdefault(metric, []).append(value)
            sizes = results[name].setdefault("n_heads", [])
            sizes.append(float(len(profile.heads)))
            results[name].setdefault("n_layers", []).append(float(len(profile.layers)))
    summary: dict[str, Any] = {}
    for name, metrics in results.items():
        summary[name] = {
            m: {
                "mean": float(np.mean(v)),
                "std": float(np.std(v, ddof=1)) if len(v) > 1 else 0.0,
                "min": float(np.min(v)),
                "max": float(np.max(v)),
            }
            for m, v in metrics.items()
        }
    return summary


def main(argv: list[str] | None = None) -> int:
    repo = Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=repo.parent / "shared" / "data" / "redeep")
    ap.add_argument(
        "--splits", type=int, default=25, help="random half/half source splits (>= 20 for the report)"
    )
    ap.add_argument("--folds", type=int, default=5, help="inner grouped CV folds on the training half")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    path = args.data / FILE
    if not path.exists():
        print(f"SKIP: {path} not found (the released ReDeEP chunk features; see ../shared/data/README.md)")
        return 0
    t0 = time.perf_counter()
    data = load_features(path)
    report: dict[str, Any] = {
        "data": {
            "chunks": data.n,
            "responses": int(np.unique(data.responses).size),
            "sources": int(np.unique(data.groups).size),
            "hallucinated_chunks": int(data.labels.sum()),
        },
        "parity_selection_on_test": parity(data),
        "held_out": held_out(data, args.splits, args.folds),
        "splits": args.splits,
    }
    report["seconds"] = round(time.perf_counter() - t0, 1)
    print(_table(report))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(f"figures written to {args.json}")
    return 0


def _table(report: dict[str, Any]) -> str:
    d, par = report["data"], report["parity_selection_on_test"]
    lines = [
        f"data: {d['responses']} responses / {d['chunks']} chunks / {d['sources']} sources, "
        f"{d['hallucinated_chunks']} hallucinated chunks",
        f"parity (paper's 3 heads, 4 layers, beta 0.6 selected on all 450; response = mean of chunks): "
        f"AUROC {par['auroc_response']:.5f} PCC {par['pcc_response']:.5f} "
        "(released log 0.74725 / 0.42072, paper 0.7458 / 0.4203); "
        f"heads {par['heads']} layers {par['layers']}",
        f"held-out over {report['splits']} half/half source splits (fit on one half, AUROC on the other): "
        "mean +- std [min, max]",
    ]
    for name, metrics in report["held_out"].items():
        cells = [
            f"{m} {v['mean']:.4f} +- {v['std']:.4f} [{v['min']:.4f}, {v['max']:.4f}]"
            for m, v in metrics.items()
            if m.startswith("auroc")
        ]
        sizes = f"|A| {metrics['n_heads']['mean']:.1f} |F| {metrics['n_layers']['mean']:.1f}"
        lines.append(f"  {name:<18} " + "; ".join(cells) + f"; {sizes}")
    lines.append(f"({report['seconds']} s)")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
