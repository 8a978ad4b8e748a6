"""What keeps a paraphrase of the corruption benchmark under the line or under an error of its context.

Printed by ``python -m benchmarks.quality.corruption`` after its main table. A paraphrase (a faithful
RAGTruth response's own sentence) loses to an error of its context when the fused score puts the error
at or above it. The error is either **its own sentence** with one fact changed (no context sentence
states it, so no copy can be compared) or a **copied** context sentence with one fact changed. For its
own sentence the report says how each signal alone orders the pair: right (the paraphrase higher),
tied, or wrong; a signal that did not score one of the two counts as unscored. Paraphrases under 0.5
are counted per context domain, with how many the claims signal checked and found no atom
contradicted or unsupported: those the fused score holds down for their low overlap alone.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from trustscore.rows._scored import ScoredRow

ORDERS = ("right", "tie", "wrong", "unscored")


def _order(paraphrase: float | None, error: float | None) -> str:
    if paraphrase is None or error is None:
        return "unscored"
    if paraphrase > error:
        return "right"
    return "tie" if paraphrase == error else "wrong"


def _or_unflagged(error_score: float | None) -> float:
    return 1.0 if error_score is None else error_score


def _value(row: ScoredRow, signal: str) -> float | None:
    found = row.signals.get(signal)
    return None if found is None else found.value


def _all_supported(row: ScoredRow) -> bool:
    claims = row.signals.get("claims")
    raw = claims.raw if claims is not None and claims.value is not None else None
    if not isinstance(raw, dict) or raw.get("outcome") != "checked":
        return False
    return raw.get("contradicted") == 0 and raw.get("unsupported") == 0


def paraphrase_losses(rows: Sequence[ScoredRow], scores: Sequence[float | None]) -> str:
    """The report: who beats each losing paraphrase, how the signals order its own sentence's errors,
    and the paraphrases under 0.5 per domain. A missing fused score counts as 1.0 for an error (not
    flagged) and leaves a paraphrase out, as the benchmark's own ranking share does."""
    score = {str(r.id): s for r, s in zip(rows, scores, strict=True)}
    errors: dict[str, list[ScoredRow]] = defaultdict(list)
    for r in rows:
        if r.fields["hallucinated"]:
            errors[str(r.fields["source_id"])].append(r)
    signals = sorted({n for r in rows for n in r.signals})
    beaten_by: Counter[str] = Counter()
    own_kinds: Counter[str] = Counter()
    orders: dict[str, Counter[str]] = {n: Counter() for n in signals}
    ranked = 0
    low: Counter[str] = Counter()
    low_supported: Counter[str] = Counter()
    for p in rows:
        own = score[str(p.id)]
        if p.fields["kind"] != "paraphrase" or own is None:
            continue
        domain = str(p.fields.get("context_domain", "-"))
        if own < 0.5:
            low[domain] += 1
            low_supported[domain] += _all_supported(p)
        rivals = errors[str(p.fields["source_id"])]
        if not rivals:
            continue
        ranked += 1
        winners = [e for e in rivals if _or_unflagged(score[str(e.id)]) >= own]
        if not winners:
            continue
        own_sentence = [e for e in winners if str(e.fields.get("faithful_of")) == str(p.id)]
        copied = len(winners) - len(own_sentence)
        beaten_by["both" if own_sentence and copied else "own sentence" if own_sentence else "copied"] += 1
        for e in own_sentence:
            own_kinds[str(e.fields["kind"])] += 1
            for n in signals:
                orders[n][_order(_value(p, n), _value(e, n))] += 1
    lost = sum(beaten_by.values())
    lines = [
        f"Paraphrases at or under an error of their own context (fused): {lost} of {ranked}: "
        f"beaten only by their own sentence changed {beaten_by['own sentence']}, only by a copied "
        f"context sentence changed {beaten_by['copied']}, by both {beaten_by['both']}.",
        "",
        f"Their own sentence changed, at or above them ({sum(own_kinds.values())} pairs: "
        + ", ".join(f"{k} {n}" for k, n in sorted(own_kinds.items(), key=lambda kn: (-kn[1], kn[0])))
        + "); each signal alone orders the pair:",
        "",
        "| signal | " + " | ".join(ORDERS) + " |",
        "|---|" + "---|" * len(ORDERS),
    ]
    lines += [f"| {n} | " + " | ".join(str(orders[n][o]) for o in ORDERS) + " |" for n in signals]
    lines += [
        "",
        f"Paraphrases under 0.5 (fused): {sum(low.values())}; per context domain, with how many "
        "the claims signal checked and found nothing contradicted or unsupported:",
        "",
        "| context domain | under 0.5 | every checked atom supported |",
        "|---|---|---|",
    ]
    lines += [f"| {d} | {low[d]} | {low_supported[d]} |" for d in sorted(low)]
    return "\n".join(lines)
