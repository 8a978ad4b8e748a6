"""LexicalSupport: how much of what the response states is written somewhere in the context.

Each number, name and content word of the response is looked up, after folding (case, suffixes,
"1,000" = "1000", "five" = "5"), among the words of the context (and of the question). All three
are first normalised (:mod:`trustscore.grounding._normalize`: NFKC, no zero-width or bidi controls, a
Cyrillic "о" in a Latin word read as "o"), so "１９９８" and "19\u200b98" match "1998"; spans point
into the original response. The
signal is ``1 - weighted unsupported share``: numbers and names weigh 1, content words weigh by
rarity (wordfreq Zipf frequency, read by :mod:`trustscore.textmodels._word_frequency`), because an invented
rare word is far more telling than a common one. Millisecond-fast and model-free: the offline baseline
every other signal is compared with.

The share is taken after adding ``prior_weight`` of supported evidence to every response:
a plain share puts a short exact answer with one unmatched word ("approximately 1998") at 50%
unsupported, as low as a long answer that invents half of what it says. ``raw`` keeps the plain share
(``weighted_unsupported_share``) and the response and context lengths in words, and the unweighted
share both plain (``unsupported_share``) and shrunk toward zero by :data:`SHARE_PRIOR_WORDS` supported
words (``shrunk_unsupported_share``), which the fused model with the claims signal reads.

``raw`` also carries parts that catch what a whole-response bag of words misses, for a fused model to
weigh: the worst sentence's share (``sentence_max_unsupported_share``: one invented sentence in a long
answer), the amount invented (``log_unsupported_weight``), and adjacent response words that are each in
the context but never near each other there (``pairs_unsupported_share``; ``ordered_...`` also counts a
reversed order, as in swapped roles).

A number that cites one of the context's passages ("According to Passage 2") is not looked up
(:mod:`trustscore.grounding._citations`). A name and its initials in capitals vouch for each other:
"New York" where the context writes "NY", "UN" where it writes "United Nations"
(:mod:`trustscore.grounding._initials`).
"""

from __future__ import annotations

import math
import time
from bisect import bisect_right
from functools import lru_cache
from itertools import pairwise

import anyio
from pydantic import JsonValue

from trustscore._types import Sample, Signal, Span, Usage
from trustscore.compute._deadline import checkpoint
from trustscore.core._hashing import canonical_json, short_hash
from trustscore.grounding._citations import PassageCitations
from trustscore.grounding._config import LexicalConfig
from trustscore.grounding._initials import initialled_runs
from trustscore.grounding._normalize import Normalized, normalize
from trustscore.grounding._polar import PolarReply, polar_reply
from trustscore.grounding._screen import SCREEN, screened_out
from trustscore.grounding._text import (
    WORD_CACHE_SIZE,
    Word,
    is_supported,
    pair_keys,
    split_sentences,
    support_keys,
    words,
)
from trustscore.textmodels._word_frequency import table_source, zipf_frequency

__all__ = ["LexicalSupport", "word_weight"]

_METHOD = "lexical-support/16"
_NORMALIZATION = "nfkc-cf-latin-lookalikes/1"
"""What :func:`normalize` does, in the cache identity. Not in the version: on text it leaves as it is
(plain ASCII, most text) the signal is unchanged, so calibrators fitted on this version still apply."""
_KINDS = ("number", "name", "word")
_NAME_WEIGHT_FLOOR = 0.5
SHARE_PRIOR_WORDS = 48
"""Supported words added to every response before ``raw["shrunk_unsupported_share"]`` is taken. Over the
five checked words of a one-sentence answer the plain share is mostly noise (two reworded words make it
0.4, as high as a long answer that invents two words in five); shrunk by this prior, a short answer reads
as the number of words it leaves unsupported, a long one as its share. Chosen leave one domain out on
the calibration corpus (``python -m benchmarks.quality.share_prior``)."""


