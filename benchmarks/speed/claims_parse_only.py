"""``trustscore`` with a claims signal that only parses: the floor of the claims signal's cost.

    python -m benchmarks.speed.claims_parse_only score ROWS.jsonl -o OUT.jsonl [trustscore options]

Runs the ``trustscore`` command line with :meth:`ClaimsCheck.score` replaced by the spaCy work alone:
the response parsed, the context and the question parsed once per process (kept as the signal keeps
them), no fact read and nothing compared; the signal is then missing ("parse only") and the fused score
is the other signals'. ``benchmarks.speed.bench_claims --cold-run`` runs it beside the default
configuration: what no change to the checks can take below, for as long as every text is parsed.
"""

from __future__ import annotations

import sys

from trustscore._types import Sample, Signal
from trustscore.cli import main
from trustscore.grounding.claims._parse_cache import ParseCache
from trustscore.grounding.claims._signal import ClaimsCheck, normalise

_PARSED: ParseCache[object] = ParseCache(4_000_000)
"""Contexts and questions parsed once per process, bounded as the signal's own cache is."""


def parse_only(self: ClaimsCheck, sample: Sample) -> Signal:
    """Every text the signal reads, parsed as the signal parses it; no check."""
    if sample.response.strip():
        self.pipeline.parse(normalise(sample.response))
    for text in (sample.context_text, sample.question):
        if text.strip():
            _PARSED.get(self.pipeline.release, normalise(text), self.pipeline.parse)
    return Signal.failed(self.name, "parse only", version=self.version)


if __name__ == "__main__":
    ClaimsCheck.score = parse_only  # type: ignore[method-assign]
    sys.exit(main(sys.argv[1:]))
