"""What a fake server is asked (:class:`FakeRequest`) and what a policy tells it to say (:class:`FakeAnswer`).

A *policy* is any function, sync or async, from a :class:`FakeRequest` to a :data:`Reply`:
one :class:`FakeAnswer` (used for every one of the ``n`` choices), a list of them (choice ``i``
gets answer ``i``, cycling when the list is shorter than ``n``), a :class:`~trustscore.testing._faults.Fault`
(this request fails that way), or ``None`` ("I have no answer": the request is unmatched).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from typing import Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, field_validator

from trustscore.testing._faults import Fault
from trustscore.testing._request import FakeRequest

__all__ = ["FakeAnswer", "FakeRequest", "Policy", "Reply"]


class FakeAnswer(BaseModel):
    """One scripted completion.

    ``verdict_probs`` puts a distribution at the verdict token: the *last* generated token whose
    text (whitespace stripped) equals one of its keys gets ``top_logprobs`` built from it (most
    likely first, at most the ``top_logprobs`` the request asked for) and its own logprob from it.
    Every other generated token gets ``token_logprob``, with itself as its only top alternative.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    verdict_probs: dict[str, float] | None = None
    token_logprob: float = Field(default=-0.05, le=0.0)
    prompt_token_logprob: float = Field(default=-2.0, le=0.0)
    """Logprob reported for each prompt token (``prompt_logprobs`` and ``echo``)."""
    finish_reason: Literal["stop", "length"] | None = None
    """Forced finish reason; by default "stop", or "length" when ``max_tokens`` cut the text."""

    @field_validator("verdict_probs")
    @classmethod
    def _probabilities(cls, v: dict[str, float] | None) -> dict[str, float] | None:
        if v is None:
            return v
        if not v:
            raise ValueError("verdict_probs is empty: give at least one {token: probability}, or None")
        for tok, p in v.items():
            if not tok.strip():
                raise ValueError("verdict_probs keys must be non-blank tokens such as 'PASS' or '4'")
            if not (0.0 < p <= 1.0):
                raise ValueError(f"verdict_probs[{tok!r}] = {p} is not a probability in (0, 1]")
        if sum(v.values()) > 1.0 + 1e-6:
            raise ValueError(f"verdict_probs sum to {sum(v.values()):.4f} > 1; they are probabilities")
        return v

    def verdict_logprobs(self, allowed: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """The verdict distribution as (token, logprob), most likely first.

        With ``allowed`` (a structured ``choice`` constraint; compared whitespace-stripped, so " 4"
        allows "4") tokens outside it are masked and the
        rest renormalised, as vLLM's grammar bitmask does before logprobs are computed.
        """
        probs = dict(self.verdict_probs or {})
        if allowed is not None:
            kept = {a.strip() for a in allowed}
            probs = {k: p for k, p in probs.items() if k.strip() in kept}
            total = sum(probs.values())
            probs = {k: p / total for k, p in probs.items()} if total > 0 else {}
        return sorted(((k, math.log(p)) for k, p in probs.items()), key=lambda kv: -kv[1])


Reply: TypeAlias = FakeAnswer | Sequence[FakeAnswer] | Fault | None
Policy: TypeAlias = Callable[[FakeRequest], Reply | Awaitable[Reply]]