@lru_cache(maxsize=WORD_CACHE_SIZE)
def _rarity(word: str) -> float:
    """0.05 for the commonest English words up to 1 for rare ones (Zipf 7 -> 0, Zipf <= 3 -> 1)."""
    return min(1.0, max(0.05, (7.0 - zipf_frequency(word)) / 4.0))


@lru_cache(maxsize=64)
def _normalized(text: str) -> str:
    """The context's (or question's) normalised text, memoised like the keys read from it: the
    responses that share a context normalise it once."""
    return normalize(text).text


def word_weight(word: Word) -> float:
    """How much an unsupported ``word`` counts against the response."""
    if word.kind == "number":
        return 1.0
    rarity = _rarity(word.text.casefold())
    return max(_NAME_WEIGHT_FLOOR, rarity) if word.kind == "name" else rarity


class LexicalSupport:
    """A :class:`~trustscore.signals.LocalSignal` named ``"lexical"`` (higher = better supported)."""

    name = "lexical"
    kind = "local"

    def __init__(self, config: LexicalConfig | None = None) -> None:
        self.config = config or LexicalConfig()
        self.version = f"{_METHOD}+" + short_hash(
            canonical_json({"q": self.config.question_support, "prior": self.config.prior_weight}),
            8,
        )

    async def run(self, sample: Sample) -> Signal:
        return await anyio.to_thread.run_sync(self.score, sample)

    def cache_identity(self) -> str | None:
        """The version, the wordfreq release whose word frequencies weigh the words (the shipped
        table's source), and the screening of abstentions and other languages."""
        return canonical_json([self.version, table_source(), _NORMALIZATION, SCREEN])

    def score(self, sample: Sample) -> Signal:
        """The signal for one sample, computed in the calling thread."""
        began = time.perf_counter()
        if not sample.has_context:
            return self._failed(
                "no context: lexical support checks the response against the retrieved passages; "
                "pass context=[...]",
                began,
            )
        if (screened := screened_out(self.name, self.version, sample, began)) is not None:
            return screened
        reply = polar_reply(sample.question, sample.response)
        checked = sample if reply is None else reply.sample(sample)
        response = normalize(checked.response)
        context, question = _normalized(checked.context_text), _normalized(checked.question)
        claimed = _claimed(response, sum(1 for p in checked.context if p.strip()), reply)
        if not claimed:
            return self._failed("the response has no content words, numbers or names to check", began)
        supported = support_keys(context)
        if self.config.question_support:
            supported = supported | support_keys(question)
        initialled = initialled_runs(claimed, response.text, supported)
        if initialled:  # "New York" where the context writes "NY": its words, and their pairs
            supported = supported | {key for run in initialled for key in run}

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
            if not is_supported(w, supported):
                misses[w.kind] += 1
                missing_weight += weight
                spans.append(_span(w, weight, response, reply, sample.response))

        sentence_max = _sentence_max_share(response.text, claimed, supported, self.config.prior_weight)
        near = [pair_keys(context), frozenset(pair for run in initialled for pair in pairwise(run))]
        if self.config.question_support:
            near.append(pair_keys(question))  # looked up beside the context's: no copy of a huge set
        pairs = _unsupported_pairs(claimed, supported, near)
        weighted_share = missing_weight / total_weight
        smoothed_share = missing_weight / (total_weight + self.config.prior_weight)
        raw: dict[str, JsonValue] = {
            "smoothed_unsupported_share": round(smoothed_share, 6),
            "weighted_unsupported_share": round(weighted_share, 6),
            "response_words": len(checked.response.split()),
            "context_words": len(sample.context_text.split()),
            "unsupported_share": round(sum(misses.values()) / len(claimed), 6),
            "shrunk_unsupported_share": round(sum(misses.values()) / (len(claimed) + SHARE_PRIOR_WORDS), 6),
            # How much is invented, not what share: a long answer that adds three unsupported claims
            # is worse than a short one adding one, at the same share. ln(1 + rarity-weighted count).
            "log_unsupported_weight": round(math.log1p(missing_weight), 6),
            "sentence_max_unsupported_share": round(sentence_max, 6),
            # None when no two adjacent checked words are both supported: no pair to check.
            "pairs_unsupported_share": None if pairs is None else round(pairs[0], 6),
            "ordered_pairs_unsupported_share": None if pairs is None else round(pairs[1], 6),
        }
        raw.update(_per_kind(totals, misses))
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


