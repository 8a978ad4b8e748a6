"""How a trained detector scores: response AUROC on the validation rows during training, and the
held-out report (predictions, metrics per task, the lexical baseline, the verdict).

The held-out report scores the rows with the same windowed inference as the ``lettucedetect`` signal.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from trustscore._types import Sample
from trustscore.encoders._lettucedetect import LettuceDetectSignal
from trustscore.fitting._detector_data import pad_batch
from trustscore.rows._labeled import LabeledRow

__all__ = [
    "heldout_report",
    "lexical_baseline",
    "log_stderr",
    "predict_rows",
    "summarize",
    "validation_auroc",
    "verdict",
]


def log_stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def heldout_report(
    signal: LettuceDetectSignal,
    heldout: Sequence[LabeledRow],
    baseline: Callable[[Sample], float | None] | None,
    detector: Path,
    log: Callable[[str], None],
) -> dict[str, Any]:
    """Score the held-out rows (predictions to ``detector/heldout_predictions.jsonl``) and compare with
    the baseline: the report's ``heldout``, ``beats_baseline`` and ``verdict``."""
    predictions = predict_rows(signal, heldout, log=log)
    with (detector / "heldout_predictions.jsonl").open("w") as f:
        f.writelines(json.dumps(p) + "\n" for p in predictions)
    by_id = {r.sample.id: r for r in heldout}
    base_scores = {p["id"]: baseline(by_id[p["id"]].sample) for p in predictions} if baseline else None
    summary = summarize(predictions, base_scores)
    summary["not_scored"] = len(heldout) - len(predictions)
    beats, sentence = verdict(summary)
    log(f"train-detector: {sentence}")
    return {"heldout": summary, "beats_baseline": beats, "verdict": sentence}


def validation_auroc(
    model: Any, checks: Sequence[tuple[dict[str, list[int]], bool]], pad: int, device: str, batch_size: int
) -> float | None:
    """Response AUROC on the validation rows: each scored by its answer tokens' highest P(hallucinated),
    in one window (the context cut to fit), as training sees them."""
    import torch

    from trustscore.stats._metrics import auroc

    labels = [int(h) for _, h in checks]
    if not 0 < sum(labels) < len(labels):
        return None
    scores: list[float] = []
    model.eval()
    try:
        with torch.inference_mode():
            for start in range(0, len(checks), batch_size):
                ids, answer_labels, mask = pad_batch([e for e, _ in checks[start : start + batch_size]], pad)
                logits = model(input_ids=ids.to(device), attention_mask=mask.to(device)).logits
                probs = logits.float().softmax(-1)[..., 1].cpu().masked_fill(answer_labels == -100, 0.0)
                scores.extend(probs.max(dim=1).values.tolist())
    finally:
        model.train()
    return float(auroc(labels, scores))


def verdict(heldout: dict[str, Any]) -> tuple[bool | None, str]:
    """Whether the detector beats the lexical baseline on the held-out rows, and a sentence saying so
    (macro AUROC over tasks where every task has both classes, else pooled)."""
    macro = heldout["macro"]
    pooled = heldout["pooled"]
    which, scores = ("macro", macro) if macro.get("baseline_auroc") is not None else ("pooled", pooled)
    mine, base = scores.get("auroc_on_baseline_rows"), scores.get("baseline_auroc")
    if mine is None or base is None:
        return None, "no comparison with the lexical baseline: the held-out rows lack a class or a baseline"
    figures = f"{which} AUROC {mine:.3f} against the lexical baseline's {base:.3f} on the same held-out rows"
    if mine <= base:
        return False, (
            f"the detector does NOT beat the lexical baseline: {figures}; it adds nothing the offline "
            "default does not already have (more data, epochs or a larger base may help)"
        )
    return True, f"the detector beats the lexical baseline: {figures}"


def lexical_baseline(sample: Sample) -> float | None:
    """P(hallucinated) by the lexical signal: 1 - its value (None when it is missing)."""
    from trustscore.grounding._lexical import LexicalSupport

    signal = LexicalSupport().score(sample)
    return None if signal.value is None else 1.0 - signal.value


