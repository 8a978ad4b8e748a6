"""LexicalSupport: how much of what the response states is written somewhere in the context.

Each number, name and content word of the response is looked up, after folding (case, suffixes,
"1,000" = "1000", "five" = "5"), among the words of the context (and of the question). The
signal is ``1 - weighted unsupported share``: numbers and names weigh 1, content words weigh by
rarity (wordfreq Zipf frequency, read by :mod:`trustscore.word_frequency`), because an invented rare
word is far more telling than a common one. Millisecond-fast and model-free: the offline baseline
every other signal is compared with.

The share is taken after adding ``lexical_prior_weight`` of supported evidence to every response:
a plain share puts a short exact answer with one unmatched word ("approximately 1998") at 50%
unsupported, as low as a long answer that invents half of what it says. ``raw`` keeps the plain share
(``weighted_unsupported_share``) and the response and context lengths in words.
"""

from __future__ import annotations

import time
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version

import anyio
from pydantic import JsonValue

from trustscore.deadline import checkpoint
from trustscore.grounding.config import GroundingConfig
from trustscore.grounding.text import Word, support_keys, words
from trustscore.hashing import canonical_json, short_hash
from trustscore.types import Sample, Signal, Span, Usage
from trustscore.word_frequency import zipf_frequency

__all__ = ["LexicalSupport", "word_weight"]

_METHOD = "lexical-support/3"
_KINDS = ("number", "name", "word")
_NAME_WEIGHT_FLOOR = 0.5


@lru_cache(maxsize=65536)
def _rarity(word: str) -> float:
    """0.05 for the commonest English words up to 1 for rare ones (Zipf 7 -> 0, Zipf <= 3 -> 1)."""
    return min(1.0, max(0.05, (7.0 - zipf_frequency(word)) / 4.0))


def word_weight(word: Word) -> float:
    """How much an unsupported ``word`` counts against the response."""
    if word.kind == "number":
        return 1.0
    rarity = _rarity(word.text.casefold())
    return max(_NAME_WEIGHT_FLOOR, rarity) if word.kind == "name" else rarity


class LexicalSupport:
    """A :class:`~trustscore.sources.LocalSignal` named ``"lexical"`` (higher = better supported)."""

    name = "lexical"

    def __init__(self, config: GroundingConfig | None = None) -> None:
        self.config = config or GroundingConfig()
        self.version = (
            f"{_METHOD}+"
            + short_hash(
                canonical_json(
                    {"q": self.config.lexical_question_support, "prior": self.config.lexical_prior_weight}
                ),
                8,
            )
        )

    async def run(self, sample: Sample) -> Signal:
        return await anyio.to_thread.run_sync(self.score, sample)

    def cache_identity(self) -> str | None:
        """The version and the wordfreq release whose word frequencies weigh the words."""
        try:
            return canonical_json([self.version, version("wordfreq")])
        except PackageNotFoundError:
            return None

    def score(self, sample: Sample) -> Signal:
        """The signal for one sample, computed in the calling thread."""
        began = time.perf_counter()
        if not sample.has_context:
            return self._failed(
                "no context: lexical support checks the response against the retrieved passages; "
                "pass context=[...]",
                began,
            )
        claimed = words(sample.response)
        if not claimed:
            return self._failed("the response has no content words, numbers or names to check", began)
        supported = support_keys(sample.context_text)
        if self.config.lexical_question_support:
            supported = supported | support_keys(sample.question)

        totals = dict.fromkeys(_KINDS, 0)
        misses = dict.fromkeys(_KINDS, 0)
        total_weight = missing_weight = 0.0
        spans: list[Span] = []
        for n, w in enumerate(claimed):
            if n % 4096 == 0:
                checkpoint()  # the score budget can stop a huge response here
            weight = word_weight(w)
            totals[w.kind] += 1
            total_weight += weight
            if w.key not in supported:
                misses[w.kind] += 1
                missing_weight += weight
                spans.append(
                    Span(start=w.start, end=w.end, text=w.text, score=round(weight, 4), label=w.kind)
                )

        weighted_share = missing_weight / total_weight
        smoothed_share = missing_weight / (total_weight + self.config.lexical_prior_weight)
        raw: dict[str, JsonValue] = {
            "smoothed_unsupported_share": round(smoothed_share, 6),
            "weighted_unsupported_share": round(weighted_share, 6),
            "response_words": len(sample.response.split()),
            "context_words": len(sample.context_text.split()),
            "unsupported_share": round(sum(misses.values()) / len(claimed), 6),
        }
        for kind in _KINDS:
            raw[f"{kind}s"] = totals[kind]
            raw[f"{kind}s_unsupported"] = misses[kind]
            # None, not 0, when the response has no word of that kind: nothing was checked.
            raw[f"{kind}s_unsupported_share"] = (
                round(misses[kind] / totals[kind], 6) if totals[kind] else None
            )
        explanation = f"{sum(misses.values())} of {len(claimed)} checked words are not in the context" + (
            f" (numbers: {misses['number']}/{totals['number']})" if totals["number"] else ""
        )
        return Signal(
            name=self.name,
            value=min(1.0, max(0.0, 1.0 - smoothed_share)),
            raw=raw,
            explanation=explanation,
            spans=spans,
            usage=Usage(seconds=time.perf_counter() - began),
            version=self.version,
        )

    def _failed(self, reason: str, began: float) -> Signal:
        return Signal.failed(
            self.name, reason, usage=Usage(seconds=time.perf_counter() - began), version=self.version
        )