def _span(word: Word, weight: float, response: Normalized, reply: PolarReply | None, text: str) -> Span:
    """The span of an unsupported word in the response as given (a word of the question a yes or no
    states: the reply)."""
    start, end = response.original_span(word.start, word.end)
    if reply is not None:
        start, end = reply.in_response(start, end)
    return Span(start=start, end=end, text=text[start:end], score=round(weight, 4), label=word.kind)


def _claimed(response: Normalized, passages: int, reply: PolarReply | None = None) -> list[Word]:
    """The words of the checked response to look up: all but the numbers that cite a passage, and for
    a no to a yes/no question (``reply``) all but the numbers and names of the question it denies."""
    text = response.text
    found = words(text)
    if reply is not None and reply.denied:
        found = [
            w for w in found if w.kind == "word" or not reply.asks(response.original_span(w.start, w.end)[0])
        ]
    cited = PassageCitations(text, passages)
    if not cited:
        return found
    return [w for w in found if not (w.kind == "number" and cited.cover(w.start, w.end))]


def _sentence_max_share(text: str, claimed: list[Word], supported: frozenset[str], prior: float) -> float:
    """The largest smoothed, weighted unsupported share of any one sentence of ``text``.

    The whole-response share dilutes one invented sentence among many faithful ones (a long answer that
    adds one wrong claim); the worst sentence does not. The same prior as the signal's value keeps a
    one-word sentence ("Yes.") from reading as wholly invented.
    """
    starts = [p.start for p in split_sentences(text)] or [0]
    totals = [0.0] * len(starts)
    missing = [0.0] * len(starts)
    for n, w in enumerate(claimed):
        if n % 4096 == 0:
            checkpoint()
        i = max(0, bisect_right(starts, w.start) - 1)
        weight = word_weight(w)
        totals[i] += weight
        if not is_supported(w, supported):
            missing[i] += weight
    return max(m / (t + prior) for m, t in zip(missing, totals, strict=True) if t > 0)


def _unsupported_pairs(
    claimed: list[Word], supported: frozenset[str], near: list[frozenset[tuple[str, str]]]
) -> tuple[float, float] | None:
    """Among adjacent checked words of the response that are each supported, the share of pairs that
    never occur near each other in the context (or question) in either order, and in the response's
    order: every word is there, but put together differently (a figure moved to another item; "Jones
    beat Smith" when the context says Smith beat Jones fails only the ordered check). None when there
    is no such pair."""
    checked = apart = reordered = 0
    for n, (a, b) in enumerate(pairwise(claimed)):
        if n % 4096 == 0:
            checkpoint()
        if not (is_supported(a, supported) and is_supported(b, supported)) or a.key == b.key:
            continue
        checked += 1
        forward = any((a.key, b.key) in keys for keys in near)
        backward = any((b.key, a.key) in keys for keys in near)
        apart += not (forward or backward)
        reordered += not forward
    return (apart / checked, reordered / checked) if checked else None


def _per_kind(totals: dict[str, int], misses: dict[str, int]) -> dict[str, JsonValue]:
    """Checked and unsupported words of each kind, and their share (None, not 0, when the response has
    no word of that kind: nothing was checked)."""
    out: dict[str, JsonValue] = {}
    for kind in _KINDS:
        out[f"{kind}s"] = totals[kind]
        out[f"{kind}s_unsupported"] = misses[kind]
        out[f"{kind}s_unsupported_share"] = round(misses[kind] / totals[kind], 6) if totals[kind] else None
    return out