def _f1(tp: int, fp: int, fn: int) -> float | None:
    return None if tp + fp + fn == 0 else 2 * tp / (2 * tp + fp + fn)


def predict_rows(
    signal: LettuceDetectSignal,
    rows: Sequence[LabeledRow],
    *,
    batch: int = 16,
    log: Callable[[str], None] = log_stderr,
) -> list[dict[str, Any]]:
    """Per held-out row: its label, the detector's max token probability and token-level counts."""
    out: list[dict[str, Any]] = []
    threshold = signal.config.threshold
    for start in range(0, len(rows), batch):
        chunk = rows[start : start + batch]
        try:
            scored = list(zip(chunk, signal.token_scores([r.sample for r in chunk]), strict=True))
        except ValueError:  # some answer does not fit a window: score the others one by one
            scored = []
            for r in chunk:
                try:
                    scored.append((r, signal.token_scores([r.sample])[0]))
                except ValueError as e:
                    log(f"train-detector: held-out row {r.sample.id} not scored: {e}")
        for row, ts in scored:
            gold = [any(b > s and a < e for s, e in row.spans) for a, b in ts.offsets]
            pred = [p > threshold for p in ts.probs]
            out.append(
                {
                    "id": row.sample.id,
                    "task": row.task,
                    "hallucinated": row.hallucinated,
                    "score": max(ts.probs),
                    "windows": ts.windows,
                    "tp": sum(g and p for g, p in zip(gold, pred, strict=True)),
                    "fp": sum(p and not g for g, p in zip(gold, pred, strict=True)),
                    "fn": sum(g and not p for g, p in zip(gold, pred, strict=True)),
                }
            )
        log(f"train-detector: evaluated {len(out)}/{len(rows)} held-out rows")
    return out


def summarize(
    predictions: Sequence[dict[str, Any]],
    baseline: dict[str, float | None] | None = None,
    threshold: float = 0.5,
) -> dict[str, Any]:
    """Token F1, example F1 and AUROC, pooled, per task and macro over tasks, beside the baseline's AUROC."""
    from trustscore.stats._metrics import auroc

    def safe_auroc(y: list[int], p: list[float]) -> float | None:
        return auroc(y, p) if 0 < sum(y) < len(y) else None

    def metrics(items: list[dict[str, Any]]) -> dict[str, Any]:
        y = [int(it["hallucinated"]) for it in items]
        ex = [int(it["score"] > threshold) for it in items]
        out = {
            "rows": len(items),
            "hallucinated": sum(y),
            "token_f1": _f1(*(sum(it[k] for it in items) for k in ("tp", "fp", "fn"))),
            "example_f1": _f1(
                sum(a & b for a, b in zip(y, ex, strict=True)),
                sum((1 - a) & b for a, b in zip(y, ex, strict=True)),
                sum(a & (1 - b) for a, b in zip(y, ex, strict=True)),
            ),
            "auroc": safe_auroc(y, [it["score"] for it in items]),
        }
        if baseline is not None:
            both = [
                (int(it["hallucinated"]), it["score"], baseline[it["id"]])
                for it in items
                if baseline.get(it["id"]) is not None
            ]
            out["baseline_rows"] = len(both)
            out["auroc_on_baseline_rows"] = safe_auroc([b[0] for b in both], [b[1] for b in both])
            out["baseline_auroc"] = safe_auroc([b[0] for b in both], [b[2] for b in both])  # type: ignore[misc]
        return out

    tasks = sorted({p["task"] for p in predictions})
    per_task = {t: metrics([p for p in predictions if p["task"] == t]) for t in tasks}
    keys = ["token_f1", "example_f1", "auroc"] + (
        ["auroc_on_baseline_rows", "baseline_auroc"] if baseline else []
    )

    def macro(key: str) -> float | None:
        vals = [m[key] for m in per_task.values() if m.get(key) is not None]
        return sum(vals) / len(vals) if vals and len(vals) == len(per_task) else None

    return {"pooled": metrics(list(predictions)), "per_task": per_task, "macro": {k: macro(k) for k in keys}}
