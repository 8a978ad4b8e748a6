"""Responses the word-matching grounding signals do not check: abstentions, answers in another
language than the context, and answers with nothing to check. The first two read as "unsupported" to
a word or sentence match although nothing in them is invented; the last ("r", "It is.", "B") has no
content word, number or name, and a sentence match would compare the question instead (a short
answer is embedded with its question), passing it as "supported". The signals report them as missing
with this reason and an ``outcome`` in ``raw`` (``"abstention"``, ``"other_language"`` or
``"nothing_to_check"``) instead.
"""

from __future__ import annotations

import time

from trustscore._types import ABSTENTION, Sample, Signal, Usage
from trustscore.grounding._abstention import abstention
from trustscore.grounding._language import language_mismatch
from trustscore.grounding._normalize import normalize
from trustscore.grounding._text import has_negation, words

__all__ = ["SCREEN", "screened_out", "unchecked"]

SCREEN = "screen/6"
"""Part of the cache identity of every signal that screens its samples here: a cached result from
before a sample was screened (or screened differently) is not replayed."""


_LAST_LATIN = 0x24F
"""The last code point of Latin Extended-B."""


def unchecked(sample: Sample) -> tuple[str, str] | None:
    """``(outcome, reason)`` when the response is not to be checked word by word, else None."""
    declined = abstention(sample.response)
    if declined is not None:
        return (
            ABSTENTION,
            f'abstention: the response declines to answer ("{declined}"); it states no claim to check',
        )
    foreign = language_mismatch(sample.response, sample.context_text)
    if foreign is not None:
        return "other_language", foreign
    if _says_nothing(sample.response):
        return "nothing_to_check", "the response has no content words, numbers or names to check"
    return None


def _says_nothing(response: str) -> bool:
    """No content word, number or name (the word match's own test), no negation ("It is not." answers
    as "No." does) and no letter beyond the Latin alphabets (the word match reads those scripts'
    one-letter words as too short, yet "是" answers and "李" is a name)."""
    text = normalize(response).text
    return (
        not words(text, kinds=False)
        and not has_negation(text)
        and not any(c.isalpha() and ord(c) > _LAST_LATIN for c in text)
    )


def screened_out(name: str, version: str, sample: Sample, began: float) -> Signal | None:
    """The missing signal ``name`` gives for a response it does not check (:func:`unchecked`), with the
    outcome in ``raw``; None when the response is to be checked."""
    screened = unchecked(sample)
    if screened is None:
        return None
    outcome, reason = screened
    seconds = time.perf_counter() - began
    usage = Usage(seconds=seconds)
    return Signal.failed(name, reason, raw={"outcome": outcome}, usage=usage, version=version)
