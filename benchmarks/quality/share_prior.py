"""The prior of supported words behind lexical support's shrunk unsupported share, chosen leave one domain
out: each prior's held-out AUROC with the shipped claims form, the prior chosen inside each split, and the
corruption benchmark's shares of the same fits.

    .venv/bin/python -m benchmarks.quality.share_prior [--scored .cache-data/corpus/scored.jsonl]
        [--corruption .cache-data/corruption/scored.jsonl]
        [--fit-corruptions .cache-data/corruption/fit_scored.jsonl]

The shipped claims calibrator reads ``lexical:raw.shrunk_unsupported_share``, the unweighted unsupported
share after adding ``SHARE_PRIOR_WORDS`` supported words. Here that share is worked out again for other
priors from the signal's raw counts (numbers, names and words, checked and unsupported), so every prior is
measured on the same scored rows; prior 0 is the plain share (``raw.unsupported_share``). Each is fitted
as the shipped form (``benchmarks.quality.fusion_forms``: evidence terms, the corruption fit set with the
values apart) on the shippable domains minus the held-out one. The rule picks the prior with the best macro
AUROC held out over every domain. **Nested**: for each held-out domain the prior is chosen on the other
shippable domains alone (each held out in turn), then measured on it, so the figure measures the choosing
too. The corruption benchmark is measured, never chosen on.
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Sequence

import numpy as np
from pydantic import JsonValue

from benchmarks.quality import fusion_forms as forms
from benchmarks.quality.corruption import summarise
from benchmarks.quality.multidomain import _auroc, domains_of
from calibration.build_corpus import SHIPPABLE
from trustscore._types import Signal
from trustscore.fitting._shipped import SHRUNK_SHARE
from trustscore.rows._scored import ScoredRow, label_column, read_scored

PRIORS = (0, 8, 16, 32, 48, 64, 128)
"""Supported words added before the share is taken; 0 is the plain share."""
_PLAIN = "lexical:raw.unsupported_share|identity"
_KINDS = ("number", "name", "word")
_REPORTED = ("paraphrase", "number", "name", "negation", "antonym")


def with_priors(row: ScoredRow) -> ScoredRow:
    """The row with a derived signal ``share_prior`` holding the shrunk share at each prior (``raw.k8``,
    ...), missing where lexical support is."""
    lexical = row.signals.get("lexical")
    if lexical is None or lexical.value is None or not isinstance(lexical.raw, dict):
        derived = Signal.failed("share_prior", "lexical support is missing")
    else:
        raw = lexical.raw
        checked = sum(_count(raw, f"{k}s", row) for k in _KINDS)
        missing = sum(_count(raw, f"{k}s_unsupported", row) for k in _KINDS)
        shares: dict[str, JsonValue] = {f"k{k}": missing / (checked + k) for k in PRIORS if k}
        derived = Signal(name="share_prior", value=1.0, raw=shares, version="share_prior/bench")
    return row.model_copy(update={"signals": {**row.signals, "share_prior": derived}})


def _count(raw: dict[str, JsonValue], key: str, row: ScoredRow) -> int:
    value = raw.get(key)
    if not isinstance(value, int):
        raise ValueError(
            f"row {row.id}: lexical raw.{key} is {value!r}, not a count: score the rows again with "
            "lexical support at lexical-support/16 or later"
        )
    return value


def features_for(prior: int) -> list[str]:
    """The shipped claims form's features with the share at ``prior`` (0: the plain share)."""
    share = _PLAIN if prior == 0 else f"share_prior:raw.k{prior}|identity"
    return [share if f == SHRUNK_SHARE else f for f in forms.SHIPPED]


def held_out(
    rows: Sequence[ScoredRow],
    corruptions: Sequence[ScoredRow],
    prior: int,
    domain: str,
    pool: Collection[str],
) -> float | None:
    """AUROC on ``domain``, fitted on the ``pool`` domains minus it and the corruptions of other contexts."""
    test = [i for i, r in enumerate(rows) if r.fields["dataset"] == domain]
    train = [r for r in rows if r.fields["dataset"] != domain and r.fields["dataset"] in pool]
    fit = forms._linear(features_for(prior), forms.SHIPPED_EVIDENCE, values_apart=True)
    predict = fit([*train, *forms.corruptions_for(corruptions, domain)])
    return _auroc(label_column(rows, forms.LABEL)[test], 1.0 - predict([rows[i] for i in test]))


def _percent(share: float | None) -> str:
    return "-" if share is None else f"{100 * share:.0f}%"


def _mean(values: Sequence[float | None]) -> float:
    return float(np.mean([v for v in values if v is not None]))


def main(argv: list[str] | None = None) -> int:
    args = forms.scored_files_parser(__doc__).parse_args(argv)
    for path in (args.scored, args.corruption, args.fit_corruptions):
        if not path.exists():
            print(f"SKIP: {path} not found; build and score the corpus and the corruption pairs first")
            return 0
    rows = [with_priors(r) for r in read_scored(args.scored)]
    corruptions = [with_priors(r) for r in read_scored(args.fit_corruptions)]
    pairs = [with_priors(r) for r in read_scored(args.corruption) if "kind" in r.fields]
    domains = domains_of(rows)
    table = {k: {d: held_out(rows, corruptions, k, d, SHIPPABLE) for d in domains} for k in PRIORS}
    train = [r for r in rows if r.fields["dataset"] in SHIPPABLE]
    print("## Leave one domain out (positive = hallucinated), and the corruption benchmark's shares\n")
    print("| prior | " + " | ".join(domains) + " | macro | " + " | ".join(_REPORTED) + " |")
    print("|---|" + "---|" * (len(domains) + 1 + len(_REPORTED)))
    for k in PRIORS:
        fit = forms._linear(features_for(k), forms.SHIPPED_EVIDENCE, values_apart=True)
        shares = summarise(pairs, fit([*train, *corruptions])(pairs).tolist())
        cells = [forms._f(table[k][d]) for d in domains] + [f"{_mean(list(table[k].values())):.4f}"]
        cells += [_percent(shares[s]) for s in _REPORTED]
        print(f"| {k or 'none'} | " + " | ".join(cells) + " |")
    best = max(PRIORS, key=lambda k: _mean(list(table[k].values())))
    print(f"\nThe rule (best macro held out over every domain) chooses the prior {best}.")
    print("\n## Nested: the prior chosen on the other shippable domains alone\n")
    print("| held-out domain | chosen prior | AUROC |")
    print("|---|---|---|")
    nested: list[float | None] = []
    for d in domains:
        inner = [p for p in SHIPPABLE if p != d]
        chosen = max(PRIORS, key=lambda k: _mean([held_out(rows, corruptions, k, e, inner) for e in inner]))
        nested.append(table[chosen][d])
        print(f"| {d} | {chosen} | {forms._f(table[chosen][d])} |")
    print(f"\nNested macro {_mean(nested):.4f}; the plain share's {_mean(list(table[0].values())):.4f}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
