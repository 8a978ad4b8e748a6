"""Responses the word-matching grounding signals do not check: abstentions and answers in another
language than the context. Both read as "unsupported" to a word or sentence match although nothing
in them is invented; the signals report them as missing with this reason and an ``outcome`` in
``raw`` (``"abstention"`` or ``"other_language"``) instead.
"""

from __future__ import annotations

import time

from trustscore._types import ABSTENTION, Sample, Signal, Usage
from trustscore.grounding._abstention import abstention
from trustscore.grounding._language import language_mismatch

__all__ = ["SCREEN", "screened_out", "unchecked"]

SCREEN = "screen/4"
"""Part of the cache identity of every signal that screens its samples here: a cached result from
before a sample was screened (or screened differently) is not replayed."""


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
    return None


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
