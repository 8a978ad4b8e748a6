"""How long one spaCy call of the claims check takes on text of punctuation, as the pieces are cut.

    .venv/bin/python -m benchmarks.speed.bench_claims_pieces [--repeats 3]

Three texts of 20,000 characters (``([`` repeated, brackets nested 10,000 deep, prose with years and
times) are cut by :func:`trustscore.grounding.claims._pipeline.pieces` and each piece parsed alone;
also cut by characters only (the old 5,000-character pieces), side by side. Reports, per text and
cut, the pieces and the longest and total parse seconds: min / median / max over the repeats. The
longest call is what the budget cannot interrupt.
"""

from __future__ import annotations

import argparse
import statistics
import time

from trustscore.grounding.claims._pipeline import PIECE_CHARS, PIECE_TOKENS, Pipeline, find_pipeline, pieces

TEXTS = {
    "([ x 10,000": "([" * 10_000,
    "nested 10,000 deep": "(" * 10_000 + "x" + ")" * 10_000,
    "prose": ("The museum opened in 1998 at 10:30. " * 600)[:20_000],
}
CUTS = {"characters only": 10**9, "characters and tokens": PIECE_TOKENS}


def _spread(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    nlp = Pipeline(find_pipeline(None))._nlp
    print("| text | cut | pieces | longest call s (min / median / max) | total s (min / median / max) |")
    print("|---|---|---|---|---|")
    for name, text in TEXTS.items():
        for cut, max_tokens in CUTS.items():
            parts = pieces(text, PIECE_CHARS, max_tokens)
            longest, total = [], []
            for _ in range(args.repeats):
                times = []
                for part in parts:
                    began = time.perf_counter()
                    nlp(part)
                    times.append(time.perf_counter() - began)
                longest.append(max(times))
                total.append(sum(times))
            print(f"| {name} | {cut} | {len(parts)} | {_spread(longest)} | {_spread(total)} |")


if __name__ == "__main__":
    main()
